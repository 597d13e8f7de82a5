import type { Command } from '../command.js';
import { changepasswordCommand } from './changepassword.js';
import { checkCommand } from './check.js';
import { clearsessionsCommand } from './clearsessions.js';
import { createsuperuserCommand } from './createsuperuser.js';
import { devCommand } from './dev.js';
import { helpCommand } from './help.js';
import { importDjangoCommand } from './import-django.js';
import { makemigrationsCommand } from './makemigrations.js';
import { migrateCommand } from './migrate.js';
import { showmigrationsCommand } from './showmigrations.js';
import { sqlmigrateCommand } from './sqlmigrate.js';
import { newCommand } from './new.js';
import { openapiCommand } from './openapi.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';
import { tokenCommand } from './token.js';

/**
 * Every `trestle` command, in the order `trestle help` lists them. To add a
 * command: write `src/cli/commands/<name>.ts` exporting a `Command` and add
 * it here.
 */
export const commands: readonly Command[] = [
  newCommand,
  makemigrationsCommand,
  migrateCommand,
  showmigrationsCommand,
  sqlmigrateCommand,
  seedCommand,
  createsuperuserCommand,
  changepasswordCommand,
  tokenCommand,
  importDjangoCommand,
  clearsessionsCommand,
  serveCommand,
  devCommand,
  openapiCommand,
  checkCommand,
  helpCommand,
];

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
