import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AnonRateThrottle,
  BasicAuthentication,
  ImproperlyConfigured,
  MemoryThrottleStore,
  RedisThrottleStore,
  ScopedRateThrottle,
  UserRateThrottle,
  createApp,
  parseRate,
  path,
  type ThrottleClass,
  type ThrottleStore,
  type TrestleApp,
} from '../../src/index.js';
import { REDIS_TEST_URL, appWith, authFixture, basic, redisAvailable, requireRedisInCi, type AuthFixture } from './helpers.js';

requireRedisInCi();

/** A clock the tests move by hand. */
const clock = { now: 1_700_000_000 };

describe('parseRate', () => {
  it.each([
    ['5/min', [5, 60]],
    ['100/day', [100, 86400]],
    ['1/s', [1, 1]],
    ['10/hour', [10, 3600]],
    ['3/m', [3, 60]],
  ])('%s', (rate, expected) => {
    expect(parseRate(rate)).toEqual(expected);
  });
  it('null is no limit', () => expect(parseRate(null)).toEqual([null, null]));
  it.each(['5', 'x/m', '5/week', '5/'])('%s is a configuration error', (rate) => {
    expect(() => parseRate(rate)).toThrow(ImproperlyConfigured);
  });
});

function suite(name: string, makeStore: () => ThrottleStore, cleanup: () => Promise<void> = async () => {}) {
  describe(`throttles with ${name}`, () => {
    let fx: AuthFixture;
    let app: TrestleApp;
    let trusted: TrestleApp;
    const run = randomBytes(4).toString('hex');

    function clocked<T extends new (...args: never[]) => object>(Base: T, scope: string): T {
      // @ts-expect-error mixin over an abstract-compatible throttle class
      return class extends Base {
        scope = `${scope}_${run}`;
        timer = () => clock.now;
        store = shared;
      };
    }
    let shared: ThrottleStore;

    beforeAll(async () => {
      shared = makeStore();
      fx = await authFixture();
      const Anon = clocked(AnonRateThrottle, 'anon');
      const User = clocked(UserRateThrottle, 'user');
      const Scoped = class extends ScopedRateThrottle {
        override timer = () => clock.now;
        override store = shared;
      };
      const rates = { anon: null, user: null, [`anon_${run}`]: '3/min', [`user_${run}`]: '2/min', [`up_${run}`]: '2/day' };
      const mk = (throttles: ThrottleClass[], scope?: string) =>
        class extends APIView {
          override authenticationClasses = [BasicAuthentication];
          override throttleClasses = throttles;
          override throttleScope = scope;
          get() {
            return { ok: true };
          }
        };
      const routes = [
        path('anon/', mk([Anon as ThrottleClass])),
        path('user/', mk([User as ThrottleClass])),
        path('upload-a/', mk([Scoped], `up_${run}`)),
        path('upload-b/', mk([Scoped], `up_${run}`)),
        path('unscoped/', mk([Scoped])),
      ];
      app = await appWith(fx, { settings: { DEFAULT_THROTTLE_RATES: rates }, routes });
      trusted = await appWith(fx, { settings: { DEFAULT_THROTTLE_RATES: rates, TRUSTED_PROXIES: ['10.0.0.1'] }, routes });
    });
    afterAll(async () => {
      await app.close();
      await trusted.close();
      await fx.close();
      await cleanup();
    });

    it('AnonRateThrottle: the 4th request in a minute is 429 with Retry-After and DRF\'s message', async () => {
      clock.now = 1_700_000_000;
      const ip = '198.51.100.1';
      for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/anon/', remoteAddress: ip })).statusCode).toBe(200);
      const denied = await app.inject({ url: '/anon/', remoteAddress: ip });
      expect(denied.statusCode).toBe(429);
      expect(denied.headers['retry-after']).toBe('60');
      expect(denied.json()).toEqual({ detail: 'Request was throttled. Expected available in 60 seconds.' });

      clock.now += 59.5;
      const later = await app.inject({ url: '/anon/', remoteAddress: ip });
      expect([later.statusCode, later.headers['retry-after'], later.json()]).toEqual([
        429,
        '1',
        { detail: 'Request was throttled. Expected available in 1 second.' },
      ]);
      clock.now += 0.5; // the oldest request is now exactly `duration` old: dropped
      expect((await app.inject({ url: '/anon/', remoteAddress: ip })).statusCode).toBe(200);
      // Another address has its own budget.
      expect((await app.inject({ url: '/anon/', remoteAddress: '198.51.100.2' })).statusCode).toBe(200);
    });

    it('AnonRateThrottle does not count authenticated requests', async () => {
      clock.now = 1_700_001_000;
      for (let i = 0; i < 5; i++) {
        const res = await app.inject({ url: '/anon/', remoteAddress: '198.51.100.3', headers: { authorization: basic('alice', 's3cret') } });
        expect(res.statusCode).toBe(200);
      }
    });

    it('UserRateThrottle counts per user, and per address for anonymous requests', async () => {
      clock.now = 1_700_002_000;
      const alice = { authorization: basic('alice', 's3cret') };
      const admin = { authorization: basic('admin', 'adminpw') };
      expect((await app.inject({ url: '/user/', headers: alice, remoteAddress: '198.51.100.4' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/user/', headers: alice, remoteAddress: '198.51.100.5' })).statusCode).toBe(200);
      const third = await app.inject({ url: '/user/', headers: alice, remoteAddress: '198.51.100.6' });
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBe('60');
      expect((await app.inject({ url: '/user/', headers: admin })).statusCode).toBe(200);
    });

    it('X-Forwarded-For names the client only through a trusted proxy', async () => {
      clock.now = 1_700_003_000;
      // Untrusted peer: spoofed X-Forwarded-For values are all one client (the peer).
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ url: '/anon/', remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
        expect(res.statusCode).toBe(200);
      }
      const spoofed = await app.inject({ url: '/anon/', remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': '203.0.113.99' } });
      expect(spoofed.statusCode).toBe(429);
      // Trusted proxy: each forwarded client has its own budget.
      for (let i = 0; i < 4; i++) {
        const res = await trusted.inject({ url: '/anon/', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': `203.0.114.${i}` } });
        expect(res.statusCode).toBe(200);
      }
    });

    it('ScopedRateThrottle: views with one scope share a budget; no scope is not throttled', async () => {
      clock.now = 1_700_004_000;
      expect((await app.inject({ url: '/upload-a/' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/upload-b/' })).statusCode).toBe(200);
      const denied = await app.inject({ url: '/upload-a/' });
      expect(denied.statusCode).toBe(429);
      expect(denied.headers['retry-after']).toBe('86400');
      for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/unscoped/' })).statusCode).toBe(200);
    });

    it('wait follows DRF 3.15: null when more requests than the limit are already recorded', async () => {
      const store = shared;
      const key = `throttle_manual_${run}`;
      for (let i = 0; i < 5; i++) await store.hit(key, 100 + i, 60, 10);
      const hit = await store.hit(key, 110, 60, 3);
      expect(hit).toEqual({ allowed: false, count: 5, oldest: 100 });
      const t = new (class extends AnonRateThrottle {})({ settings: { DEFAULT_THROTTLE_RATES: { anon: '3/min' } } } as never);
      expect(t.wait(110, 60, 3, hit.count, hit.oldest)).toBeNull();
      expect(t.wait(110, 60, 5, 5, 100)).toBe(50);
      expect(t.wait(110, 60, 0, 0, null)).toBe(60);
    });
  });
}

suite('the in-memory store', () => new MemoryThrottleStore());

describe.runIf(redisAvailable())('Redis', () => {
  let redis: Redis;
  const prefix = `trestle-test-${randomBytes(4).toString('hex')}:`;
  beforeAll(() => {
    redis = new Redis(REDIS_TEST_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  suite('the Redis store', () => new RedisThrottleStore(redis, prefix));

  it('two processes sharing one Redis share one count', async () => {
    const scope = `shared_${randomBytes(4).toString('hex')}`;
    const worker = fileURLToPath(new URL('./fixtures/throttle-worker.ts', import.meta.url));
    const runWorker = () =>
      new Promise<number[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', worker], {
          env: { ...process.env, REDIS_URL: REDIS_TEST_URL, THROTTLE_SCOPE: scope, COUNT: '4' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`worker failed: ${err}`))));
      });
    const [a, b] = await Promise.all([runWorker(), runWorker()]);
    const all = [...a, ...b];
    expect(all.filter((s) => s === 200)).toHaveLength(5);
    expect(all.filter((s) => s === 429)).toHaveLength(3);
    expect(await redis.zcard(`trestle:throttle_${scope}_127.0.0.1`)).toBe(5);
    await redis.del(`trestle:throttle_${scope}_127.0.0.1`);
  }, 60_000);
});

describe('configuration errors surface when the view binds', () => {
  it('a scope without a rate', async () => {
    class V extends APIView {
      override throttleClasses = [AnonRateThrottle];
      get() {
        return {};
      }
    }
    await expect(createApp({ logger: false, settings: { DEFAULT_THROTTLE_RATES: {} }, routes: [path('v/', V)] })).rejects.toThrow(
      new ImproperlyConfigured("No default throttle rate set for 'anon' scope"),
    );
  });

  it('a view scope without a rate (ScopedRateThrottle)', async () => {
    class V extends APIView {
      override throttleClasses = [ScopedRateThrottle];
      override throttleScope = 'uploads';
      get() {
        return {};
      }
    }
    await expect(createApp({ logger: false, routes: [path('v/', V)] })).rejects.toThrow("No default throttle rate set for 'uploads' scope");
  });

  it('a null rate (DRF\'s default for anon and user) never throttles', async () => {
    class V extends APIView {
      override authenticationClasses = [];
      override throttleClasses = [AnonRateThrottle, UserRateThrottle];
      get() {
        return { ok: true };
      }
    }
    const app = await createApp({ logger: false, routes: [path('v/', V)] });
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/v/' })).statusCode).toBe(200);
    await app.close();
  });
});
