import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  DatabaseSessionStore,
  IsAuthenticated,
  MemorySessionStore,
  RedisSessionStore,
  SessionAuthentication,
  authRoutes,
  path,
  type ApiRequest,
  type SessionStore,
} from '../../src/index.js';
import { migrate } from '../../src/db/migrate.js';
import { testDatabases } from '../helpers/databases.js';
import { REDIS_TEST_URL, appWith, authFixture, redisAvailable, requireRedisInCi, setCookies } from './helpers.js';

requireRedisInCi();

function storeContract(name: string, make: () => Promise<{ store: SessionStore; rawKeys: () => Promise<string[]>; close: () => Promise<void> }>) {
  describe(`session store: ${name}`, () => {
    let ctx: Awaited<ReturnType<typeof make>>;
    beforeAll(async () => {
      ctx = await make();
    });
    afterAll(async () => ctx.close());

    it('saves, loads, replaces and deletes; keys are stored hashed', async () => {
      const key = 'a'.repeat(16) + randomBytes(8).toString('hex');
      const later = new Date(Date.now() + 60_000);
      expect(await ctx.store.load(key)).toBeNull();
      await ctx.store.save(key, { _auth_user_id: '1' }, later);
      expect(await ctx.store.load(key)).toEqual({ _auth_user_id: '1' });
      await ctx.store.save(key, { _auth_user_id: '2', x: [1] }, later);
      expect(await ctx.store.load(key)).toEqual({ _auth_user_id: '2', x: [1] });
      const stored = await ctx.rawKeys();
      expect(stored.some((k) => k.includes(key))).toBe(false);
      await ctx.store.delete(key);
      expect(await ctx.store.load(key)).toBeNull();
    });

    it('an expired session loads as none', async () => {
      const key = 'b'.repeat(16) + randomBytes(8).toString('hex');
      await ctx.store.save(key, { a: 1 }, new Date(Date.now() - 1000));
      expect(await ctx.store.load(key)).toBeNull();
    });
  });
}

storeContract('memory', async () => {
  const store = new MemorySessionStore();
  return { store, rawKeys: async () => [], close: async () => {} };
});

for (const database of testDatabases()) {
  storeContract(`database (${database.name})`, async () => {
    const db = await database.open();
    await migrate(db);
    const store = new DatabaseSessionStore(db.db);
    return {
      store,
      rawKeys: async () => (await db.db.selectFrom('trestle_session').select('session_key').execute()).map((r) => r.session_key),
      close: () => db.close(),
    };
  });

  describe(`login through the database store (${database.name})`, () => {
    it('the session row is written at login and removed at logout; expired rows are cleared', async () => {
      const db = await database.open();
      const fx = await authFixture(db);
      class WhoAmI extends APIView {
        override authenticationClasses = [SessionAuthentication];
        override permissionClasses = [IsAuthenticated];
        get(req: ApiRequest) {
          return { username: req.user.username };
        }
      }
      const app = await appWith(fx, { routes: [authRoutes(), path('whoami/', WhoAmI)] });
      try {
        const get = await app.inject({ url: '/api-auth/login/' });
        const csrf = setCookies(get.headers)['csrftoken']!;
        const login = await app.inject({
          method: 'POST',
          url: '/api-auth/login/',
          headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': get.json().csrfToken },
          payload: { username: 'alice', password: 's3cret' },
        });
        expect(login.statusCode).toBe(200);
        const c = setCookies(login.headers);
        const rows = await db.db.selectFrom('trestle_session').selectAll().execute();
        expect(rows).toHaveLength(1);
        expect(rows[0]!.session_key).toMatch(/^[0-9a-f]{64}$/);
        expect(rows[0]!.session_key).not.toBe(c['sessionid']);
        expect(JSON.parse(rows[0]!.session_data)).toEqual({ _auth_user_id: String(fx.alice.pk) });
        expect((await fx.users.getById(fx.alice.pk))!.lastLogin).not.toBeNull();

        const me = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${c['sessionid']}` } });
        expect([me.statusCode, me.json()]).toEqual([200, { username: 'alice' }]);

        const out = await app.inject({
          method: 'POST',
          url: '/api-auth/logout/',
          headers: { cookie: `sessionid=${c['sessionid']}; csrftoken=${c['csrftoken']}`, 'x-csrftoken': login.json().csrfToken },
        });
        expect(out.statusCode).toBe(200);
        expect(await db.db.selectFrom('trestle_session').selectAll().execute()).toHaveLength(0);

        await new DatabaseSessionStore(db.db).save('x'.repeat(32), {}, new Date(Date.now() - 1));
        expect(await new DatabaseSessionStore(db.db).clearExpired()).toBe(1);
      } finally {
        await app.close();
        await fx.close();
      }
    });
  });
}

describe.runIf(redisAvailable())('Redis sessions', () => {
  const prefix = `trestle-test-${randomBytes(4).toString('hex')}:session:`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_TEST_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  storeContract('redis', async () => ({
    store: new RedisSessionStore(redis, prefix),
    rawKeys: () => redis.keys(`${prefix}*`),
    close: async () => {},
  }));

  it('with REDIS_URL set, login sessions live in Redis with the cookie age as TTL', async () => {
    const fx = await authFixture();
    const app = await appWith(fx, { settings: { REDIS_URL: REDIS_TEST_URL }, routes: [authRoutes()] });
    try {
      const get = await app.inject({ url: '/api-auth/login/' });
      const csrf = setCookies(get.headers)['csrftoken']!;
      const login = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': get.json().csrfToken },
        payload: { username: 'alice', password: 's3cret' },
      });
      expect(login.statusCode).toBe(200);
      const { createHash } = await import('node:crypto');
      const key = `trestle:session:${createHash('sha256').update(setCookies(login.headers)['sessionid']!).digest('hex')}`;
      expect(JSON.parse((await redis.get(key))!)).toEqual({ _auth_user_id: String(fx.alice.pk) });
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(1_209_000);
      expect(ttl).toBeLessThanOrEqual(1_209_600);
      await redis.del(key);
    } finally {
      await app.close();
      await fx.close();
    }
  });
});
