import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { apiView, createApp, migrate, openDatabase, path, type Database } from '../../src/index.js';
import { freshPgUrl } from '../helpers/databases.js';
import { pgAvailable, requirePgInCi } from '../helpers/pg.js';

requirePgInCi();

const opened: Database[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((d) => d.close()));
});

async function open(params: Record<string, string> = {}): Promise<Database> {
  const url = new URL((await freshPgUrl()).url);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const database = await openDatabase(url.toString());
  opened.push(database);
  return database;
}

const showTimeout = async (database: Database) =>
  (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db as Kysely<unknown>)).rows[0]!.statement_timeout;

describe.runIf(pgAvailable())('PostgreSQL timeouts', () => {
  it('a 30 s statement timeout by default', async () => {
    expect(await showTimeout(await open())).toBe('30s');
  });

  it('0 in the URL switches both timeouts off; a value that is not milliseconds is refused', async () => {
    const database = await open({ statement_timeout: '0', query_timeout: '0' });
    expect(await showTimeout(database)).toBe('0');
    const slept = await sql<{ ok: number }>`select 1 as ok from pg_sleep(0.2)`.execute(database.db as Kysely<unknown>);
    expect(slept.rows).toEqual([{ ok: 1 }]);
    await expect(open({ statement_timeout: '5s' })).rejects.toThrow(
      'statement_timeout in the database URL must be a whole number of milliseconds (0: none), not "5s".',
    );
  });

  it('a statement past the timeout (set in the URL) is a 503 with Retry-After; the next request is served', async () => {
    const database = await open({ statement_timeout: '200' });
    const sleep = apiView(['GET'], async (req) => {
      await sql`select pg_sleep(${Number(req.query['s'])})`.execute(database.db as Kysely<unknown>);
      return { slept: true };
    });
    const app = await createApp({ logger: false, database, routes: [path('sleep/', sleep)] });
    const slow = await app.inject({ url: '/sleep/?s=2' });
    expect(slow.statusCode).toBe(503);
    expect(slow.headers['retry-after']).toBe('5');
    expect(slow.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    const quick = await app.inject({ url: '/sleep/?s=0.01' });
    expect(quick.statusCode).toBe(200);
    expect(quick.json()).toEqual({ slept: true });
    await app.close();
  });

  it('the client-side timeout (one sweep per pool) fails a query the server holds and drops its connection', async () => {
    // No statement timeout: only the client-side one can end the sleep.
    const database = await open({ statement_timeout: '0', query_timeout: '300' });
    const db = database.db as Kysely<unknown>;
    const sleep = apiView(['GET'], async (req) => {
      await sql`select pg_sleep(${Number(req.query['s'])})`.execute(db);
      return { slept: true };
    });
    const app = await createApp({ logger: false, database, routes: [path('sleep/', sleep)] });
    const started = Date.now();
    const slow = await app.inject({ url: '/sleep/?s=5' });
    const took = Date.now() - started;
    expect(slow.statusCode).toBe(503);
    expect(slow.headers['retry-after']).toBe('5');
    expect(slow.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    // Between the timeout and the timeout + one sweep interval (50 ms here), with room for a busy machine.
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(2_000);
    const quick = await app.inject({ url: '/sleep/?s=0.01' });
    expect(quick.statusCode).toBe(200);
    expect(quick.json()).toEqual({ slept: true });
    // In a transaction the held query fails, then the connection is gone for the next one and the commit (both outages: 503).
    let settled: PromiseSettledResult<unknown>[] = [];
    await expect(
      db.transaction().execute(async (trx) => {
        settled = await Promise.allSettled([sql`select pg_sleep(5)`.execute(trx), sql`select 1 as one`.execute(trx)]);
      }),
    ).rejects.toThrow('not queryable');
    expect(settled.map((s) => (s.status === 'rejected' ? String((s.reason as Error).message) : s.status))).toEqual([
      'Query read timeout',
      'Client has encountered a connection error and is not queryable',
    ]);
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    await app.close();
  });

  it('migrations run without the timeouts, and the connection gets them back afterwards', async () => {
    const database = await open({ statement_timeout: '100', query_timeout: '150' });
    const seen: string[] = [];
    const result = await migrate(database, {
      '0001_slow': {
        async up(db: Kysely<unknown>) {
          seen.push((await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db)).rows[0]!.statement_timeout);
          await sql`select pg_sleep(0.4)`.execute(db);
        },
      },
    });
    expect(result.applied.map((a) => a.name)).toContain('0001_slow');
    expect(seen).toEqual(['0']);
    expect(await showTimeout(database)).toBe('100ms');
    await expect(sql`select pg_sleep(0.4)`.execute(database.db as Kysely<unknown>)).rejects.toMatchObject({ code: '57014' });
  });
});
