import type { ProjectContext } from '../../project.js';
import { CliError, type Command } from '../command.js';

/** `trestle seed`: runs the project's `seed` hook (sample data for a fresh database). */
export const seedCommand: Command = {
  name: 'seed',
  summary: "Fill the database with the project's sample data (its `seed` hook).",
  usage: 'seed',
  help: ['Runs after "trestle migrate". The hook decides whether data already exists.'],
  options: {},
  async run(ctx) {
    const project = await ctx.project();
    const seed = project.config.seed;
    if (!seed) throw new CliError(`The project${project.path ? ` (${project.path})` : ''} has no seed hook.`);
    const database = await ctx.database();
    const users = await ctx.users();
    ctx.print(`Seeding ${database.url}...`);
    // The project's tables are its own (`AppTypes`); the framework only opened the connection.
    const db = database.db as unknown as ProjectContext['db'];
    await seed({ database, db, users, log: (line: string) => ctx.print(line) });
    ctx.print('Done.');
    return 0;
  },
};
