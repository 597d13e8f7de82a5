import type { SettingsInput } from './settings.js';

/**
 * The project's settings with the operator's environment on top: `REDIS_URL`
 * and `SECRET_KEY`, when set, win over the config file, as `DATABASE_URL`
 * wins over its `databaseUrl`; `NODE_ENV=production` means DEBUG false
 * unless the project sets DEBUG.
 */
export function settingsFromEnvironment(settings: SettingsInput, env: NodeJS.ProcessEnv): SettingsInput {
  const out: SettingsInput = { ...settings };
  if (env['REDIS_URL']) out.REDIS_URL = env['REDIS_URL'];
  if (env['SECRET_KEY']) out.SECRET_KEY = env['SECRET_KEY'];
  if (out.DEBUG === undefined && env['NODE_ENV'] === 'production') out.DEBUG = false;
  return out;
}

/**
 * The environment of the `withOperatorEnvironment` call under way, if any.
 * A module variable, not an `AsyncLocalStorage`: on Node 20 the first
 * `AsyncLocalStorage.run` turns on V8's promise hooks for the rest of the
 * process, a cost every request pays (docs/decisions.md).
 */
let operatorEnv: NodeJS.ProcessEnv | undefined;

/**
 * Runs `build` (a project's own `createApp` hook) so that every app
 * `createApp` builds while it runs takes the operator's environment on top
 * of the settings it is given, whatever settings the hook passes: `trestle
 * serve` runs the hook this way, so `REDIS_URL`, `SECRET_KEY` and
 * `NODE_ENV` reach the app even when the hook builds it from the module's
 * own settings. The scope lasts until `build`'s promise settles.
 */
export function withOperatorEnvironment<T>(env: NodeJS.ProcessEnv, build: () => T): T {
  const previous = operatorEnv;
  operatorEnv = env;
  let result: T;
  try {
    result = build();
  } catch (err) {
    operatorEnv = previous;
    throw err;
  }
  if (result instanceof Promise) {
    return result.finally(() => {
      operatorEnv = previous;
    }) as T;
  }
  operatorEnv = previous;
  return result;
}

/** `settings` with the operator's environment applied, inside `withOperatorEnvironment`; else as given. */
export function applyOperatorEnvironment(settings: SettingsInput | undefined): SettingsInput | undefined {
  const env = operatorEnv;
  return env === undefined ? settings : settingsFromEnvironment(settings ?? {}, env);
}
