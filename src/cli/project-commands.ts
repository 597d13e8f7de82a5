import type { Command } from './command.js';
import { CliError } from './command.js';
import { findCommand } from './commands/index.js';
import type { LoadedProject } from './load-project.js';

/**
 * The project's own commands (`commands` in trestle.config.ts) as
 * `Command`s, checked: a lower-case name, a `run` function, no duplicate and
 * no built-in command's name (each a one-line error naming the config file).
 */
export function projectCommands(project: LoadedProject): Command[] {
  const declared = project.config.commands ?? [];
  const where = project.path ?? 'the project';
  if (!Array.isArray(declared)) throw new CliError(`${where}: "commands" must be an array of commands.`);
  const seen = new Set<string>();
  return declared.map((c, i) => {
    const name = (c as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(name)) {
      throw new CliError(`${where}: commands[${i}] needs a name of lower-case letters, digits, "-" and "_".`);
    }
    if (typeof c.run !== 'function') throw new CliError(`${where}: the command "${name}" has no run(ctx, args) function.`);
    if (findCommand(name)) throw new CliError(`${where}: the command "${name}" has the name of a built-in command.`);
    if (seen.has(name)) throw new CliError(`${where}: two commands are named "${name}".`);
    seen.add(name);
    return { ...c, name, summary: c.summary ?? '', usage: c.usage ?? name, help: c.help ?? [], options: c.options ?? {} };
  });
}
