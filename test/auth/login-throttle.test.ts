import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  ApiRequest,
  BasicAuthentication,
  IsAuthenticated,
  RedisThrottleStore,
  adminRoutes,
  authRoutes,
  hashPassword,
  loginThrottle,
  obtainAuthToken,
  path,
  setPasswordHashConcurrency,
  setPasswordHashQueueLimit,
  type ThrottleStore,
  type TrestleApp,
} from '../../src/index.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { REDIS_TEST_URL, appWith, authFixture, basic, redisAvailable, requireRedisInCi, type AuthFixture } from './helpers.js';

requireRedisInCi();

class Me extends APIView {
  override authenticationClasses = [BasicAuthentication];
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { username: req.user.username };
  }
}

const routes = [path('api-token-auth/', obtainAuthToken), path('me/', Me), authRoutes(), adminRoutes()];
const RATES = { client: '3/h', username: '6/h', address: '5/h' };
const DEVICE = 'login_device';

let fx: AuthFixture;
beforeAll(async () => {
  fx = await authFixture();
});
afterAll(() => fx.close());

type Injected = { statusCode: number; headers: Record<string, unknown>; json(): unknown };

const token = (app: TrestleApp, username: string, password: string, remoteAddress = '10.0.0.1', cookie?: string) =>
  app.inject({ method: 'POST', url: '/api-token-auth/', payload: { username, password }, remoteAddress, headers: cookie ? { cookie } : {} });

/** The `name=value` of the device cookie a response sets. */
function deviceCookie(res: { headers: Record<string, unknown> }): string {
  const lines = [res.headers['set-cookie'] ?? []].flat().map(String);
  const line = lines.find((l) => l.startsWith(`${DEVICE}=`));
  expect(line).toBeDefined();
  expect(line).toMatch(/; Max-Age=31536000; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
  return line!.split(';')[0]!;
}

function expectWall(res: Injected) {
  expect(res.statusCode).toBe(429);
  const retry = Number(res.headers['retry-after']);
  expect(retry).toBeGreaterThan(3500);
  expect(retry).toBeLessThanOrEqual(3600);
  expect(res.json()).toEqual({ detail: `Too many failed login attempts. Expected available in ${retry} second${retry === 1 ? '' : 's'}.` });
}

function expectBackoff(res: Injected, seconds: number) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['retry-after']).toBe(String(seconds));
  expect(res.json()).toEqual({ detail: `Too many failed login attempts. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.` });
}

describe('failed logins: the defaults', () => {
  it('10 failures an hour per username and client, 20 per username from unknown clients, 100 per address', async () => {
    const app = await appWith(fx, { routes });
    expect(app.trestle.settings.LOGIN_FAILURE_RATES).toEqual({ client: '10/h', username: '20/h', address: '100/h' });
    expect(app.trestle.settings.LOGIN_FAILURE_BACKOFF).toEqual({ initial: 1, max: 60 });
    for (let i = 0; i < 10; i++) expect((await token(app, 'alice', `wrong-${i}`, '10.9.0.1')).statusCode).toBe(400);
    // The guesser's own address is walled off for that name, even with the right password ...
    expectWall(await token(app, 'alice', 's3cret', '10.9.0.1'));
    // ... the owner anywhere else is not.
    const owner = await token(app, 'alice', 's3cret', '10.9.0.2');
    expect(owner.statusCode).toBe(200);
    expect(owner.json()).toHaveProperty('token');
    await app.close();
  });
});

