import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  APIView,
  AnonRateThrottle,
  ApiError,
  ServiceUnavailable,
  createApp,
  path,
  type ApiRequest,
  type ThrottleStore,
} from '../../src/index.js';
import { isOutageError } from '../../src/outage.js';
import { freePort } from './private-servers.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** What PostgreSQL sends to the backends of in-flight queries on `pg_ctl stop -m fast`. */
const adminShutdown = () => withCode('terminating connection due to administrator command', '57P01');

describe('isOutageError', () => {
  it.each([
    ['57P01 admin_shutdown', adminShutdown()],
    ['57P02 crash_shutdown', withCode('terminating connection because of crash of another server process', '57P02')],
    ['57P03 cannot_connect_now', withCode('the database system is starting up', '57P03')],
    ['08006 connection_failure', withCode('connection failure', '08006')],
    ['ECONNREFUSED', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['ECONNRESET', withCode('read ECONNRESET', 'ECONNRESET')],
    ['pg: Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    ['pg-pool: connect timeout', new Error('timeout exceeded when trying to connect')],
    ['pg: dead client', new Error('Client has encountered a connection error and is not queryable')],
    ['ioredis offline', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['ioredis closed', new Error('Connection is closed.')],
    ['ioredis timeout', new Error('Command timed out')],
    ['Redis loading', new Error('LOADING Redis is loading the dataset in memory')],
    ['wrapped in a cause', new Error('lookup failed', { cause: adminShutdown() })],
    ['one of several addresses', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')])],
    ['57014 statement timeout', withCode('canceling statement due to statement timeout', '57014')],
    ['pg: query_timeout (a server that answers nothing)', new Error('Query read timeout')],
  ])('%s is an outage', (_name, err) => {
    expect(isOutageError(err)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', withCode('syntax error at or near "selec"', '42601')],
    ['a programming error', new TypeError('x is not a function')],
    ['a Redis command error', new Error('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['not an error', 'Connection terminated'],
  ])('%s is not', (_name, err) => {
    expect(isOutageError(err)).toBe(false);
  });

  it('recognises what node-postgres and ioredis really throw when nothing listens', async () => {
    const port = await freePort();
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, connectionTimeoutMillis: 2_000 });
    const pgError = await client.connect().then(() => null, (err: unknown) => err);
    expect(isOutageError(pgError)).toBe(true);

    const redis = new Redis(port, '127.0.0.1', { enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: true });
    redis.on('error', () => {});
    const redisError = await redis.get('k').then(() => null, (err: unknown) => err);
    redis.disconnect();
    expect(isOutageError(redisError)).toBe(true);
  });
});

class DatabaseDown extends APIView {
  async get(): Promise<never> {
    throw adminShutdown();
  }
}

class Broken extends APIView {
  async get(): Promise<never> {
    throw withCode('duplicate key value violates unique constraint', '23505');
  }
}

describe('an outage answers 503 with Retry-After', () => {
  it('from a view: JSON detail, Retry-After from SERVICE_UNAVAILABLE_RETRY_AFTER, Allow and Vary as any response', async () => {
    const app = await createApp({ logger: false, settings: { SERVICE_UNAVAILABLE_RETRY_AFTER: 7 }, routes: [path('items/', DatabaseDown)] });
    const res = await app.inject({ method: 'GET', url: '/items/', headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(res.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    await app.close();
  });

  it('any other database error stays a 500 that says nothing of the cause', async () => {
    const app = await createApp({ logger: false, routes: [path('items/', Broken)] });
    const res = await app.inject({ method: 'GET', url: '/items/' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json()).toEqual({ detail: 'A server error occurred.' });
    await app.close();
  });

  it('an EXCEPTION_HANDLER sees a ServiceUnavailable it can reword', async () => {
    const seen: unknown[] = [];
    const app = await createApp({
      logger: false,
      settings: {
        EXCEPTION_HANDLER: (err) => {
          seen.push(err);
          return err instanceof ApiError
            ? { status: err.statusCode, body: { error: err.code }, headers: { ...err.headers } }
            : null;
        },
      },
      routes: [path('items/', DatabaseDown)],
    });
    const res = await app.inject({ method: 'GET', url: '/items/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ error: 'service_unavailable' });
    expect(seen[0]).toBeInstanceOf(ServiceUnavailable);
    await app.close();
  });

  it('from a Fastify hook, outside any view', async () => {
    const app = await createApp({ logger: false, routes: [path('items/', Broken)] });
    app.addHook('onRequest', async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    const res = await app.inject({ method: 'GET', url: '/items/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    await app.close();
  });
});

const unreachableStore: ThrottleStore = {
  hit: async () => {
    throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
  },
};

class OpenThrottle extends AnonRateThrottle {
  override rate = '1/min';
  override store = unreachableStore;
}

class ClosedThrottle extends OpenThrottle {
  override failOpen = false;
}

class ThrottledOpen extends APIView {
  override throttleClasses = [OpenThrottle];
  get(_req: ApiRequest) {
    return { ok: true };
  }
}

class ThrottledClosed extends ThrottledOpen {
  override throttleClasses = [ClosedThrottle];
}

class Refused extends APIView {
  async get(): Promise<never> {
    throw withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
  }
}

describe('outage log lines are rate-limited', () => {
  it('one line per kind at once, the rest counted into one line per OUTAGE_LOG_INTERVAL', async () => {
    const lines: { msg: string; kind?: string; count?: number; err?: unknown }[] = [];
    const app = await createApp({
      logger: { level: 'warn', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
      settings: { OUTAGE_LOG_INTERVAL: 3 },
      routes: [path('down/', DatabaseDown), path('refused/', Refused)],
    });
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({ method: 'GET', url: i % 4 === 3 ? '/refused/' : '/down/' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    }
    const outageLines = () => lines.filter((l) => l.msg.startsWith('service unavailable'));
    const linesOf = (kind: string) => outageLines().filter((l) => l.kind === kind);
    // Every error is either a line of its own (the first of an interval) or counted in a later line.
    const accounted = (kind: string) => linesOf(kind).reduce((n, l) => n + (l.count ?? 1), 0);
    for (let waited = 0; (accounted('57P01') < 15 || accounted('ECONNREFUSED') < 5) && waited < 15_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(accounted('57P01')).toBe(15);
    expect(accounted('ECONNREFUSED')).toBe(5);
    expect(linesOf('57P01')[0]).toMatchObject({ msg: 'service unavailable (57P01)', err: { message: 'terminating connection due to administrator command' } });
    expect(linesOf('ECONNREFUSED')[0]).toMatchObject({ msg: 'service unavailable (ECONNREFUSED)' });
    // Far fewer lines than errors: the rest arrive as counts.
    expect(linesOf('57P01').length).toBeLessThan(5);
    expect(linesOf('57P01').slice(1)).toContainEqual(
      expect.objectContaining({ msg: expect.stringMatching(/^service unavailable \(57P01\): \d+ more in the last 3 s$/), count: expect.any(Number) }),
    );
    await app.close();
  });
});

describe('throttles while their store is unreachable', () => {
  it('rate throttles fail open: the request goes through uncounted', async () => {
    const app = await createApp({ logger: false, routes: [path('open/', ThrottledOpen)] });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'GET', url: '/open/' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    }
    await app.close();
  });

  it('a throttle with failOpen = false answers 503 with Retry-After', async () => {
    const app = await createApp({ logger: false, routes: [path('closed/', ThrottledClosed)] });
    const res = await app.inject({ method: 'GET', url: '/closed/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    await app.close();
  });
});

describe('timeout settings', () => {
  it('reach the HTTP server', async () => {
    const app = await createApp({ logger: false, settings: { HEADERS_TIMEOUT: 3, REQUEST_TIMEOUT: 9, IDLE_TIMEOUT: 12, KEEP_ALIVE_TIMEOUT: 4 } });
    expect(app.server.headersTimeout).toBe(3_000);
    expect(app.server.requestTimeout).toBe(9_000);
    // IDLE_TIMEOUT is Trestle's sweep, not Node's per-request timer (its behaviour: core/idle-timeout.test.ts).
    expect(app.server.timeout).toBe(0);
    expect(app.server.keepAliveTimeout).toBe(4_000);
    await app.close();
  });

  it('default to bounded values', async () => {
    const app = await createApp({ logger: false });
    expect(app.server.headersTimeout).toBe(10_000);
    expect(app.server.requestTimeout).toBe(30_000);
    expect(app.server.timeout).toBe(0);
    expect(app.server.keepAliveTimeout).toBe(72_000);
    await app.close();
  });

  it.each([
    [{ REQUEST_TIMEOUT: -1 }, 'REQUEST_TIMEOUT must be a number of seconds, 0 or more.'],
    [{ IDLE_TIMEOUT: Number.NaN }, 'IDLE_TIMEOUT must be a number of seconds, 0 or more.'],
    [{ HEADERS_TIMEOUT: 40, REQUEST_TIMEOUT: 30 }, 'HEADERS_TIMEOUT must be at most REQUEST_TIMEOUT.'],
  ])('reject %o at start-up', async (settings, message) => {
    await expect(createApp({ logger: false, settings })).rejects.toThrow(message);
  });
});
