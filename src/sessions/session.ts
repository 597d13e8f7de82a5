import type { ApiRequest } from '../request.js';
import type { AppContext } from '../context.js';
import type { User } from '../users/user.js';
import { randomString } from '../security.js';
import { rotateCsrfToken } from '../authentication/csrf.js';
import { redisClient } from '../redis.js';
import { clearCookie, setCookie } from '../cookies.js';
import type { SessionData, SessionStore } from './store.js';
import { DatabaseSessionStore } from './database-store.js';
import { RedisSessionStore } from './redis-store.js';
import { MemorySessionStore } from './memory-store.js';

declare module '../context.js' {
  interface ServiceMap {
    /** Where login sessions live: Redis with REDIS_URL, else the database, else memory. */
    sessions: SessionStore;
  }
}

/** The session key naming the logged-in user's pk, as Django's `SESSION_KEY`. */
export const SESSION_USER_KEY = '_auth_user_id';

const SESSION_KEY_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SESSION_KEY_RE = /^[a-z0-9]{32}$/;
const SESSION_STATE = Symbol('trestle.session');

/** A request's session: its id (from the cookie) and data. */
export interface LoadedSession {
  readonly key: string;
  readonly data: SessionData;
}

/**
 * The app's session store, chosen on first use: a registered `sessions`
 * service, else Redis when REDIS_URL is set, else the `database` service,
 * else process memory (one process only).
 */
export function sessionStore(app: AppContext): SessionStore {
  const existing = app.services.tryGet('sessions');
  if (existing) return existing;
  const redis = redisClient(app);
  const database = app.services.tryGet('database');
  const store = redis
    ? new RedisSessionStore(redis)
    : database
      ? new DatabaseSessionStore(database.db)
      : new MemorySessionStore();
  app.services.set('sessions', store);
  return store;
}

/** A fresh 32-character session id (Django's alphabet). */
export function newSessionKey(): string {
  return randomString(32, SESSION_KEY_CHARS);
}

/** The request's session from the `sessionid` cookie, loaded once; `null` when none is live. */
export async function getSession(req: ApiRequest): Promise<LoadedSession | null> {
  const known = knownSession(req);
  if (known !== undefined) return known;
  // As Django's session middleware: a response that looked at the session varies on the cookie.
  req.varyOn('Cookie');
  const key = req.cookies[req.app.settings.SESSION_COOKIE_NAME]!;
  const data = await sessionStore(req.app).load(key);
  const session: LoadedSession | null = data ? { key, data } : null;
  // As Django's session middleware: a cookie naming no live session is deleted in the response.
  if (session === null) clearCookie(req.reply, req.app.settings.SESSION_COOKIE_NAME, cookieOptions(req));
  req.locals[SESSION_STATE] = session;
  return session;
}

/**
 * `getSession` when the store need not be asked: the session already
 * loaded, or `null` when no cookie can name one (with the same effects:
 * `Vary: Cookie`, a malformed cookie deleted). `undefined` when the
 * store must be asked (`getSession`).
 */
export function knownSession(req: ApiRequest): LoadedSession | null | undefined {
  if (SESSION_STATE in req.locals) return req.locals[SESSION_STATE] as LoadedSession | null;
  const key = req.cookies[req.app.settings.SESSION_COOKIE_NAME];
  // A key that cannot be ours is not looked up at all.
  if (key !== undefined && SESSION_KEY_RE.test(key)) return undefined;
  req.varyOn('Cookie');
  if (key !== undefined) clearCookie(req.reply, req.app.settings.SESSION_COOKIE_NAME, cookieOptions(req));
  req.locals[SESSION_STATE] = null;
  return null;
}

/** The pk of the user the session belongs to, or `null`. */
export async function sessionUserId(req: ApiRequest): Promise<number | null> {
  const session = await getSession(req);
  const raw = session?.data[SESSION_USER_KEY];
  const pk = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  return Number.isSafeInteger(pk) ? pk : null;
}

function cookieOptions(req: ApiRequest) {
  const s = req.app.settings;
  return {
    path: '/',
    httpOnly: true,
    sameSite: s.SESSION_COOKIE_SAMESITE.toLowerCase() as 'lax' | 'strict' | 'none',
    secure: s.SESSION_COOKIE_SECURE || req.isSecure() || s.SESSION_COOKIE_SAMESITE === 'None',
  };
}

/**
 * Logs `user` in on this request, as Django's `login()`: the session id is
 * replaced (so an id planted before login is worthless), a session that
 * belonged to another user is emptied, the CSRF secret is rotated, and the
 * response sets `sessionid` (HttpOnly, SameSite=Lax, Secure on HTTPS).
 */
export async function login(req: ApiRequest, user: User): Promise<void> {
  if (user.pk === null) throw new TypeError('login() needs a stored user (pk is null).');
  const app = req.app;
  const store = sessionStore(app);
  const current = await getSession(req);
  let data: SessionData = {};
  if (current) {
    const owner = current.data[SESSION_USER_KEY];
    if (owner === undefined || String(owner) === String(user.pk)) data = { ...current.data };
    await store.delete(current.key);
  }
  data[SESSION_USER_KEY] = String(user.pk);
  const key = newSessionKey();
  const age = app.settings.SESSION_COOKIE_AGE;
  const expiresAt = new Date(Date.now() + age * 1000);
  await store.save(key, data, expiresAt);
  req.locals[SESSION_STATE] = { key, data } satisfies LoadedSession;
  setCookie(req.reply, app.settings.SESSION_COOKIE_NAME, key, { ...cookieOptions(req), maxAge: age, expires: expiresAt });
  rotateCsrfToken(req);
  req.user = user;
  req.auth = null;
  const users = app.services.tryGet('users');
  if (users && typeof user.pk === 'number') {
    // Django's user_logged_in receiver; a failure here must not undo the login.
    await users.update(user.pk, { lastLogin: new Date() }).catch((err: unknown) => app.log.warn({ err }, 'could not record last_login'));
  }
}

/**
 * Logs the request's user out, as Django's `logout()`: the session is
 * deleted from the store and the cookie cleared; `request.user` becomes the
 * unauthenticated user.
 */
export async function logout(req: ApiRequest): Promise<void> {
  const app = req.app;
  const current = await getSession(req);
  if (current) await sessionStore(app).delete(current.key);
  req.locals[SESSION_STATE] = null;
  if (req.cookies[app.settings.SESSION_COOKIE_NAME] !== undefined) {
    clearCookie(req.reply, app.settings.SESSION_COOKIE_NAME, cookieOptions(req));
  }
  const s = app.settings;
  req.user = (s.UNAUTHENTICATED_USER ? s.UNAUTHENTICATED_USER() : null) as User;
  req.auth = s.UNAUTHENTICATED_TOKEN ? s.UNAUTHENTICATED_TOKEN() : null;
}

/**
 * Changes the request's live session (Django's `request.session[...] = …`):
 * `change` edits a copy of its data, which is saved back with a fresh
 * expiry. Returns `false`, saving nothing, when the request has no session.
 */
export async function updateSession(req: ApiRequest, change: (data: SessionData) => void): Promise<boolean> {
  const current = await getSession(req);
  if (!current) return false;
  const data: SessionData = { ...current.data };
  change(data);
  const expiresAt = new Date(Date.now() + req.app.settings.SESSION_COOKIE_AGE * 1000);
  await sessionStore(req.app).save(current.key, data, expiresAt);
  req.locals[SESSION_STATE] = { key: current.key, data } satisfies LoadedSession;
  return true;
}
