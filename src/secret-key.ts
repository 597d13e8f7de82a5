import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ImproperlyConfigured } from './exceptions.js';
import { defaultSettings } from './settings.js';

/** Name of the development secret inside the data folder. */
export const SECRET_KEY_FILE = 'secret_key';

export interface ResolveSecretKeyOptions {
  /** Where `SECRET_KEY` is looked up when the setting is empty (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Told once when the development key is used (default: `console.warn`). */
  warn?: (message: string) => void;
}

/**
 * The SECRET_KEY to use: the `SECRET_KEY` setting, else the `SECRET_KEY`
 * environment variable, else — for development — a random key generated once
 * into `<dataDir>/secret_key` (mode 0600) and read back on later starts, with
 * a warning every time it is used. Every process that shares a data folder
 * (the server, `trestle token`) therefore agrees on the key.
 *
 * @example
 * const SECRET_KEY = resolveSecretKey(project.settings ?? {}, './data', { warn: (m) => app.log.warn(m) });
 * await createApp({ settings: { ...project.settings, SECRET_KEY }, … });
 */
export function resolveSecretKey(
  settings: { readonly SECRET_KEY?: string | null | undefined },
  dataDir = './data',
  options: ResolveSecretKeyOptions = {},
): string {
  if (typeof settings.SECRET_KEY === 'string' && settings.SECRET_KEY !== '') return settings.SECRET_KEY;
  const fromEnv = (options.env ?? process.env)['SECRET_KEY'];
  if (fromEnv) return fromEnv;
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const file = resolve(join(dataDir, SECRET_KEY_FILE));
  const existing = readSecretFile(file);
  if (existing !== null) {
    warn(`SECRET_KEY is not set: using the development key in ${file}. Set SECRET_KEY in production.`);
    return existing;
  }
  mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  // Written whole to a private temporary file, then linked into place: the
  // link either appears complete or fails with EEXIST, so processes starting
  // at once never read a half-written key and all end up with the winner's.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const raced = readSecretFile(file);
    if (raced === null) throw new Error(`${file} is empty: delete it or set SECRET_KEY.`);
    return raced;
  } finally {
    unlinkSync(temp);
  }
  warn(`SECRET_KEY is not set: generated a development key into ${file}. Set SECRET_KEY in production.`);
  return secret;
}

function readSecretFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const secret = text.trim();
  if (secret === '') throw new Error(`${file} is empty: delete it or set SECRET_KEY.`);
  // Tighten a key file that was copied around with loose permissions.
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return secret;
}

/**
 * Production start-up checks, as Django's `check --deploy` errors: with DEBUG
 * false (the default when `NODE_ENV=production`) the app refuses to start
 * without a SECRET_KEY (setting or environment) or with the development
 * ALLOWED_HOSTS. Each failure is one line saying what to set.
 */
export function checkProductionSettings(
  settings: { readonly DEBUG: boolean; readonly SECRET_KEY: string | null; readonly ALLOWED_HOSTS: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (settings.DEBUG) return;
  const why = 'DEBUG is false (the default when NODE_ENV=production)';
  if (!settings.SECRET_KEY && !env['SECRET_KEY']) {
    throw new ImproperlyConfigured(
      `SECRET_KEY is not set and ${why}: set the SECRET_KEY environment variable to a long random string, the same for every process.`,
    );
  }
  const defaults = defaultSettings().ALLOWED_HOSTS;
  const hosts = settings.ALLOWED_HOSTS;
  if (hosts.length === defaults.length && hosts.every((h, i) => h === defaults[i])) {
    throw new ImproperlyConfigured(
      `ALLOWED_HOSTS is the development default and ${why}: set ALLOWED_HOSTS to the host names this app serves, e.g. ["api.example.com"].`,
    );
  }
}
