import { listMigrations, migrate, type MigrationSet } from '../../db/migrate.js';
import type { Command } from '../command.js';

const LABEL: Record<MigrationSet, string> = { framework: 'trestle', app: 'app' };

/** `trestle migrate [--list]`: applies pending migrations, or lists them. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations (framework first, then the project).',
  usage: 'migrate [--list]',
  help: ['--list    show every migration and whether it is applied; change nothing'],
  options: { list: { type: 'boolean' } },
  async run(ctx, args) {
    const project = await ctx.project();
    const database = await ctx.database();
    const appMigrations = project.config.migrations ?? {};
    if (args.values['list']) {
      const all = await listMigrations(database, appMigrations);
      for (const set of ['framework', 'app'] as const) {
        ctx.print(LABEL[set]);
        const rows = all.filter((m) => m.set === set);
        if (rows.length === 0) ctx.print(' (no migrations)');
        for (const m of rows) ctx.print(` [${m.applied ? 'X' : ' '}] ${m.name}`);
      }
      return 0;
    }
    ctx.print(`Database: ${database.url}`);
    let started = false;
    const { applied } = await migrate(database, appMigrations, {
      onProgress(event) {
        if (!started) ctx.print('Running migrations:');
        started = true;
        if (event.phase === 'start') ctx.io.stdout.write(`  Applying ${LABEL[event.set]}.${event.name}...`);
        else ctx.io.stdout.write(' OK\n');
      },
    });
    if (applied.length === 0) ctx.print('No migrations to apply.');
    return 0;
  },
};
