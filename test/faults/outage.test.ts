import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  postgresBinDir,
  redisServerBin,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from './private-servers.js';
import { eventually, runLoad, send, startFaultServer, unexpectedStatuses, type Answer, type FaultServer, type LoadRequest } from './harness.js';

// A private PostgreSQL and Redis (own ports, temp directories) are stopped
// and started again while the example service, in its own process, is under
// load. The shared servers on 5432/6379 are never touched.
const missing = [postgresBinDir() ? null : 'PostgreSQL binaries (/usr/lib/postgresql/*/bin)', redisServerBin() ? null : 'redis-server']
  .filter((m) => m !== null)
  .join(' and ');
if (missing && process.env['CI']) throw new Error(`The fault suite is required when CI is set, but ${missing} are missing.`);
if (missing) console.warn(`Skipping the outage fault suite: ${missing} not installed.`);

function expect503(answer: Answer): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['retry-after']).toBe('3');
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
}

describe.skipIf(missing !== '')('outages of PostgreSQL and Redis', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let server: FaultServer;
  let dataDir: string;
  const ackedBooks: string[] = [];
  const ackedPairs: string[] = [];

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    dataDir = mkdtempSync(join(tmpdir(), 'trestle-faults-'));
    server = await startFaultServer({ DATABASE_URL: postgres.url, REDIS_URL: redis.url, DATA_DIR: dataDir });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A mix of reads, slow queries, single-row writes and two-row transactions. */
  function databaseMix(tag: string) {
    return (i: number): LoadRequest => {
      const id = `${tag}-${i}`;
      switch (i % 4) {
        case 0:
          return { label: 'slow', method: 'GET', path: '/faults/slow/' };
        case 1:
          return {
            label: `book:${id}`,
            method: 'POST',
            path: '/api/books/',
            headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: id, author: `http://127.0.0.1:${server.port}/api/authors/1/`, year: 2024, isbn: `isbn-${id}`.slice(0, 20) }),
          };
        case 2:
          return { label: `pair:${id}`, method: 'POST', path: '/faults/pair/', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pair: id }) };
        default:
          return { label: 'books', method: 'GET', path: '/api/books/' };
      }
    };
  }

  function recordAcked(answers: { label: string; answer: Answer }[]): void {
    for (const { label, answer } of answers) {
      if (answer.status !== 201) continue;
      if (label.startsWith('book:')) ackedBooks.push(label.slice(5));
      if (label.startsWith('pair:')) ackedPairs.push(label.slice(5));
    }
  }

  test('PostgreSQL stopped and started under load: the process lives, 503 + Retry-After meanwhile, no 500, service resumes, no acknowledged write lost or half-done', async () => {
    const load = runLoad(server.port, databaseMix('pg'), { workers: 4, maxRequests: 1_500, maxMs: 40_000 });
    expect(await eventually(async () => load.count() >= 12, 15_000)).toBe(true);

    // Fast shutdown: the backends of in-flight queries get 57P01 (admin_shutdown).
    await postgres.stop();
    expect503(await send(server.port, 'GET', '/api/books/'));
    expect503(await send(server.port, 'POST', '/faults/pair/', { headers: { 'content-type': 'application/json' }, body: '{"pair": "down"}' }));
    await postgres.start();

    // Nobody restarts the app: the pool connects afresh by itself.
    expect(await eventually(async () => (await send(server.port, 'GET', '/api/books/')).status === 200, 20_000)).toBe(true);
    const resumedAt = load.count();
    expect(await eventually(async () => load.count() >= resumedAt + 12, 15_000)).toBe(true);
    const result = await load.stop();
    recordAcked(result.answers);

    expect(server.alive(), server.stderr()).toBe(true);
    expect(result.failures, server.stderr()).toEqual([]);
    expect(unexpectedStatuses(result)).toEqual([]);
    expect(result.answers.some(({ answer }) => answer.status === 503)).toBe(true);
    for (const { answer } of result.answers.filter(({ answer }) => answer.status === 503)) expect503(answer);
    expect(ackedBooks.length).toBeGreaterThan(0);
    expect(ackedPairs.length).toBeGreaterThan(0);

    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const books = await client.query<{ title: string }>(`select title from catalogue_book where title like 'pg-%'`);
      const stored = new Set(books.rows.map((r) => r.title));
      expect(ackedBooks.filter((t) => !stored.has(t))).toEqual([]);
      const pairs = await client.query<{ pair: string; n: number }>(`select pair, count(*)::int as n from fault_pair group by pair`);
      // A transaction is all or nothing: no pair with one row, every acknowledged pair with both.
      expect(pairs.rows.filter((r) => r.n !== 2)).toEqual([]);
      const storedPairs = new Set(pairs.rows.map((r) => r.pair));
      expect(ackedPairs.filter((p) => !storedPairs.has(p))).toEqual([]);
    } finally {
      await client.end();
    }
  }, 90_000);

  test('Redis stopped and started under load: sessions answer 503, throttles let requests through, no 500, service resumes by itself', async () => {
    const before = await server.session();
    expect(before).toMatch(/^[a-z0-9]{32}$/);
    const cookie = { cookie: `sessionid=${before}` };
    expect((await send(server.port, 'GET', '/auth/session/', { headers: cookie })).status).toBe(200);

    const mix = databaseMix('redis');
    const load = runLoad(
      server.port,
      (i) =>
        i % 3 === 0
          ? { label: 'session', method: 'GET', path: '/auth/session/', headers: cookie }
          : i % 3 === 1
            ? { label: 'throttled', method: 'GET', path: '/auth/throttled/' }
            : mix(i),
      { workers: 4, maxRequests: 1_500, maxMs: 40_000 },
    );
    expect(await eventually(async () => load.count() >= 12, 15_000)).toBe(true);

    await redis.stop();
    expect503(await send(server.port, 'GET', '/auth/session/', { headers: cookie }));
    // Rate throttles fail open: a Redis outage is not an outage of the API.
    const throttled = await send(server.port, 'GET', '/auth/throttled/');
    expect(throttled.status).toBe(200);
    expect(JSON.parse(throttled.body)).toEqual({ detail: 'not throttled yet' });
    expect(await server.session()).toBe(null);
    await redis.start();

    // The client reconnects by itself; the restarted Redis kept nothing (`--save ''`), so log in afresh.
    let after: string | null = null;
    expect(await eventually(async () => (after = await server.session()) !== null, 20_000)).toBe(true);
    const resumed = await send(server.port, 'GET', '/auth/session/', { headers: { cookie: `sessionid=${after}` } });
    expect(resumed.status).toBe(200);
    expect(JSON.parse(resumed.body)).toEqual({ username: 'fault', scheme: 'SessionAuthentication' });
    const resumedAt = load.count();
    expect(await eventually(async () => load.count() >= resumedAt + 12, 15_000)).toBe(true);
    const result = await load.stop();
    recordAcked(result.answers);

    expect(server.alive(), server.stderr()).toBe(true);
    expect(result.failures, server.stderr()).toEqual([]);
    expect(unexpectedStatuses(result)).toEqual([]);
    for (const { answer } of result.answers.filter(({ answer }) => answer.status === 503)) expect503(answer);
    expect(result.answers.filter(({ label }) => label === 'throttled').every(({ answer }) => answer.status === 200)).toBe(true);

    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const books = await client.query<{ title: string }>(`select title from catalogue_book where title like 'redis-%'`);
      const stored = new Set(books.rows.map((r) => r.title));
      expect(ackedBooks.filter((t) => t.startsWith('redis-') && !stored.has(t))).toEqual([]);
    } finally {
      await client.end();
    }
  }, 90_000);
});
