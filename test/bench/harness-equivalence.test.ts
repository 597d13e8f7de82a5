import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/db/database.js';
import type { TrestleApp } from '../../src/app.js';
import { buildTrestleApp } from '../../bench/servers/trestle-app.js';
import { sqliteStore, type BaselineStore } from '../../bench/servers/baseline-store.js';
import { baselineRoutes, NOT_FOUND } from '../../bench/servers/baseline-handlers.js';
import { BENCH_DIR, ensureSqliteDataset, sqlitePath } from '../../bench/lib/dataset.js';
import { startServer } from '../../bench/lib/server-process.js';
import { AUTH_HEADERS, OBTAIN_TOKEN, WORKLOADS } from '../../bench/lib/workloads.js';

// The bench compares speed only if every app does the same work: same
// status, same JSON, same links, for every workload's request.
const HOST = '127.0.0.1:8123';

let database: Database;
let trestle: TrestleApp;
let store: BaselineStore;
let routes: ReturnType<typeof baselineRoutes>;

beforeAll(async () => {
  const file = await ensureSqliteDataset(() => {});
  expect(existsSync(file)).toBe(true);
  database = await openDatabase(`sqlite:${file}`);
  trestle = await buildTrestleApp(database);
  store = sqliteStore(file);
  routes = baselineRoutes(store);
}, 120_000);

afterAll(async () => {
  await trestle?.close();
  await database?.close();
  await store?.close();
});

async function baseline(method: string, url: string, headers: Record<string, string>, body?: string) {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const handler = routes.get(`${method} ${path}`);
  if (!handler) return { status: 404, body: JSON.parse(NOT_FOUND) as unknown, www: undefined };
  const out = await handler({ path, query: q === -1 ? '' : url.slice(q + 1), host: HOST, authorization: headers['authorization'], body });
  return { status: out.status, body: JSON.parse(out.body) as unknown, www: out.wwwAuthenticate };
}

async function viaTrestle(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string) {
  const res = await trestle.inject({ method, url, headers: { ...headers, host: HOST }, ...(body ? { payload: body } : {}) });
  return { status: res.statusCode, body: res.json() as unknown, www: res.headers['www-authenticate'] as string | undefined };
}

const cases = [
  ...WORKLOADS.filter((w) => w.database === 'sqlite').map((w) => ({ name: `${w.id} ${w.name}`, url: w.path, auth: w.id !== 'W5' })),
  { name: 'page 1', url: '/w1/items/', auth: true },
  { name: 'last page', url: '/w1/items/?page=500', auth: true },
  { name: 'page past the end', url: '/w1/items/?page=501', auth: true },
  { name: 'capped count, deep page', url: '/w1/large-capped/?page=3000', auth: true },
  { name: 'cursor page 1', url: '/w2/items/', auth: true },
  { name: 'limit/offset, first page', url: '/w3/items/?limit=20', auth: true },
  { name: 'limit/offset, second page', url: '/w3/items/?offset=20&limit=20', auth: true },
  { name: 'no credentials', url: '/w1/items/?page=2', auth: false },
];

describe('bench apps answer alike', () => {
  it.each(cases)('$name: Trestle and the hand-written baseline give the same status and JSON', async ({ url, auth }) => {
    const headers = auth ? { ...AUTH_HEADERS } : {};
    const a = await viaTrestle('GET', url, headers);
    const b = await baseline('GET', url, headers);
    expect(b).toEqual(a);
  });

  it('following next links gives the same pages (cursor, both directions)', async () => {
    let url: string | null = '/w2/items/';
    for (let i = 0; i < 3 && url; i++) {
      const a = await viaTrestle('GET', url, { ...AUTH_HEADERS });
      expect(await baseline('GET', url, { ...AUTH_HEADERS })).toEqual(a);
      const body = a.body as { next: string | null; previous: string | null };
      url = body.next ? body.next.slice(`http://${HOST}`.length) : null;
    }
    const back = (await viaTrestle('GET', url!, { ...AUTH_HEADERS })).body as { previous: string };
    const prev = back.previous.slice(`http://${HOST}`.length);
    expect(await baseline('GET', prev, { ...AUTH_HEADERS })).toEqual(await viaTrestle('GET', prev, { ...AUTH_HEADERS }));
  });

  it('obtain-token answers the same token', async () => {
    const a = await viaTrestle('POST', OBTAIN_TOKEN.path, { ...OBTAIN_TOKEN.headers }, OBTAIN_TOKEN.body);
    const b = await baseline('POST', OBTAIN_TOKEN.path, {}, OBTAIN_TOKEN.body);
    expect(a.status).toBe(200);
    expect(b).toEqual(a);
  });

  it.each([
    ['fastify', 'fastify-baseline.ts'],
    ['node:http', 'node-http-baseline.ts'],
  ])('the %s server sends the same status, JSON and WWW-Authenticate over HTTP', async (_label, script) => {
    const server = await startServer({
      label: script,
      args: () => ['--import', 'tsx', join(BENCH_DIR, 'servers', script)],
      env: { BENCH_DATABASE: sqlitePath() },
      core: null,
    });
    try {
      for (const [url, auth] of [['/w1/items/?page=2', true], ['/w2/items/', true], ['/w1/items/', false], ['/w5/ping/', false]] as const) {
        const host = `127.0.0.1:${server.port}`;
        const res = await fetch(`http://${host}${url}`, { headers: auth ? AUTH_HEADERS : {} });
        const t = await trestle.inject({ url, headers: { ...(auth ? AUTH_HEADERS : {}), host } });
        expect({ status: res.status, body: await res.json(), www: res.headers.get('www-authenticate') ?? undefined })
          .toEqual({ status: t.statusCode, body: t.json(), www: t.headers['www-authenticate'] });
        // Fastify adds `; charset=utf-8` to a string body; the media type is what must agree.
        expect(res.headers.get('content-type')?.split(';')[0]).toBe(t.headers['content-type']);
      }
    } finally {
      await server.stop();
    }
  }, 60_000);
});
