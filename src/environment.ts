import { AsyncLocalStorage } from 'node:async_hooks';
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

const operator = new AsyncLocalStorage<NodeJS.ProcessEnv>();

/**
 * Runs `build` (a project's own `createApp` hook) so that every app
 * `createApp` builds inside it takes the operator's environment on top of
 * the settings it is given, whatever settings the hook passes: `trestle
 * serve` runs the hook this way, so `REDIS_URL`, `SECRET_KEY` and
 * `NODE_ENV` reach the app even when the hook builds it from the module's
 * own settings.
 */
export function withOperatorEnvironment<T>(env: NodeJS.ProcessEnv, build: () => T): T {
  return operator.run(env, build);
}

/** `settings` with the operator's environment applied, inside `withOperatorEnvironment`; else as given. */
export function applyOperatorEnvironment(settings: SettingsInput | undefined): SettingsInput | undefined {
  const env = operator.getStore();
  return env === undefined ? settings : settingsFromEnvironment(settings ?? {}, env);
}
