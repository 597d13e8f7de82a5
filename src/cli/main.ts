import { parseArgs } from 'node:util';
import type { CliIO, Command, CommandArgs, GlobalOptions } from './command.js';
import { CliError, UsageError } from './command.js';
import { findCommand } from './commands/index.js';
import { createCommandContext } from './context.js';
import { commandHelp } from './help-text.js';
import { helpCommand } from './commands/help.js';
import { loadProject, type LoadedProject } from './load-project.js';
import { projectCommands } from './project-commands.js';

/** Options every command accepts, wherever they appear on the line. */
const GLOBAL_OPTIONS = {
  config: { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const VALUE_OPTIONS = new Set(['--config', '--database-url']);

/**
 * The `trestle` command. Returns the exit code: 0 on success, 1 when the
 * command failed, 2 for a usage mistake. Every failure is one line on
 * stderr; passwords are never printed.
 */
export async function main(
  argv: string[],
  io: CliIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let label = 'trestle';
  try {
    const { name, rest } = splitCommand(argv);
    if (!name) {
      if (rest.includes('--help') || rest.includes('-h')) return await runCommand(helpCommand, { values: {}, positionals: [] }, io, cwd, env, configOption(rest));
      throw new UsageError('No command given. Run "trestle help" for the list.');
    }
    let command = findCommand(name);
    let loaded: Promise<LoadedProject> | undefined;
    if (!command) {
      // Not built in: perhaps one of the project's commands (trestle.config.ts).
      loaded = loadProject(cwd, configOption(rest), env);
      command = projectCommands(await loaded).find((c) => c.name === name);
    }
    if (!command) throw new UsageError(`Unknown command "${name}". Run "trestle help" for the list.`);
    label = `trestle ${command.name}`;
    const args = parseCommandArgs(command, rest);
    if (args.values['help']) {
      io.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    return await runCommand(command, args, io, cwd, env, undefined, loaded);
  } catch (err) {
    // The system checks' report (`serve` refusing to start) keeps its lines, as Django prints it.
    if (err instanceof Error && err.name === 'SystemCheckError') {
      const text = `SystemCheckError: ${err.message}`;
      io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
      return 1;
    }
    io.stderr.write(`${label}: ${oneLine(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

async function runCommand(
  command: Command,
  args: CommandArgs,
  io: CliIO,
  cwd: string,
  env: NodeJS.ProcessEnv,
  config?: string,
  loaded?: Promise<LoadedProject>,
): Promise<number> {
  const globals: GlobalOptions = {};
  if (typeof args.values['config'] === 'string') globals.config = args.values['config'];
  else if (config !== undefined) globals.config = config;
  if (typeof args.values['database-url'] === 'string') globals.databaseUrl = args.values['database-url'];
  const ctx = createCommandContext(io, globals, cwd, env, loaded);
  try {
    if (!command.outputIsData) return await command.run(ctx, args);
    const { logsOnStderr } = await import('../app.js');
    return await logsOnStderr(() => command.run(ctx, args));
  } finally {
    await ctx.close();
  }
}

/** `--config PATH` / `--config=PATH` before the line is parsed (the project must load to know its commands). */
function configOption(rest: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--') break;
    if (arg === '--config') value = rest[++i];
    else if (arg.startsWith('--config=')) value = arg.slice('--config='.length);
  }
  return value;
}

/** The first word that is not an option (nor a global option's value) is the command. */
function splitCommand(argv: string[]): { name: string | null; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (!arg.startsWith('-')) return { name: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: null, rest: argv };
}

function parseCommandArgs(command: Command, rest: string[]): CommandArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, ...GLOBAL_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // Node's messages run on ("… To specify a positional argument …"); keep the first sentence.
    const message = (err instanceof Error ? err.message : String(err)).split(/(?<=\.) /)[0];
    throw new UsageError(`${message} Run "trestle ${command.name} --help".`);
  }
  const values = parsed.values as CommandArgs['values'];
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (!values['help'] && (parsed.positionals.length < min || parsed.positionals.length > max)) {
    throw new UsageError(
      parsed.positionals.length > max
        ? `Unexpected argument "${parsed.positionals[max]}". Usage: trestle ${command.usage}`
        : `Missing argument. Usage: trestle ${command.usage}`,
    );
  }
  return { values, positionals: parsed.positionals };
}

/** An error as one line: no stack, no newlines. */
function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
