import type { AppContext } from '../context.js';
import type { RequestEnvironment } from '../request.js';
import { deployChecks } from './security.js';
import { checkRelatedNames, checkViewColumns, checkViewNames, type MountedView } from './views.js';
import { checkModelNames } from './models.js';
import { ERROR, formatReport, SystemCheckError, type CheckLevel, type CheckMessage } from './messages.js';

export * from './messages.js';
export { getCloseMatches } from './difflib.js';
export { checkModels } from './model-declarations.js';
export type { MountedView } from './views.js';

/** Django's check tags that Trestle's checks carry. */
export const CHECK_TAGS = ['database', 'models', 'security', 'urls', 'views'] as const;

/** A check: what it inspects (tags), whether only `--deploy` runs it, and the function. */
export interface SystemCheck {
  readonly tags: readonly string[];
  readonly deploy?: boolean;
  run(ctx: CheckContext): readonly CheckMessage[] | Promise<readonly CheckMessage[]>;
}

/** What a check can look at. */
export interface CheckContext {
  readonly app: AppContext;
  readonly views: readonly MountedView[];
  readonly routeNames: readonly string[];
  /** The process environment (SECRET_KEY may come from it). */
  readonly env: NodeJS.ProcessEnv;
}

const BUILTIN: readonly SystemCheck[] = [
  { tags: ['views', 'database'], run: (c) => checkViewColumns(c.app, c.views, mounted.get(c.app)!.env) },
  { tags: ['views'], run: (c) => checkModelNames(c.views) },
  { tags: ['urls'], run: (c) => checkViewNames(c.routeNames, c.views) },
  { tags: ['views'], run: (c) => checkRelatedNames(c.views) },
  { tags: ['security'], deploy: true, run: (c) => deployChecks(c.app.settings, c.env) },
];

interface Mounted {
  views: readonly MountedView[];
  env: RequestEnvironment;
  checks: readonly SystemCheck[];
}
const mounted = new WeakMap<AppContext, Mounted>();

/** Called by `createApp` once its routes are bound: what the checks inspect. */
export function registerAppForChecks(app: AppContext, views: readonly MountedView[], env: RequestEnvironment, checks: readonly SystemCheck[] = []): void {
  mounted.set(app, { views, env, checks });
}

export interface RunChecksOptions {
  /** Also run the deployment checks (`trestle check --deploy`). */
  deploy?: boolean;
  /** Only checks carrying one of these tags. */
  tags?: readonly string[];
  /** Where SECRET_KEY is looked up when the setting is empty (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Every message of the app's checks (Django's `run_checks`), silenced ones
 * included: `formatReport` leaves those out.
 *
 * @example
 * const messages = await runChecks(app, { deploy: true });
 * console.log(formatReport(messages, { silenced: app.trestle.settings.SILENCED_SYSTEM_CHECKS, countLine: true }).text);
 */
export async function runChecks(target: AppContext | { trestle: AppContext }, options: RunChecksOptions = {}): Promise<CheckMessage[]> {
  const app = 'trestle' in target ? target.trestle : target;
  const state = mounted.get(app);
  if (!state) throw new Error('runChecks() needs an app made by createApp().');
  const ctx: CheckContext = {
    app,
    views: state.views,
    routeNames: app.services.has('routes') ? app.services.get('routes').names() : [],
    env: options.env ?? process.env,
  };
  const out: CheckMessage[] = [];
  for (const check of [...BUILTIN, ...state.checks]) {
    if (check.deploy && !options.deploy) continue;
    if (options.tags && !check.tags.some((t) => options.tags!.includes(t))) continue;
    out.push(...(await check.run(ctx)));
  }
  return out;
}

/**
 * The start-up run (`createApp`'s ready): errors reject with one
 * `SystemCheckError` listing them all; warnings are logged, one line each.
 * Messages whose id is in SILENCED_SYSTEM_CHECKS say nothing.
 */
export async function startupChecks(app: AppContext, failLevel: CheckLevel = ERROR): Promise<void> {
  const messages = await runChecks(app);
  const report = formatReport(messages, { silenced: app.settings.SILENCED_SYSTEM_CHECKS, failLevel });
  if (report.failed) throw new SystemCheckError(report.text, report.visible);
  for (const m of report.visible) app.log.warn(String(m));
}
