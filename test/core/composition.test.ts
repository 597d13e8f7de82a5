import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
// From the module itself, not the package entry: importing decides nothing.
import { createApp, PAGE_SIZE_WITHOUT_CLASS, type TrestleApp } from '../../src/app.js';
import { PageNumberPagination } from '../../src/pagination/page-number.js';
import { path } from '../../src/routing/routes.js';
import { APIView } from '../../src/views/api-view.js';
import { ListAPIView } from '../../src/views/generics.js';
import { CursorPagination } from '../../src/pagination/cursor.js';
import type { ApiRequest } from '../../src/request.js';
import { obtainAuthToken, TokenAuthentication, IsAuthenticated, KyselyUserStore, migrate, type Database } from '../../src/index.js';
import type { CatalogueTables } from '../../example/catalogue/models.js';
import { testDatabases } from '../helpers/databases.js';

let apps: TrestleApp[] = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});
async function app(options: Parameters<typeof createApp>[0]): Promise<TrestleApp> {
  const a = await createApp({ logger: false, ...options });
  apps.push(a);
  return a;
}

class Ok extends APIView {
  get() {
    return { ok: true };
  }
}

class Boom extends APIView {
  get(): never {
    throw new Error('kaboom');
  }
}

describe('an app is what createApp is given', () => {
  it('createApp imported from src/app.js serves the browsable API stylesheet', async () => {
    const a = await app({ routes: [path('ok/', Ok)] });
    const res = await a.inject({ url: '/static/trestle/trestle.css' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.body).toContain('{');
  });

  it('staticAssets: false leaves the static files to someone else', async () => {
    const a = await app({ routes: [path('ok/', Ok)], staticAssets: false });
    const res = await a.inject({ url: '/static/trestle/trestle.css' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not found.' });
  });

  it('no tokens service without a database', async () => {
    const a = await app({});
    expect(a.trestle.services.has('tokens')).toBe(false);
  });

  it('the database type declared once (AppTypes) types services.get("db") without a cast', async () => {
    // The example declares `interface AppTypes { database: CatalogueTables }`.
    const a = await app({});
    const typed = () => a.trestle.services.get('db');
    expectTypeOf(typed).returns.toEqualTypeOf<Kysely<CatalogueTables>>();
    class Typed extends APIView {
      async get(req: ApiRequest<{ pk: number }>) {
        expectTypeOf(() => req.app.services.get('db')).returns.toEqualTypeOf<Kysely<CatalogueTables>>();
        expectTypeOf(req.params.pk).toEqualTypeOf<number>();
        return { pk: req.params.pk };
      }
    }
    const b = await app({ routes: [path('t/<int:pk>/', Typed)] });
    const res = await b.inject({ url: '/t/7/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ pk: 7 });
  });
});

describe('configuration errors reject createApp', () => {
  it('a bad cursor ordering rejects createApp with one clear line (nothing uncaught)', async () => {
    class Bad extends CursorPagination {
      override ordering = [] as string[];
    }
    class List extends ListAPIView {
      override paginationClass = Bad;
      override getQueryset() {
        return [];
      }
    }
    const started = createApp({ logger: false, settings: { PAGE_SIZE: 5 }, routes: [path('l/', List)] });
    await expect(started).rejects.toThrow('Bad.ordering must name at least one column.');
  });

  it('an unknown setting rejects createApp naming the closest setting', async () => {
    await expect(createApp({ logger: false, settings: { SECRET_KYE: 'x' } as never })).rejects.toThrow(
      'Unknown setting "SECRET_KYE". Did you mean "SECRET_KEY"?',
    );
  });

  it('DEBUG false without SECRET_KEY refuses to start, saying what to set', async () => {
    const saved = process.env['SECRET_KEY'];
    delete process.env['SECRET_KEY'];
    try {
      await expect(createApp({ logger: false, settings: { DEBUG: false, ALLOWED_HOSTS: ['api.example.com'] } })).rejects.toThrow(
        'SECRET_KEY is not set and DEBUG is false (the default when NODE_ENV=production): set the SECRET_KEY environment variable to a long random string, the same for every process.',
      );
    } finally {
      if (saved !== undefined) process.env['SECRET_KEY'] = saved;
    }
  });

  it('DEBUG false with the development ALLOWED_HOSTS refuses to start', async () => {
    await expect(createApp({ logger: false, settings: { DEBUG: false, SECRET_KEY: 'k'.repeat(50) } })).rejects.toThrow(
      /^ALLOWED_HOSTS is the development default and DEBUG is false \(the default when NODE_ENV=production\): set ALLOWED_HOSTS/,
    );
  });

  it('DEBUG false with SECRET_KEY and ALLOWED_HOSTS starts and checks hosts', async () => {
    const a = await app({ settings: { DEBUG: false, SECRET_KEY: 'k'.repeat(50), ALLOWED_HOSTS: ['api.example.com'] }, routes: [path('ok/', Ok)] });
    expect((await a.inject({ url: '/ok/', headers: { host: 'api.example.com' } })).statusCode).toBe(200);
    expect((await a.inject({ url: '/ok/', headers: { host: 'localhost' } })).statusCode).toBe(400);
  });
});

describe('logging', () => {
  function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    return { lines, stream };
  }

  it('every response carries X-Request-Id; a well-formed incoming one is kept, a bad one replaced', async () => {
    const a = await app({ routes: [path('ok/', Ok)] });
    const fresh = await a.inject({ url: '/ok/' });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await a.inject({ url: '/ok/', headers: { 'x-request-id': 'lb-7f3a.42' } });
    expect(kept.headers['x-request-id']).toBe('lb-7f3a.42');
    const replaced = await a.inject({ url: '/missing/', headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.statusCode).toBe(404);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // Answers that do not reach a view carry it too: a static file, a malformed path, a body Fastify refuses, a CORS preflight.
    const asset = await a.inject({ url: '/static/trestle/trestle.css', headers: { 'x-request-id': 'asset-1' } });
    expect([asset.statusCode, asset.headers['content-type'], asset.headers['x-request-id']]).toEqual([200, 'text/css; charset=utf-8', 'asset-1']);
    const malformed = await a.inject({ url: '/ok/%E0%A4%A/', headers: { 'x-request-id': 'bad-path' } });
    expect([malformed.statusCode, malformed.headers['x-request-id'], malformed.json()]).toEqual([400, 'bad-path', { detail: 'Malformed request path.' }]);
    const small = await app({ settings: { DATA_UPLOAD_MAX_MEMORY_SIZE: 10 }, routes: [path('ok/', Ok)] });
    const large = await small.inject({ method: 'POST', url: '/ok/', payload: 'x'.repeat(100), headers: { 'content-type': 'text/plain', 'x-request-id': 'too-big' } });
    expect([large.statusCode, large.headers['x-request-id']]).toEqual([413, 'too-big']);
    const cors = await app({ settings: { CORS_ALLOWED_ORIGINS: ['https://app.example'] }, routes: [path('ok/', Ok)] });
    const preflight = await cors.inject({
      method: 'OPTIONS',
      url: '/ok/',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'x-request-id': 'preflight-1' },
    });
    expect([preflight.statusCode, preflight.headers['access-control-allow-origin'], preflight.headers['x-request-id']]).toEqual([200, 'https://app.example', 'preflight-1']);
  });

  it('PAGE_SIZE without DEFAULT_PAGINATION_CLASS is a start-up warning, as DRF\'s check W001', async () => {
    const alone = capture();
    const a = await app({ settings: { PAGE_SIZE: 20 }, routes: [path('ok/', Ok)], logger: { level: 'info', stream: alone.stream } });
    const warning = alone.lines.find((l) => l['level'] === 40);
    expect(warning?.['msg']).toBe(PAGE_SIZE_WITHOUT_CLASS);
    // The app still answers: the setting only has no effect.
    const res = await a.inject({ url: '/ok/' });
    expect(res.statusCode).toBe(200);
    const both = capture();
    await app({
      settings: { PAGE_SIZE: 20, DEFAULT_PAGINATION_CLASS: PageNumberPagination },
      routes: [path('ok/', Ok)],
      logger: { level: 'info', stream: both.stream },
    });
    expect(both.lines.filter((l) => l['level'] === 40)).toEqual([]);
  });

  it('a 500 is logged with its stack and the request id', async () => {
    const { lines, stream } = capture();
    const a = await app({ routes: [path('boom/', Boom)], logger: { level: 'info', stream } });
    const res = await a.inject({ url: '/boom/', headers: { 'x-request-id': 'req-500' } });
    expect(res.statusCode).toBe(500);
    expect(res.headers['x-request-id']).toBe('req-500');
    expect(res.json()).toEqual({ detail: 'A server error occurred.' });
    const error = lines.find((l) => l['level'] === 50)!;
    expect(error['reqId']).toBe('req-500');
    expect((error['err'] as { stack: string }).stack).toMatch(/^Error: kaboom\n\s+at /);
    // Fastify's request lines carry the same id.
    expect(lines.filter((l) => l['reqId'] === 'req-500').length).toBeGreaterThanOrEqual(3);
  });
});

describe.each(testDatabases())('two apps without SECRET_KEY on one $name database agree', ({ open }) => {
  let database: Database;
  let dataDir: string;
  const saved = process.env['SECRET_KEY'];
  beforeAll(async () => {
    delete process.env['SECRET_KEY'];
    database = await open();
    await migrate(database);
    await new KyselyUserStore(database.db).createUser({ username: 'alice', password: 'correct horse battery', });
    dataDir = mkdtempSync(join(tmpdir(), 'trestle-key-'));
  }, 60_000);
  afterAll(async () => {
    if (saved !== undefined) process.env['SECRET_KEY'] = saved;
    await database.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  class Me extends APIView {
    override authenticationClasses = [TokenAuthentication];
    override permissionClasses = [IsAuthenticated];
    get(req: ApiRequest) {
      return { username: req.user.username };
    }
  }
  class Numbers extends ListAPIView {
    override paginationClass = class extends CursorPagination {
      override pageSize = 2;
      override ordering = 'id';
    };
    override getQueryset() {
      return [1, 2, 3, 4, 5].map((id) => ({ id }));
    }
  }
  const routes = [path('api-token-auth/', obtainAuthToken), path('me/', Me), path('numbers/', Numbers)];

  it('a token made on one authenticates on the other, and a cursor from one pages on the other', async () => {
    const a = await app({ database, routes, dataDir });
    const b = await app({ database, routes, dataDir });
    const login = (x: TrestleApp) =>
      x.inject({ method: 'POST', url: '/api-token-auth/', payload: { username: 'alice', password: 'correct horse battery' } });
    const fromA = await login(a);
    expect(fromA.statusCode).toBe(200);
    const key = fromA.json().token as string;
    // A login on B hands back the same key rather than replacing A's.
    expect((await login(b)).json()).toEqual({ token: key });
    for (const x of [a, b]) {
      const me = await x.inject({ url: '/me/', headers: { authorization: `Token ${key}` } });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toEqual({ username: 'alice' });
    }
    const first = await a.inject({ url: '/numbers/' });
    const next = new URL(first.json().next as string);
    const second = await b.inject({ url: `${next.pathname}${next.search}` });
    expect(second.statusCode).toBe(200);
    expect(second.json().results).toEqual([{ id: 3 }, { id: 4 }]);
  });
});
