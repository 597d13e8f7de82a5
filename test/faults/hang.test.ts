import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from './private-servers.js';
import { eventually, runLoad, send, startFaultServer, unexpectedStatuses, type Answer, type FaultServer, type LoadRequest } from './harness.js';

// A private PostgreSQL cluster (own port and directory) is frozen with
// SIGSTOP while the example service, in its own process, is under load: the
// kernel still accepts connections on its port, but nothing answers. The
// shared server on 5432 is never touched.
const missing = postgresBinDir() ? '' : 'PostgreSQL binaries (/usr/lib/postgresql/*/bin)';
if (missing && process.env['CI']) throw new Error(`The hang fault suite is required when CI is set, but ${missing} are missing.`);
if (missing) console.warn(`Skipping the hang fault suite: ${missing} not installed.`);

function expect503(answer: Answer): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['retry-after']).toBe('3');
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
}

describe.skipIf(missing !== '')('a PostgreSQL server that hangs', () => {
  let postgres: PrivatePostgres;
  let server: FaultServer;
  let dataDir: string;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'trestle-hang-'));
    // The timeouts as the URL may give them (node-postgres reads them from it): 1 s on the server, 1.5 s in the client.
    server = await startFaultServer({ DATABASE_URL: `${postgres.url}?statement_timeout=1000&query_timeout=1500`, DATA_DIR: dataDir });
  }, 90_000);

  afterAll(async () => {
    await postgres?.resume();
    await server?.stop();
    await postgres?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a statement past the statement timeout is a 503 with Retry-After, and the next request is served', async () => {
    expect503(await send(server.port, 'GET', '/faults/sleep/?s=3'));
    const next = await send(server.port, 'GET', '/faults/sleep/?s=0.01');
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body)).toEqual({ slept: true });
  });

  test('SIGSTOP under load: only 2xx and 503, the process lives, service resumes within a second of SIGCONT', async () => {
    const mix = (i: number): LoadRequest =>
      i % 3 === 0
        ? { label: 'slow', method: 'GET', path: '/faults/slow/' }
        : i % 3 === 1
          ? { label: 'pair', method: 'POST', path: '/faults/pair/', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pair: `hang-${i}` }) }
          : { label: 'books', method: 'GET', path: '/api/books/' };
    const load = runLoad(server.port, mix, { workers: 6, maxRequests: 2_000, maxMs: 40_000 });
    expect(await eventually(async () => load.count() >= 12, 15_000)).toBe(true);

    await postgres.pause();
    try {
      // Requests are answered while nothing answers them: 503, never held without end.
      expect503(await send(server.port, 'GET', '/api/books/'));
      expect503(await send(server.port, 'POST', '/faults/pair/', { headers: { 'content-type': 'application/json' }, body: '{"pair": "frozen"}' }));
      const during = load.count();
      // The load keeps getting answers (503s) while the server is frozen.
      expect(await eventually(async () => load.count() >= during + 12, 20_000)).toBe(true);
    } finally {
      await postgres.resume();
    }
    const resumedAt = Date.now();
    let served: Answer | null = null;
    while (served === null && Date.now() - resumedAt < 1_000) {
      const answer = await send(server.port, 'GET', '/api/books/');
      if (answer.status === 200) served = answer;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(served?.status, 'no 200 within a second of SIGCONT').toBe(200);
    const after = load.count();
    expect(await eventually(async () => load.count() >= after + 12, 15_000)).toBe(true);
    const result = await load.stop();

    expect(server.alive(), server.stderr()).toBe(true);
    expect(result.failures, server.stderr()).toEqual([]);
    expect(unexpectedStatuses(result)).toEqual([]);
    expect(result.answers.filter(({ answer }) => answer.status >= 400 && answer.status !== 503)).toEqual([]);
    expect(result.answers.some(({ answer }) => answer.status === 503)).toBe(true);
    expect(result.answers.some(({ answer }) => answer.status < 300)).toBe(true);
    for (const { answer } of result.answers.filter(({ answer }) => answer.status === 503)) expect503(answer);
  }, 120_000);
});
