import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Command, CommandContext } from '../command.js';
import { CliError, UsageError } from '../command.js';
import { KyselyUserStore } from '../../users/kysely-user-store.js';
import { settingsFromEnvironment, withOperatorEnvironment } from '../../environment.js';

const LEVELS: Record<string, number> = { CRITICAL: 50, ERROR: 40, WARNING: 30, INFO: 20, DEBUG: 10 };
const TAGS = ['database', 'models', 'security', 'urls', 'views'];

/** The tags of the checks this project has: `models` when it declares models. */
async function projectTags(ctx: CommandContext): Promise<string[]> {
  let models = 0;
  try {
    models = ((await ctx.project()).config.models ?? []).length;
  } catch {
    // No project to read: its checks are the built-in ones.
  }
  return TAGS.filter((t) => t !== 'models' || models > 0);
}

/**
 * `trestle check [--deploy] [--tag T] [--fail-level L]`: Django's `manage.py
 * check`. Builds the project's app (as `serve` does, without listening) and
 * runs its system checks: ordering/search/filter/cursor columns against the
 * database's catalogue, hyperlink view names against the routes, serializer
 * sources; with `--deploy`, the security settings too. No issue: one line
 * on stdout, exit 0. Issues: Django's report on stderr; exit 1 when one is
 * at or above the fail level (ERROR).
 */
export const checkCommand: Command = {
  name: 'check',
  summary: "Run the system checks (Django's manage.py check): misspelt columns and view names, --deploy settings.",
  usage: 'check [--deploy] [--tag T ...] [--fail-level ERROR] [--list-tags]',
  // The report is what stdout holds: the log lines of the app built for it go to stderr.
  outputIsData: true,
  help: [
    '--deploy          also check the settings for a deployment (SECRET_KEY, DEBUG, cookies, ALLOWED_HOSTS)',
    `-t, --tag T       run only the checks tagged T (repeatable): ${TAGS.join(', ')} (models: when the project declares models)`,
    '--fail-level L    the level that makes the command fail: CRITICAL, ERROR (default), WARNING, INFO, DEBUG',
    '--list-tags       list the tags and exit',
    'Exit code 0 when no issue reaches the fail level, 1 otherwise. SILENCED_SYSTEM_CHECKS hides messages by id.',
    'Environment: DATABASE_URL, SECRET_KEY, REDIS_URL, NODE_ENV, as for "trestle serve".',
  ],
  options: {
    deploy: { type: 'boolean' },
    tag: { type: 'string', short: 't', multiple: true },
    'fail-level': { type: 'string', default: 'ERROR' },
    'list-tags': { type: 'boolean' },
  },
  async run(ctx, args) {
    const failLevel = LEVELS[String(args.values['fail-level']).toUpperCase()];
    if (failLevel === undefined) {
      throw new UsageError(`Invalid fail level "${String(args.values['fail-level'])}": use CRITICAL, ERROR, WARNING, INFO or DEBUG.`);
    }
    const deploy = args.values['deploy'] === true;
    const available = await projectTags(ctx);
    if (args.values['list-tags']) {
      for (const tag of available) if (tag !== 'security' || deploy) ctx.print(tag);
      return 0;
    }
    const tags = args.values['tag'] as unknown as string[] | undefined;
    for (const tag of tags ?? []) {
      if (!available.includes(tag)) throw new UsageError(`There is no system check with the "${tag}" tag.`);
    }
    const report = await projectChecks(ctx, { deploy, failLevel, countLine: true, ...(tags ? { tags } : {}) });
    // As Django's OutputWrapper: a newline is added only where the text has none.
    const text = report.text.endsWith('\n') ? report.text : `${report.text}\n`;
    if (report.visible.length > 0) ctx.io.stderr.write(text);
    else ctx.io.stdout.write(text);
    return report.failed ? 1 : 0;
  },
};

/**
 * Runs the project's system checks on a freshly built app that never
 * listens, and closes it. Used by `trestle check` and, before migrating,
 * by `trestle migrate` (`forMigrate`: production refusals such as a missing
 * SECRET_KEY are left to `serve`, so they do not block a migration).
 */
export async function projectChecks(
  ctx: CommandContext,
  options: { deploy?: boolean; tags?: readonly string[]; failLevel?: number; countLine?: boolean; forMigrate?: boolean },
): Promise<import('../../checks/index.js').CheckReport> {
  const app = await buildCheckedApp(ctx, options.forMigrate === true);
  const { runChecks, formatReport } = await import('../../checks/index.js');
  try {
    const trestle = (app as FastifyInstance & { trestle?: AppContext }).trestle;
    if (!trestle) throw new CliError("The project's createApp did not return a Trestle app.");
    const messages = await runChecks(trestle, { env: ctx.env, ...(options.deploy ? { deploy: true } : {}), ...(options.tags ? { tags: options.tags } : {}) });
    // The project's model declarations, checked together (reverse accessors).
    const models = (await ctx.project()).config.models ?? [];
    if (models.length > 0 && (!options.tags || options.tags.includes('models'))) {
      const { checkModels } = await import('../../checks/model-declarations.js');
      messages.unshift(...checkModels(models));
    }
    return formatReport(messages, {
      silenced: trestle.settings.SILENCED_SYSTEM_CHECKS,
      ...(options.failLevel !== undefined ? { failLevel: options.failLevel } : {}),
      countLine: options.countLine ?? false,
    });
  } finally {
    await app.close();
  }
}

/**
 * `trestle migrate` runs the checks first, as Django's migrate does: errors
 * stop it before any migration is applied (`--skip-checks` skips them).
 * Prints the report; returns false when the migration must not run.
 */
export async function checksBeforeMigrate(ctx: CommandContext): Promise<boolean> {
  // No routes and no app of its own: nothing to check, and no app to build.
  const project = (await ctx.project()).config;
  if ((project.routes ?? []).length === 0 && !project.createApp) return true;
  const report = await projectChecks(ctx, { forMigrate: true });
  if (report.visible.length > 0) ctx.io.stderr.write(report.text.endsWith('\n') ? report.text : `${report.text}\n`);
  return !report.failed;
}

async function buildCheckedApp(ctx: CommandContext, forMigrate: boolean): Promise<FastifyInstance> {
  const project = (await ctx.project()).config;
  const database = await ctx.database();
  const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
  const settings = settingsFromEnvironment(project.settings ?? {}, ctx.env);
  if (forMigrate) settings.DEBUG = true;
  const routes = project.routes ?? [];
  if (project.createApp) {
    // As `serve`: the operator's environment reaches the app whatever settings the hook passes on.
    const hook = project.createApp;
    return withOperatorEnvironment(ctx.env, () => hook({ settings, routes, database, users }));
  }
  const { createApp } = await import('../../app.js');
  return createApp({ logger: false, settings, routes, database, users, dataDir: join(ctx.cwd, 'data') });
}
