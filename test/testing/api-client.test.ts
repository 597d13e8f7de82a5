import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import {
  APIView,
  AllowAny,
  IsAuthenticated,
  KyselyUserStore,
  SessionAuthentication,
  TokenAuthentication,
  authRoutes,
  createApp,
  path,
  sessionStore,
  type ApiRequest,
} from '../../src/index.js';
import { APIClient, APIRequestFactory, callView, forceAuthenticate, testApp, testDatabase, type TestApp } from '../../src/test/index.js';
import type { UserRecord } from '../../src/users/user-record.js';
import { ownTable, testDatabases } from '../helpers/databases.js';
import { PG_TEST_URL } from '../helpers/pg.js';

const PASSWORD = 'correct horse battery staple';

/** Answers with what it received: method, query, body fields, content type, user and auth. */
class Echo extends APIView {
  override permissionClasses = [AllowAny];
  private echo(req: ApiRequest): Record<string, unknown> {
    const data = req.data as Record<string, unknown>;
    const fields = Object.fromEntries(Object.entries(data).filter(([name]) => !(name in req.files)));
    return {
      method: req.method,
      query: req.query,
      queryString: req.queryString,
      data: fields,
      contentType: req.contentType.split(';')[0],
      user: req.user?.isAuthenticated ? req.user.username : null,
    };
  }
  get(req: ApiRequest) {
    return this.echo(req);
  }
  post(req: ApiRequest) {
    return this.echo(req);
  }
  put(req: ApiRequest) {
    return this.echo(req);
  }
  patch(req: ApiRequest) {
    return this.echo(req);
  }
  delete(req: ApiRequest) {
    return this.echo(req);
  }
}

/** Signed-in users only: who they are and how they were authenticated. */
class Private extends APIView {
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { username: req.user.username, scheme: req.successfulAuthenticator?.constructor.name, auth: describeAuth(req.auth) };
  }
  post(req: ApiRequest) {
    return { created: true, by: req.user.username };
  }
}

function describeAuth(auth: unknown): unknown {
  if (auth === null || auth === undefined) return null;
  if (typeof auth === 'object' && 'key' in auth) return `token:${String((auth as { key: string }).key).length}`;
  return auth;
}

/** Reports the files of a multipart upload. */
class Upload extends APIView {
  override permissionClasses = [AllowAny];
  post(req: ApiRequest) {
    return Object.fromEntries(
      Object.entries(req.files).map(([name, f]) => [name, { filename: f.filename, contentType: f.contentType, size: f.size, text: f.data.toString('utf8') }]),
    );
  }
}

const routes = [path('echo/', Echo), path('private/', Private), path('upload/', Upload), authRoutes()];
const settings = { DEFAULT_AUTHENTICATION_CLASSES: [SessionAuthentication, TokenAuthentication] };