describe('failed logins with small rates', () => {
  it('per username and client: 3 failures wall off that client only; other names from it are not', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    for (let i = 0; i < 3; i++) {
      const res = await token(app, 'alice', 'nope', '10.0.1.1');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] });
    }
    expectWall(await token(app, 'alice', 's3cret', '10.0.1.1'));
    expectWall(await token(app, 'ALICE', 's3cret', '10.0.1.1'));
    expect((await token(app, 'admin', 'adminpw', '10.0.1.1')).statusCode).toBe(200);
    expect((await token(app, 'alice', 's3cret', '10.0.1.2')).statusCode).toBe(200);
    await app.close();
  });

  it('per address: 5 failures over many names block that address for unknown clients, never for known ones', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    // admin logs in from this address before (known address); alice from elsewhere (device cookie).
    expect((await token(app, 'admin', 'adminpw', '10.0.3.1')).statusCode).toBe(200);
    const alice = deviceCookie(await token(app, 'alice', 's3cret', '10.0.3.9'));
    for (let i = 0; i < 5; i++) expect((await token(app, `ghost${i}`, 'x', '10.0.3.1')).statusCode).toBe(400);
    expectWall(await token(app, 'alice', 's3cret', '10.0.3.1'));
    expectWall(await token(app, 'ghost9', 'x', '10.0.3.1'));
    expect((await token(app, 'admin', 'adminpw', '10.0.3.1')).statusCode).toBe(200);
    expect((await token(app, 'alice', 's3cret', '10.0.3.1', alice)).statusCode).toBe(200);
    expect((await token(app, 'alice', 's3cret', '10.0.3.2')).statusCode).toBe(200);
    await app.close();
  });

  it('per username from unknown clients: a guess over many addresses backs off 1, 2, 4 s; known clients pass', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    let now = 1_000_000;
    loginThrottle(app.trestle).timer = () => now;
    const device = deviceCookie(await token(app, 'alice', 's3cret', '10.0.4.200'));
    expect((await token(app, 'alice', 's3cret', '10.0.4.201')).statusCode).toBe(200); // a known address from now on
    for (let i = 0; i < 6; i++) expect((await token(app, 'alice', 'guess', `10.0.4.${i}`)).statusCode).toBe(400);
    // Six failures reached: one attempt a second, then every 2 s, 4 s ...
    expect((await token(app, 'alice', 'guess', '10.0.4.10')).statusCode).toBe(400);
    expectBackoff(await token(app, 'alice', 'guess', '10.0.4.11'), 2);
    expectBackoff(await token(app, 'alice', 's3cret', '10.0.4.12'), 2);
    now += 2;
    expect((await token(app, 'alice', 'guess', '10.0.4.13')).statusCode).toBe(400);
    expectBackoff(await token(app, 'alice', 'guess', '10.0.4.14'), 4);
    // The owner's device and the owner's known address are not slowed down; a new client waits, briefly.
    expect((await token(app, 'alice', 's3cret', '10.0.4.99', device)).statusCode).toBe(200);
    expect((await token(app, 'alice', 's3cret', '10.0.4.201')).statusCode).toBe(200);
    now += 4;
    expect((await token(app, 'alice', 's3cret', '10.0.4.15')).statusCode).toBe(200);
    await app.close();
  });

  it('a longer delay counts from the last attempt even when the shorter one has passed', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    let now = 1_500_000;
    loginThrottle(app.trestle).timer = () => now;
    for (let i = 0; i < 6; i++) expect((await token(app, 'alice', 'guess', `10.0.11.${i}`)).statusCode).toBe(400);
    expect((await token(app, 'alice', 'guess', '10.0.11.10')).statusCode).toBe(400); // the 1 s slot
    now += 1.5; // past 1 s, not yet past the 2 s the next attempt must wait
    expectBackoff(await token(app, 'alice', 'guess', '10.0.11.11'), 1);
    now += 0.5;
    expect((await token(app, 'alice', 'guess', '10.0.11.12')).statusCode).toBe(400);
    await app.close();
  });

  it('the backoff stops at LOGIN_FAILURE_BACKOFF.max', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES, LOGIN_FAILURE_BACKOFF: { initial: 1, max: 5 } }, routes });
    let now = 2_000_000;
    loginThrottle(app.trestle).timer = () => now;
    for (let i = 0; i < 12; i++) {
      now += 60;
      const res = await token(app, 'alice', 'guess', `10.0.5.${i}`);
      expect(res.statusCode).toBe(400);
    }
    expectBackoff(await token(app, 'alice', 'guess', '10.0.5.100'), 5);
    await app.close();
  });

  it('a device cookie of another name, or a forged one, makes no client known', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const adminDevice = deviceCookie(await token(app, 'admin', 'adminpw', '10.0.6.1'));
    const forged = `${DEVICE}=${adminDevice.split('=')[1]!.split('.')[0]}.${'A'.repeat(43)}`;
    for (const [cookie, from] of [[adminDevice, '10.0.6.21'], [forged, '10.0.6.22']] as const) {
      for (let i = 0; i < 3; i++) expect((await token(app, 'alice', 'bad', from, cookie)).statusCode).toBe(400);
      expectWall(await token(app, 'alice', 's3cret', from, cookie));
    }
    // A device cookie counts its own failures: a stolen one is limited too.
    const aliceDevice = deviceCookie(await token(app, 'alice', 's3cret', '10.0.6.3'));
    for (let i = 0; i < 3; i++) expect((await token(app, 'alice', 'bad', '10.0.6.4', aliceDevice)).statusCode).toBe(400);
    expectWall(await token(app, 'alice', 's3cret', '10.0.6.5', aliceDevice));
    expect((await token(app, 'alice', 's3cret', '10.0.6.3')).statusCode).toBe(200);
    await app.close();
  });

  it('Basic authentication counts failures, honours a device cookie, answers 429 with Retry-After and sets no cookie', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const device = deviceCookie(await token(app, 'alice', 's3cret', '10.0.7.9'));
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/me/', remoteAddress: '10.0.7.1', headers: { authorization: basic('alice', 'bad') } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
    }
    const walled = await app.inject({ url: '/me/', remoteAddress: '10.0.7.1', headers: { authorization: basic('alice', 's3cret') } });
    expectWall(walled);
    expect(walled.headers['www-authenticate']).toBeUndefined();
    const known = await app.inject({ url: '/me/', remoteAddress: '10.0.7.1', headers: { authorization: basic('alice', 's3cret'), cookie: device } });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ username: 'alice' });
    const other = await app.inject({ url: '/me/', remoteAddress: '10.0.7.2', headers: { authorization: basic('admin', 'adminpw') } });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({ username: 'admin' });
    expect(other.headers['set-cookie']).toBeUndefined();
    await app.close();
  });

  it('the session login (JSON and form) counts failures, answers 429 and sets the device cookie on success', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const jar = new CookieJar();
    const page = await app.inject({ url: '/api-auth/login/', headers: { accept: 'application/json' } });
    jar.store(page.headers['set-cookie']);
    const csrf = page.json().csrfToken as string;
    const attempt = (password: string, remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        remoteAddress,
        headers: { accept: 'application/json', cookie: jar.header(), 'x-csrftoken': csrf },
        payload: { username: 'alice', password },
      });
    for (let i = 0; i < 3; i++) expect((await attempt('bad', '10.0.8.1')).statusCode).toBe(400);
    const res = await attempt('s3cret', '10.0.8.1');
    expectWall(res);
    expect(res.headers['set-cookie'] ?? '').not.toContain('sessionid=');
    const ok = await attempt('s3cret', '10.0.8.2');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ username: 'alice' });
    expect(String(ok.headers['set-cookie'])).toContain('sessionid=');
    deviceCookie(ok);
    await app.close();
  });

  it('the admin login counts failures, answers 429 as an HTML page, and a known browser still logs in', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const login = async (jar: CookieJar, password: string, remoteAddress: string) => {
      const page = await app.inject({ url: '/admin/login/', remoteAddress, headers: { accept: 'text/html', cookie: jar.header() } });
      jar.store(page.headers['set-cookie']);
      const res = await app.inject({
        method: 'POST',
        url: '/admin/login/',
        remoteAddress,
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
        payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'admin', password }).toString(),
      });
      jar.store(res.headers['set-cookie']);
      return res;
    };
    const owner = new CookieJar();
    const first = await login(owner, 'adminpw', '10.0.9.1');
    expect(first.statusCode).toBe(302);
    expect(owner.get(DEVICE)).toMatch(/^[\w-]{16}\.[\w-]{43}$/);
    owner.cookies.delete('sessionid');
    const stranger = new CookieJar();
    for (let i = 0; i < 3; i++) expect((await login(stranger, 'bad', '10.0.9.1')).statusCode).toBe(200);
    const res = await login(stranger, 'adminpw', '10.0.9.1');
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Too many failed login attempts.');
    expect(res.headers['set-cookie'] ?? '').not.toContain('sessionid=');
    const again = await login(owner, 'adminpw', '10.0.9.1');
    expect(again.statusCode).toBe(302);
    expect(again.headers['location']).toBe('/admin/');
    await app.close();
  });

  it('null rates switch the counts off; a device cookie name of null sets none', async () => {
    const app = await appWith(fx, {
      settings: { LOGIN_FAILURE_RATES: { client: null, username: null, address: null }, LOGIN_DEVICE_COOKIE_NAME: null },
      routes,
    });
    for (let i = 0; i < 12; i++) expect((await token(app, 'alice', 'bad')).statusCode).toBe(400);
    const ok = await token(app, 'alice', 's3cret');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['set-cookie']).toBeUndefined();
    await app.close();
  });

  it('a configuration from before the client count keeps the default client rate', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: { username: null, address: null } }, routes });
    for (let i = 0; i < 10; i++) expect((await token(app, 'alice', 'bad', '10.0.10.1')).statusCode).toBe(400);
    expectWall(await token(app, 'alice', 's3cret', '10.0.10.1'));
    await app.close();
  });

  it('bad settings are refused when the app is created', async () => {
    await expect(appWith(fx, { settings: { LOGIN_FAILURE_RATES: { username: 'ten/h', address: null } }, routes })).rejects.toThrow(
      'Invalid throttle rate "ten/h" in LOGIN_FAILURE_RATES: use "<requests>/<s|m|h|d>".',
    );
    await expect(appWith(fx, { settings: { LOGIN_FAILURE_RATES: { user: '1/h' } as never }, routes })).rejects.toThrow(
      'LOGIN_FAILURE_RATES must be { client?: rate | null, username?: rate | null, address?: rate | null }.',
    );
    await expect(appWith(fx, { settings: { LOGIN_FAILURE_BACKOFF: { initial: 5, max: 1 } }, routes })).rejects.toThrow(
      'LOGIN_FAILURE_BACKOFF must be { initial: seconds > 0, max: seconds >= initial }.',
    );
    await expect(appWith(fx, { settings: { LOGIN_KNOWN_ADDRESS_AGE: -1 }, routes })).rejects.toThrow(
      'LOGIN_KNOWN_ADDRESS_AGE must be a whole number of seconds, 0 or more.',
    );
  });
});

