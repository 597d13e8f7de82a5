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
  obtainAuthToken,
  path,
  setPasswordHashConcurrency,
  setPasswordHashQueueLimit,
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
const RATES = { username: '3/h', address: '5/h' };

let fx: AuthFixture;
beforeAll(async () => {
  fx = await authFixture();
});
afterAll(() => fx.close());

const token = (app: TrestleApp, username: string, password: string, remoteAddress = '10.0.0.1') =>
  app.inject({ method: 'POST', url: '/api-token-auth/', payload: { username, password }, remoteAddress });

function expectThrottled(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(429);
  const retry = Number(res.headers['retry-after']);
  expect(retry).toBeGreaterThan(3500);
  expect(retry).toBeLessThanOrEqual(3600);
  expect(res.json()).toEqual({ detail: `Too many failed login attempts. Expected available in ${retry} seconds.` });
}

describe('failed logins are throttled by default', () => {
  it('the defaults are 10 failures an hour per username and 100 per address', async () => {
    const app = await appWith(fx, { routes });
    expect(app.trestle.settings.LOGIN_FAILURE_RATES).toEqual({ username: '10/h', address: '100/h' });
    for (let i = 0; i < 10; i++) expect((await token(app, 'alice', `wrong-${i}`)).statusCode).toBe(400);
    expectThrottled(await token(app, 'alice', 's3cret'));
    await app.close();
  });

  it('per username: after 3 failures even the right password is refused, from any address; other names are not', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    for (let i = 0; i < 3; i++) {
      const res = await token(app, 'alice', 'nope', `10.0.1.${i}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] });
    }
    expectThrottled(await token(app, 'alice', 's3cret', '10.0.2.1'));
    expectThrottled(await token(app, 'ALICE', 's3cret', '10.0.2.2'));
    const admin = await token(app, 'admin', 'adminpw', '10.0.2.3');
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).toHaveProperty('token');
    await app.close();
  });

  it('per address: 5 failures over many names block that address only; successes do not count', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    for (let i = 0; i < 4; i++) expect((await token(app, 'admin', 'adminpw', '10.0.3.1')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await token(app, `ghost${i}`, 'x', '10.0.3.1')).statusCode).toBe(400);
    expectThrottled(await token(app, 'admin', 'adminpw', '10.0.3.1'));
    expect((await token(app, 'admin', 'adminpw', '10.0.3.2')).statusCode).toBe(200);
    await app.close();
  });

  it('Basic authentication counts failures and answers 429 with Retry-After', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/me/', headers: { authorization: basic('alice', 'bad') } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
    }
    expectThrottled(await app.inject({ url: '/me/', headers: { authorization: basic('alice', 's3cret') } }));
    const other = await app.inject({ url: '/me/', headers: { authorization: basic('admin', 'adminpw') } });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({ username: 'admin' });
    await app.close();
  });

  it('the session login (JSON and form) counts failures and answers 429', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const jar = new CookieJar();
    const page = await app.inject({ url: '/api-auth/login/', headers: { accept: 'application/json' } });
    jar.store(page.headers['set-cookie']);
    const csrf = page.json().csrfToken as string;
    const attempt = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { accept: 'application/json', cookie: jar.header(), 'x-csrftoken': csrf },
        payload: { username: 'alice', password },
      });
    for (let i = 0; i < 3; i++) expect((await attempt('bad')).statusCode).toBe(400);
    const res = await attempt('s3cret');
    expectThrottled(res);
    expect(res.headers['set-cookie'] ?? '').not.toContain('sessionid=');
    await app.close();
  });

  it('the admin login counts failures and answers 429 as an HTML page', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes });
    const jar = new CookieJar();
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const attempt = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/admin/login/',
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
        payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'admin', password }).toString(),
      });
    for (let i = 0; i < 3; i++) expect((await attempt('bad')).statusCode).toBe(200);
    const res = await attempt('adminpw');
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Too many failed login attempts.');
    expect(res.headers['set-cookie'] ?? '').not.toContain('sessionid=');
    await app.close();
  });

  it('null rates switch the throttle off', async () => {
    const app = await appWith(fx, { settings: { LOGIN_FAILURE_RATES: { username: null, address: null } }, routes });
    for (let i = 0; i < 12; i++) expect((await token(app, 'alice', 'bad')).statusCode).toBe(400);
    expect((await token(app, 'alice', 's3cret')).statusCode).toBe(200);
    await app.close();
  });

  it('a bad rate is refused when the app is created', async () => {
    await expect(appWith(fx, { settings: { LOGIN_FAILURE_RATES: { username: 'ten/h', address: null } }, routes })).rejects.toThrow(
      'Invalid throttle rate "ten/h" in LOGIN_FAILURE_RATES: use "<requests>/<s|m|h|d>".',
    );
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

describe.runIf(redisAvailable())('login failures shared through Redis', () => {
  let redis: Redis;
  const prefix = `trestle-test-login-${process.pid}-${Date.now()}:`;
  beforeAll(() => {
    redis = new Redis(REDIS_TEST_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('two processes sharing one Redis share one count', async () => {
    const make = () =>
      appWith(fx, { settings: { LOGIN_FAILURE_RATES: RATES }, routes, services: { throttleStore: new RedisThrottleStore(redis, prefix) } });
    const [a, b] = await Promise.all([make(), make()]);
    expect((await token(a, 'alice', 'bad')).statusCode).toBe(400);
    expect((await token(b, 'alice', 'bad')).statusCode).toBe(400);
    expect((await token(a, 'alice', 'bad')).statusCode).toBe(400);
    expectThrottled(await token(b, 'alice', 's3cret'));
    expect((await redis.keys(`${prefix}login_failures_username_*`)).length).toBe(1);
    await a.close();
    await b.close();
  });
});
