import type { Command } from './command.js';
import { commands } from './commands/index.js';

const GLOBAL_HELP = [
  '--config PATH         project file (default: trestle.config.{ts,mts,js,mjs} here, or $TRESTLE_CONFIG)',
  '--database-url URL    database (default: $DATABASE_URL, the project\'s databaseUrl, sqlite:./data/trestle.sqlite3)',
  '-h, --help            show help',
];

/** `trestle help`: the built-in commands, then the project's (`project`). */
export function generalHelp(project: readonly Command[] = []): string {
  const width = Math.max(...[...commands, ...project].map((c) => c.name.length));
  return [
    'Usage: trestle <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    ...(project.length ? ['', 'Project commands (trestle.config.ts):', ...project.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)] : []),
    '',
    'Options for every command:',
    ...GLOBAL_HELP.map((l) => `  ${l}`),
    '',
    'Run "trestle <command> --help" for a command\'s options.',
  ].join('\n');
}

/** `trestle <command> --help`. */
export function commandHelp(command: Command): string {
  return [
    `Usage: trestle ${command.usage}`,
    '',
    command.summary,
    ...(command.help.length ? ['', 'Options:', ...command.help.map((l) => `  ${l}`)] : []),
    '',
    'Options for every command:',
    ...GLOBAL_HELP.map((l) => `  ${l}`),
  ].join('\n');
}
