import {
  IrreversibleMigration,
  migrate,
  migrateTo,
  planMigrations,
  type MigrateOptions,
  type MigrationSet,
  type MigrationStep,
  type MigrationTarget,
} from '../../db/migrate.js';
import type { Command } from '../command.js';
import { ChangeQuestion, detectChanges } from '../../models/autodetector.js';
import { stateOf } from '../../models/migration.js';
import type { AnyModel } from '../../models/model.js';
import { frameworkMigrations } from '../../db/migrations/index.js';
import { CliError } from '../command.js';
import { checksBeforeMigrate } from './check.js';
import { printMigrationList } from './showmigrations.js';

/** Whether the models differ from the state the migrations build (a question the autodetector would ask counts as a difference). */
function modelsAheadOfMigrations(models: readonly AnyModel[], migrations: Record<string, unknown>): boolean {
  try {
    return detectChanges(stateOf(migrations as Parameters<typeof stateOf>[0]), models).length > 0;
  } catch (err) {
    if (err instanceof ChangeQuestion) return true;
    throw err;
  }
}

const LABEL: Record<MigrationSet, string> = { framework: 'trestle', app: 'app' };
const SETS: Record<string, MigrationSet> = { trestle: 'framework', app: 'app' };

/**
 * `trestle migrate [<app> [<name> | zero]] [--plan | --list]`: applies
 * pending migrations, or moves one app to a migration (unapplying the later
 * ones with their `down()`), as Django's `migrate`.
 */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations (framework first, then the project), or move one app to a migration.',
  usage: 'migrate [<app> [<migration> | zero]] [--plan | --list] [--skip-checks]',
  help: [
    '<app>            "trestle" (the framework\'s tables) or "app" (the project\'s): migrate that app only',
    '<migration>      migrate <app> to this migration (a unique prefix is enough, e.g. 0002): later',
    '                 applied ones are unapplied with their down(), newest first; earlier pending ones applied',
    'zero             unapply every migration of <app>',
    '--plan           print what would run; change nothing',
    '--list           show every migration and whether it is applied; change nothing',
    '--skip-checks    do not run the system checks first (see "trestle check")',
  ],
  options: { list: { type: 'boolean' }, plan: { type: 'boolean' }, 'skip-checks': { type: 'boolean' } },
  positionals: { min: 0, max: 2 },
  async run(ctx, args) {
    const project = await ctx.project();
    const appMigrations = project.config.migrations ?? {};
    const target = args.positionals.length > 0 ? parseTarget(args.positionals, appMigrations) : undefined;
    const database = await ctx.database();
    if (args.values['list']) {
      await printMigrationList(ctx, ['framework', 'app']);
      return 0;
    }
    if (args.values['plan']) {
      const steps = await planMigrations(database, appMigrations, target?.target);
      ctx.print('Planned operations:');
      if (steps.length === 0) ctx.print('  No planned migration operations.');
      for (const step of steps) ctx.print(`  ${describeStep(step)}`);
      return 0;
    }
    // As Django's migrate: the system checks first; an error stops before any change.
    if (!args.values['skip-checks'] && !(await checksBeforeMigrate(ctx))) return 1;
    // Applying migrations while the models say more than they hold would leave the tables behind the code.
    if (!target) {
      const models = project.config.models ?? [];
      if (models.length > 0 && modelsAheadOfMigrations(models, appMigrations)) {
        throw new CliError("Your models have changes that are not yet reflected in a migration: run 'trestle makemigrations', then 'trestle migrate' again. Nothing was applied.");
      }
    }
    ctx.print(`Database: ${database.url}`);
    let started = false;
    const options: MigrateOptions = {
      onProgress(event) {
        if (!started) ctx.print('Running migrations:');
        started = true;
        const verb = event.direction === 'down' ? 'Unapplying' : 'Applying';
        if (event.phase === 'start') ctx.io.stdout.write(`  ${verb} ${LABEL[event.set]}.${event.name}...`);
        else ctx.io.stdout.write(' OK\n');
      },
    };
    if (!target) {
      const { applied } = await migrate(database, appMigrations, options);
      if (applied.length === 0) ctx.print('No migrations to apply.');
      return 0;
    }
    try {
      const { applied, unapplied } = await migrateTo(database, appMigrations, target.target, options);
      if (applied.length + unapplied.length === 0) ctx.print('No migrations to apply.');
    } catch (err) {
      if (err instanceof IrreversibleMigration) {
        throw new CliError(`Migration ${LABEL[err.step.set]}.${err.step.name} has no down(): it cannot be unapplied; nothing was changed.`);
      }
      throw err;
    }
    return 0;
  },
};

function describeStep(step: MigrationStep): string {
  const name = `${LABEL[step.set]}.${step.name}`;
  if (step.direction === 'up') return `Apply ${name}`;
  return step.reversible ? `Unapply ${name}` : `Unapply ${name} (IRREVERSIBLE: no down())`;
}

/** `<app> [<migration> | zero]`; without a migration, the app's latest. */
function parseTarget(positionals: string[], appMigrations: Record<string, unknown>): { target: MigrationTarget } {
  const [label, wanted] = positionals as [string, string | undefined];
  const set = SETS[label];
  if (!set) throw new CliError(`No app with label "${label}": the apps are "trestle" and "app".`);
  if (wanted === 'zero') return { target: { set, name: null } };
  const names = set === 'app' ? Object.keys(appMigrations).sort() : frameworkMigrations.map(([name]) => name);
  if (wanted === undefined) {
    const latest = names.at(-1);
    if (latest === undefined) throw new CliError(`App "${label}" has no migrations.`);
    return { target: { set, name: latest } };
  }
  const exact = names.filter((n) => n === wanted);
  const matches = exact.length > 0 ? exact : names.filter((n) => n.startsWith(wanted));
  if (matches.length === 0) throw new CliError(`Cannot find a migration matching "${wanted}" from app "${label}".`);
  if (matches.length > 1) throw new CliError(`More than one migration matches "${wanted}" in app "${label}": ${matches.join(', ')}.`);
  return { target: { set, name: matches[0]! } };
}
