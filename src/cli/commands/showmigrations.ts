import { listMigrations, type MigrationSet } from '../../db/migrate.js';
import type { Command, CommandContext } from '../command.js';
import { CliError } from '../command.js';

export const MIGRATION_APPS: Record<string, MigrationSet> = { trestle: 'framework', app: 'app' };
const LABEL: Record<MigrationSet, string> = { framework: 'trestle', app: 'app' };

/** Django's `showmigrations` list: each app, then ` [X] name` (applied) or ` [ ] name`. */
export async function printMigrationList(ctx: CommandContext, sets: readonly MigrationSet[]): Promise<void> {
  const project = await ctx.project();
  const all = await listMigrations(await ctx.database(), project.config.migrations ?? {});
  for (const set of sets) {
    ctx.print(LABEL[set]);
    const rows = all.filter((m) => m.set === set);
    if (rows.length === 0) ctx.print(' (no migrations)');
    for (const m of rows) ctx.print(` [${m.applied ? 'X' : ' '}] ${m.name}`);
  }
}

/** `trestle showmigrations [<app>...]`: every migration and whether it is applied, as Django's. */
export const showmigrationsCommand: Command = {
  name: 'showmigrations',
  summary: 'List the migrations of each app and whether they are applied.',
  usage: 'showmigrations [<app>...]',
  help: ['<app>            "trestle" (the framework\'s tables) or "app" (the project\'s); default: both'],
  options: {},
  positionals: { min: 0, max: 2 },
  async run(ctx, args) {
    const sets = args.positionals.map((label) => {
      const set = MIGRATION_APPS[label];
      if (!set) throw new CliError(`No app with label "${label}": the apps are "trestle" and "app".`);
      return set;
    });
    await printMigrationList(ctx, sets.length > 0 ? sets : ['framework', 'app']);
    return 0;
  },
};
