import type { ParseArgsConfig } from 'node:util';
import type { Database } from '../db/database.js';
import type { UserStore } from '../users/store.js';
import type { LoadedProject } from './load-project.js';
import type { ProjectContext } from '../project.js';

/** The streams a command talks through (the process's, or a test's). */
export interface CliIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Options every command accepts. */
export interface GlobalOptions {
  /** `--config`: path of the project file. */
  config?: string;
  /** `--database-url`: overrides `DATABASE_URL` and the project's URL. */
  databaseUrl?: string;
}

/** What a running command may use. Everything is opened lazily and closed by `main`. */
export interface CommandContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly io: CliIO;
  readonly globals: GlobalOptions;
  /** Writes one line to stdout. */
  print(line: string): void;
  /** Writes one line to stderr. */
  warn(line: string): void;
  /** The project config (an empty project when there is no config file). */
  project(): Promise<LoadedProject>;
  /** The database, opened once. */
  database(): Promise<Database>;
  /** The user store, after checking the users table is migrated. */
  users(): Promise<UserStore>;
  /**
   * The project's services, as its `seed` hook gets them: the database
   * (also typed by the app's `AppTypes`), the user store (framework tables
   * migrated), and `log` printing a line on stdout.
   */
  services(): Promise<ProjectContext>;
}

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** The parsed command line handed to `run`. */
export interface CommandArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * One `trestle <name>` command: a built-in one (listed in
 * `src/cli/commands/index.ts`), or a project's, declared in
 * `trestle.config.ts` under `commands` (see `ProjectCommand`).
 */
export interface Command {
  name: string;
  /** One line for `trestle help`. */
  summary: string;
  /** Usage after `trestle `, e.g. `migrate [--list]`. */
  usage: string;
  /** Lines describing each option, for `trestle <name> --help`. */
  help: string[];
  /** `node:util` parseArgs options (global options are added automatically). */
  options: CommandOptions;
  /**
   * The command's stdout is data (a document, a key): the default logger of
   * any app it builds writes to stderr instead, so stdout holds the data only.
   */
  outputIsData?: boolean;
  /** How many positional arguments the command takes. */
  positionals?: { min: number; max: number };
  /** Returns the exit code. Throw `CliError` for a one-line failure. */
  run(ctx: CommandContext, args: CommandArgs): Promise<number>;
}

/** A failure reported as one line on stderr with exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A command-line mistake: exit code 2. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}

/**
 * A command a project declares in `trestle.config.ts` (`commands: [...]`),
 * Django's management commands: `usage`, `help` and `options` may be left
 * out. It runs like a built-in command: `ctx.services()` opens the
 * database and user store, `CliError` is a one-line failure (exit 1),
 * `UsageError` a usage mistake (exit 2), the returned number the exit code.
 */
export interface ProjectCommand extends Omit<Command, 'usage' | 'help' | 'options'> {
  usage?: string;
  help?: string[];
  options?: CommandOptions;
}

/** Declares a project command (an identity function for its types). */
export function defineCommand(command: ProjectCommand): ProjectCommand {
  return command;
}