describe.each(testDatabases())('trestle/test on $name', ({ name }) => {
  const url = name === 'postgres' ? PG_TEST_URL : 'sqlite::memory:';
  let t: TestApp;
  let alice: UserRecord;

  beforeAll(async () => {
    t = await testApp({ url, routes, settings });
    alice = await t.users.createUser({ username: 'alice', password: PASSWORD });
  });
  afterAll(async () => t?.close());

  describe('APIClient methods', () => {
    it('get puts data in the query string; the response has status, headers, parsed data and text', async () => {
      const client = t.client();
      const res = await client.get('/echo/?page=2', { tag: ['a', 'b'], n: 3 });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['allow']).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
      // A repeated name reads as its last value (Django's QueryDict); the query string has both.
      expect(res.data).toEqual({ method: 'GET', query: { page: '2', tag: 'b', n: '3' }, queryString: 'page=2&tag=a&tag=b&n=3', data: {}, contentType: '', user: null });
      expect(res.json()).toEqual(res.data);
      expect(JSON.parse(res.text)).toEqual(res.data);
    });

    it('head answers with the headers of get and no body', async () => {
      const res = await t.client().head('/echo/', { q: 'x' });
      expect(res.status).toBe(200);
      expect(res.headers['allow']).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
      expect(res.text).toBe('');
      expect(res.data).toBeUndefined();
    });

    it('post encodes data as multipart by default (DRF TEST_REQUEST_DEFAULT_FORMAT), as JSON with format: json', async () => {
      const client = t.client();
      const multipart = await client.post('/echo/', { title: 'Hello', count: 2, tags: ['x', 'y'] });
      expect(multipart.status).toBe(200);
      expect(multipart.data).toEqual({ method: 'POST', query: {}, queryString: '', data: { title: 'Hello', count: '2', tags: 'y' }, contentType: 'multipart/form-data', user: null });
      const json = await client.post('/echo/', { title: 'Hello', nested: { count: 2 } }, { format: 'json' });
      expect(json.status).toBe(200);
      expect(json.data).toEqual({ method: 'POST', query: {}, queryString: '', data: { title: 'Hello', nested: { count: 2 } }, contentType: 'application/json', user: null });
    });

    it('put, patch and delete send their bodies in the client\'s format; delete without data sends none', async () => {
      const client = new APIClient(t.app, { format: 'json' });
      const put = await client.put('/echo/', { a: [1, 2] });
      expect([put.status, put.data]).toEqual([200, { method: 'PUT', query: {}, queryString: '', data: { a: [1, 2] }, contentType: 'application/json', user: null }]);
      const patch = await client.patch('/echo/', { a: null }, { query: { v: '1' } });
      expect([patch.status, patch.data]).toEqual([200, { method: 'PATCH', query: { v: '1' }, queryString: 'v=1', data: { a: null }, contentType: 'application/json', user: null }]);
      const del = await client.delete('/echo/');
      expect([del.status, del.data]).toEqual([200, { method: 'DELETE', query: {}, queryString: '', data: {}, contentType: '', user: null }]);
      const raw = await client.post('/echo/', 'a=1&b=2', { contentType: 'application/x-www-form-urlencoded' });
      expect([raw.status, raw.data]).toEqual([200, { method: 'POST', query: {}, queryString: '', data: { a: '1', b: '2' }, contentType: 'application/x-www-form-urlencoded', user: null }]);
    });

    it('options answers the view\'s metadata', async () => {
      const res = await t.client().options('/echo/');
      expect(res.status).toBe(200);
      expect(res.headers['allow']).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
      expect(res.data).toEqual({
        name: 'Echo',
        description: '',
        renders: ['application/json', 'text/html'],
        parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      });
    });

    it('uploads files in a multipart body', async () => {
      const res = await t.client().post('/upload/', {
        note: 'two files',
        report: new File(['col\n1\n'], 'report.csv', { type: 'text/csv' }),
        blob: new Blob([Buffer.from('raw bytes')]),
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.data).toEqual({
        report: { filename: 'report.csv', contentType: 'text/csv', size: 6, text: 'col\n1\n' },
        blob: { filename: 'blob', contentType: 'application/octet-stream', size: 9, text: 'raw bytes' },
      });
    });

    it('refuses data multipart cannot carry, as Django does', async () => {
      await expect(t.client().post('/echo/', { a: null })).rejects.toThrow("Cannot encode null for key 'a' as multipart data.");
      await expect(t.client().post('/echo/', { a: { b: 1 } })).rejects.toThrow("send it with format: 'json'");
      await expect(t.client().post('/echo/', 'x', { format: 'json', contentType: 'text/plain' })).rejects.toThrow('You may not set both `format` and `contentType`.');
    });
  });

  describe('credentials', () => {
    it('are sent with every request, replaced by the next call, cleared by credentials()', async () => {
      const token = await t.app.trestle.services.get('tokens').getOrCreate(alice);
      const client = t.client();
      client.credentials({ Authorization: `Token ${token.token.key}` });
      for (let i = 0; i < 2; i++) {
        const res = await client.get('/private/');
        expect(res.status).toBe(200);
        expect(res.data).toEqual({ username: 'alice', scheme: 'TokenAuthentication', auth: 'token:40' });
      }
      client.credentials({ Authorization: 'Token nope' });
      const wrong = await client.get('/private/');
      expect(wrong.status).toBe(403);
      expect(wrong.headers['www-authenticate']).toBeUndefined();
      expect(wrong.data).toEqual({ detail: 'Invalid token.' });
      client.credentials();
      const none = await client.get('/private/');
      expect(none.status).toBe(403);
      expect(none.data).toEqual({ detail: 'Authentication credentials were not provided.' });
    });
  });

  describe('login and logout', () => {
    it('login creates a real session the session authentication reads; logout deletes it', async () => {
      const client = t.client();
      expect(await client.login({ username: 'alice', password: 'wrong' })).toBe(false);
      expect(client.cookies.size).toBe(0);
      expect(await client.login({ username: 'alice', password: PASSWORD })).toBe(true);
      const key = client.cookies.get('sessionid')!;
      expect(key).toMatch(/^[a-z0-9]{32}$/);
      expect(await sessionStore(t.app.trestle).load(key)).toEqual({ _auth_user_id: String(alice.pk) });

      const res = await client.get('/private/');
      expect(res.status).toBe(200);
      expect(res.headers['vary']).toContain('Cookie');
      expect(res.data).toEqual({ username: 'alice', scheme: 'SessionAuthentication', auth: null });
      // CSRF is not enforced for the test client by default, as in DRF.
      const posted = await client.post('/private/', { x: '1' });
      expect([posted.status, posted.data]).toEqual([200, { created: true, by: 'alice' }]);

      await client.logout();
      expect(client.cookies.size).toBe(0);
      expect(await sessionStore(t.app.trestle).load(key)).toBeNull();
      const after = await client.get('/private/');
      expect([after.status, after.data]).toEqual([403, { detail: 'Authentication credentials were not provided.' }]);
    });

    it('an inactive user cannot log in', async () => {
      const bob = await t.users.createUser({ username: 'bob', password: PASSWORD });
      await t.users.update(bob.pk as number, { isActive: false });
      expect(await t.client().login({ username: 'bob', password: PASSWORD })).toBe(false);
    });

    it('with enforceCsrfChecks, a session POST needs the CSRF cookie and token (403 as DRF otherwise)', async () => {
      const client = t.client({ enforceCsrfChecks: true, format: 'json' });
      expect(await client.login({ username: 'alice', password: PASSWORD })).toBe(true);
      const noCookie = await client.post('/private/', { x: 1 });
      expect(noCookie.status).toBe(403);
      expect(noCookie.headers['content-type']).toBe('application/json');
      expect(noCookie.data).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' });

      // The cookie a response sets is kept by the client and sent back.
      const page = await client.get<{ csrfToken: string }>('/api-auth/login/');
      expect(page.status).toBe(200);
      expect(client.cookies.get('csrftoken')).toMatch(/^[A-Za-z0-9]{32}$/);
      const noToken = await client.post('/private/', { x: 1 });
      expect([noToken.status, noToken.data]).toEqual([403, { detail: 'CSRF Failed: CSRF token missing.' }]);

      const ok = await client.post('/private/', { x: 1 }, { headers: { 'X-CSRFToken': page.data.csrfToken } });
      expect([ok.status, ok.data]).toEqual([200, { created: true, by: 'alice' }]);
      await client.logout();
    });
  });

  describe('forceAuthenticate', () => {
    it('authenticates every request as the user, with the token as request.auth, until turned off', async () => {
      const client = t.client();
      await client.forceAuthenticate(alice, 'a-token');
      for (let i = 0; i < 2; i++) {
        const res = await client.get('/private/');
        expect(res.status).toBe(200);
        expect(res.data).toEqual({ username: 'alice', scheme: 'ForcedAuthentication', auth: 'a-token' });
      }
      const echo = await client.post('/echo/', { a: '1' });
      expect([echo.status, (echo.data as { user: string }).user]).toEqual([200, 'alice']);
      await client.forceAuthenticate(null);
      const off = await client.get('/private/');
      expect([off.status, off.data]).toEqual([403, { detail: 'Authentication credentials were not provided.' }]);
    });
  });

  describe('the test client\'s switches are not reachable from HTTP', () => {
    it('a request over a socket, or injected without the client, cannot skip CSRF or force a user', async () => {
      const client = t.client();
      expect(await client.login({ username: 'alice', password: PASSWORD })).toBe(true);
      const cookie = `sessionid=${client.cookies.get('sessionid')}`;
      // The same session through the client: CSRF skipped.
      expect((await client.post('/private/', { x: '1' })).status).toBe(200);

      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      try {
        // Every place a client could name the switches: headers, query, cookies, body.
        const smuggled = {
          method: 'POST',
          headers: {
            cookie: `${cookie}; skipCsrfChecks=1; forceUser=alice`,
            'content-type': 'application/json',
            'x-skip-csrf-checks': 'true',
            'x-force-user': 'alice',
          },
          body: JSON.stringify({ skipCsrfChecks: true, forceUser: { username: 'alice' }, __proto__: { skipCsrfChecks: true } }),
        };
        const overSocket = await fetch(`${base}/private/?skipCsrfChecks=1&forceUser=alice`, smuggled);
        expect(overSocket.status).toBe(403);
        expect(overSocket.headers.get('content-type')).toBe('application/json');
        expect(await overSocket.json()).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' });

        const anonymous = await fetch(`${base}/private/?forceUser=alice`, { headers: { 'x-force-user': 'alice', cookie: 'forceUser=alice' } });
        expect(anonymous.status).toBe(403);
        expect(await anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      } finally {
        await t.app.server.close();
      }
      const injected = await t.app.inject({ method: 'POST', url: '/private/', headers: { cookie, 'content-type': 'application/json' }, payload: '{}' });
      expect(injected.statusCode).toBe(403);
      expect(injected.json()).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' });
      await client.logout();
    });
  });

  describe('APIRequestFactory and callView', () => {
    it('builds a request that a view answers in a one-route app, forceAuthenticate included', async () => {
      const factory = new APIRequestFactory({ format: 'json' });
      const request = await factory.post('/private/', { x: 1 });
      const denied = await callView(Private, request, { database: t.database, settings });
      expect([denied.status, denied.data]).toEqual([403, { detail: 'Authentication credentials were not provided.' }]);
      forceAuthenticate(request, alice);
      const res = await callView(Private, request, { database: t.database, settings });
      expect(res.status).toBe(200);
      expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
      expect(res.data).toEqual({ created: true, by: 'alice' });

      const get = await factory.get('/echo/7/', { q: 'x' });
      forceAuthenticate(get, alice);
      const echoed = await callView(Echo, get, { route: 'echo/<int:pk>/' });
      expect([echoed.status, echoed.data]).toEqual([200, { method: 'GET', query: { q: 'x' }, queryString: 'q=x', data: {}, contentType: '', user: 'alice' }]);
    });
  });

  describe('testDatabase', () => {
    it('gives each caller its own migrated database: rows of one are not seen by another', async () => {
      const one = await testDatabase({ url });
      const two = await testDatabase({
        url,
        migrations: {
          '0001_things': {
            async up(db) {
              await db.schema.createTable('things').addColumn('id', 'integer', (c) => c.primaryKey()).execute();
            },
          },
        },
      });
      try {
        await new KyselyUserStore(one.db).createUser({ username: 'carol', password: PASSWORD });
        const count = async (d: typeof one) => Number((await d.db.selectFrom('trestle_user').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        expect(await count(one)).toBe(1);
        expect(await count(two)).toBe(0);
        expect(await ownTable(two, 'things')).toBeDefined();
        expect(await ownTable(one, 'things')).toBeUndefined();
        if (name === 'postgres') {
          expect(one.schema).toMatch(/^trestle_test_[0-9a-f]{16}$/);
          const current = await sql<{ s: string }>`select current_schema() as s`.execute(one.db);
          expect(current.rows[0]!.s).toBe(one.schema);
        } else {
          expect(one.schema).toBeNull();
        }
      } finally {
        await one.close();
        await two.close();
      }
      if (name === 'postgres') {
        const client = new pg.Client({ connectionString: PG_TEST_URL });
        await client.connect();
        try {
          const { rows } = await client.query('select nspname from pg_namespace where nspname = any($1)', [[one.schema, two.schema]]);
          expect(rows).toEqual([]);
        } finally {
          await client.end();
        }
      }
    });
  });
});

describe('testDatabase without a server named', () => {
  it('is SQLite in memory unless DATABASE_URL names PostgreSQL, and refuses a SQLite file', async () => {
    const previous = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = 'sqlite:./data/not-this.sqlite3';
    try {
      const database = await testDatabase();
      expect([database.dialect, database.url, database.schema]).toEqual(['sqlite', 'sqlite::memory:', null]);
      await database.close();
    } finally {
      if (previous === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previous;
    }
    await expect(testDatabase({ url: 'sqlite:./data/x.sqlite3' })).rejects.toThrow('testDatabase() opens SQLite in memory');
  });

  it('testApp builds the app with the project\'s createApp hook, as trestle serve does, on a fresh database', async () => {
    let given: string[] = [];
    const t = await testApp({
      project: {
        settings,
        routes: [path('echo/', Echo)],
        createApp: async (options) => {
          given = Object.keys(options).sort();
          return createApp({ ...options, logger: false, routes: [...options.routes, path('hooked/', Private)] });
        },
      },
    });
    try {
      expect(given).toEqual(['database', 'routes', 'settings', 'users']);
      await t.users.createUser({ username: 'dave', password: PASSWORD });
      const client = t.client({ format: 'json' });
      expect(await client.login({ username: 'dave', password: PASSWORD })).toBe(true);
      const res = await client.get('/hooked/');
      expect([res.status, res.headers['content-type'], res.data]).toEqual([200, 'application/json', { username: 'dave', scheme: 'SessionAuthentication', auth: null }]);
      const echo = await client.post('/echo/', { a: 1 });
      expect([echo.status, (echo.data as { data: unknown }).data]).toEqual([200, { a: 1 }]);
    } finally {
      await t.close();
    }
  });

  it('applies a project\'s migrations as trestle migrate does, migrationsDir included when given the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-testdb-'));
    try {
      mkdirSync(join(dir, 'migrations'));
      const table = (name: string) =>
        `export default { async up(db) { await db.schema.createTable('${name}').addColumn('id', 'integer', (c) => c.primaryKey()).execute(); } };\n`;
      writeFileSync(join(dir, 'migrations', '0002_from_dir.mjs'), table('from_dir'));
      writeFileSync(
        join(dir, 'trestle.config.mjs'),
        `${table('declared').replace('export default', 'const declared =')}export default { migrationsDir: 'migrations', migrations: { '0001_declared': declared } };\n`,
      );
      const database = await testDatabase({ project: join(dir, 'trestle.config.mjs') });
      try {
        expect(await ownTable(database, 'declared')).toBeDefined();
        expect(await ownTable(database, 'from_dir')).toBeDefined();
        const applied = await database.db.selectFrom('trestle_app_migration' as never).select('name' as never).orderBy('name' as never).execute();
        expect(applied).toEqual([{ name: '0001_declared' }, { name: '0002_from_dir' }]);
      } finally {
        await database.close();
      }
      // The config object alone cannot say where its migrationsDir is.
      await expect(testDatabase({ project: { migrationsDir: 'migrations' } })).rejects.toThrow("pass the file's path");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