/** POST over a real socket whose source address is `from` (any 127.0.0.0/8 address on Linux). */
function postFrom(port: number, from: string, url: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, localAddress: from, method: 'POST', path: url, agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ statusCode: res.statusCode!, headers: res.headers, body: text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const stores: { name: string; make: () => ThrottleStore | null }[] = [{ name: 'the memory store', make: () => null }];
let redis: Redis | null = null;
const redisPrefix = `trestle-test-login-${process.pid}-${Date.now()}:`;
if (redisAvailable()) stores.push({ name: 'Redis', make: () => new RedisThrottleStore((redis ??= new Redis(REDIS_TEST_URL)), `${redisPrefix}${Math.random()}:`) });
afterAll(async () => {
  if (!redis) return;
  const keys = await redis.keys(`${redisPrefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe.each(stores)('nobody can lock an owner out, over real sockets ($name)', ({ make }) => {
  async function serve() {
    const store = make();
    const app = await appWith(fx, { routes, services: store ? { throttleStore: store } : {} });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const obtain = (from: string, password: string, cookie?: string) =>
      postFrom(port, from, '/api-token-auth/', new URLSearchParams({ username: 'alice', password }).toString(), cookie ? { cookie } : {});
    const me = (from: string, password: string, cookie?: string) =>
      new Promise<{ statusCode: number }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, localAddress: from, path: '/me/', agent: false, headers: { authorization: basic('alice', password), ...(cookie ? { cookie } : {}) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ statusCode: res.statusCode! }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    return { app, obtain, me };
  }

  it('50 wrong passwords from 127.0.0.2: the attacker is throttled, the owner on 127.0.0.1 logs in at once', async () => {
    const { app, obtain, me } = await serve();
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await obtain('127.0.0.2', `wrong${i}`)).statusCode);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses.slice(10)).toEqual(Array(40).fill(429));
    const owner = await obtain('127.0.0.1', 's3cret');
    expect(owner.statusCode).toBe(200);
    expect(owner.json()).toEqual({ token: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await me('127.0.0.1', 's3cret')).statusCode).toBe(200);
    // The attacker stays throttled, right password or not.
    const attacker = await obtain('127.0.0.2', 's3cret');
    expectWall(attacker);
    expect((await me('127.0.0.2', 's3cret')).statusCode).toBe(429);
    await app.close();
  });

  it('a known client keeps working while strangers from its own address are throttled', async () => {
    const { app, obtain, me } = await serve();
    const device = deviceCookie(await obtain('127.0.0.1', 's3cret'));
    for (let i = 0; i < 10; i++) expect((await obtain('127.0.0.1', `wrong${i}`)).statusCode).toBe(400);
    expectWall(await obtain('127.0.0.1', 'wrong-again'));
    expectWall(await obtain('127.0.0.1', 's3cret'));
    const known = await obtain('127.0.0.1', 's3cret', device);
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ token: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await me('127.0.0.1', 's3cret', device)).statusCode).toBe(200);
    expect((await me('127.0.0.1', 's3cret')).statusCode).toBe(429);
    await app.close();
  });

  it('a guess spread over many addresses is slowed down; the owner\'s device and address are not', async () => {
    const { app, obtain, me } = await serve();
    const now = 3_000_000;
    loginThrottle(app.trestle).timer = () => now;
    const device = deviceCookie(await obtain('127.0.0.1', 's3cret'));
    const statuses: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await obtain(`127.0.1.${i + 1}`, `guess${i}`);
      statuses.push(res.statusCode);
      if (res.statusCode === 429) waits.push(Number(res.headers['retry-after']));
    }
    // 20 failures from unknown clients, then one attempt per delay (1 s, then 2 s): the clock stands still here.
    expect(statuses).toEqual([...Array(21).fill(400), ...Array(9).fill(429)]);
    expect(waits).toEqual(Array(9).fill(2));
    expect((await obtain('127.0.0.1', 's3cret', device)).statusCode).toBe(200);
    expect((await me('127.0.0.1', 's3cret')).statusCode).toBe(200);
    const stranger = await obtain('127.0.2.1', 's3cret');
    expect(stranger.statusCode).toBe(429);
    expect(stranger.headers['retry-after']).toBe('2');
    await app.close();
  });
});

describe('the password-hash queue is bounded', () => {
  afterAll(() => {
    setPasswordHashConcurrency(1);
    setPasswordHashQueueLimit(8);
  });

  it('a login arriving while the queue is full is a 503 with Retry-After, not a wait', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: { username: null, address: null } }, routes });
    setPasswordHashConcurrency(1);
    setPasswordHashQueueLimit(1);
    // One slow hash runs, one waits: the queue is full.
    const running = hashPassword('x', { ln: 16, r: 8, p: 1 });
    const queued = hashPassword('y', { ln: 16, r: 8, p: 1 });
    const res = await token(app, 'alice', 's3cret');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toEqual({ detail: 'Too many logins are being checked at once. Try again shortly.' });
    await Promise.all([running, queued]);
    const after = await token(app, 'alice', 's3cret');
    expect(after.statusCode).toBe(200);
    await app.close();
  }, 30_000);
});

