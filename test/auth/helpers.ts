import { execFileSync } from 'node:child_process';
import { createApp, type TrestleApp, type CreateAppOptions } from '../../src/index.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';
import type { UserStore } from '../../src/users/store.js';
import type { UserRecord } from '../../src/users/user-record.js';
import { freshSqliteUrl } from '../helpers/databases.js';
import { openDatabase } from '../../src/db/database.js';

export const REDIS_TEST_URL = process.env['TRESTLE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';

let redisCached: boolean | undefined;
/** Whether the test Redis answers PING (synchronous, for describe-time decisions). */
export function redisAvailable(): boolean {
  if (redisCached !== undefined) return redisCached;
  const probe = `
    const { Redis } = require('ioredis');
    const r = new Redis(process.argv[1], { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1500, retryStrategy: () => null });
    r.connect().then(() => r.ping()).then(() => { r.disconnect(); process.exit(0); }, () => process.exit(1));
  `;
  try {
    execFileSync(process.execPath, ['-e', probe, REDIS_TEST_URL], { stdio: 'ignore', timeout: 5_000 });
    redisCached = true;
  } catch {
    redisCached = false;
  }
  return redisCached;
}

/** Redis tests run when Redis answers and are required under CI. */
export function requireRedisInCi(): void {
  if (process.env['CI'] && !redisAvailable()) {
    throw new Error(`Redis is required when CI is set, but ${REDIS_TEST_URL} does not answer.`);
  }
}

export interface AuthFixture {
  database: Database;
  users: UserStore;
  alice: UserRecord;
  admin: UserRecord;
  inactive: UserRecord;
  close(): Promise<void>;
}

/** A migrated database with alice (password `s3cret`), admin (staff) and carol (inactive). */
export async function authFixture(database?: Database): Promise<AuthFixture> {
  let db = database;
  let cleanup: (() => Promise<void>) | null = null;
  if (!db) {
    const fresh = freshSqliteUrl();
    db = await openDatabase(fresh.url);
    cleanup = fresh.cleanup;
  }
  await migrate(db);
  const { KyselyUserStore } = await import('../../src/users/kysely-user-store.js');
  // Cheap scrypt parameters keep the suite fast; the store still hashes for unknown users.
  const users = new KyselyUserStore(db.db, { hashParams: { ln: 10, r: 8, p: 1 } });
  const alice = await users.createUser({ username: 'alice', password: 's3cret', email: 'alice@example.com' });
  const admin = await users.createUser({ username: 'admin', password: 'adminpw', isStaff: true });
  const inactive = await users.createUser({ username: 'carol', password: 'carolpw', isActive: false });
  return {
    database: db,
    users,
    alice,
    admin,
    inactive,
    async close() {
      await db.close();
      await cleanup?.();
    },
  };
}

/** An app on the fixture's database and users. */
export function appWith(fx: AuthFixture, options: CreateAppOptions = {}): Promise<TrestleApp> {
  return createApp({
    logger: false,
    ...options,
    database: fx.database,
    users: fx.users,
  });
}

export function basic(username: string, password: string, encoding: BufferEncoding = 'utf8'): string {
  return `Basic ${Buffer.from(`${username}:${password}`, encoding).toString('base64')}`;
}

/** `name=value` pairs from a response's Set-Cookie headers. */
export function setCookies(headers: Record<string, unknown>): Record<string, string> {
  const raw = headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  const out: Record<string, string> = {};
  for (const line of list as string[]) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    out[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return out;
}

/** The full Set-Cookie line for one cookie. */
export function setCookieLine(headers: Record<string, unknown>, name: string): string | undefined {
  const raw = headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  return (list as string[]).find((l) => l.startsWith(`${name}=`));
}
