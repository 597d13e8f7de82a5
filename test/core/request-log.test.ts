import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { APIView, AllowAny, createApp, path, type ApiRequest, type Authentication, type TrestleApp, type User } from '../../src/index.js';

/** `X-User: <id>` authenticates as that user id; absent = anonymous. */
class HeaderAuth implements Authentication {
  authenticate(req: ApiRequest): [User, unknown] | null {
    const id = req.headers['x-user'];
    if (typeof id !== 'string') return null;
    return [{ pk: Number(id), username: `user${id}`, email: '', isActive: true, isStaff: false, isSuperuser: false, isAuthenticated: true, isAnonymous: false }, null];
  }
}

class Items extends APIView {
  override authenticationClasses = [HeaderAuth];
  override permissionClasses = [AllowAny];
  get() {
    return [{ id: 1 }];
  }
}

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** An app logging JSON lines at info into an array. */
async function logged(level = 'info'): Promise<{ app: TrestleApp; lines: () => Record<string, unknown>[]; text: () => string }> {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  app = await createApp({ logger: { level, stream }, routes: [path('items/', Items)] });
  return { app, text: () => text, lines: () => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('request log lines say which request', () => {
  it('the completion line carries method, URL, status, time and the authenticated user id', async () => {
    const log = await logged();
    const res = await log.app.inject({ url: '/items/?page=2', headers: { 'x-user': '7', accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: 1 }]);
    const done = log.lines().find((l) => l['msg'] === 'request completed')!;
    expect(done).toMatchObject({ level: 30, reqId: res.headers['x-request-id'], method: 'GET', url: '/items/?page=2', statusCode: 200, userId: 7 });
    expect(typeof done['responseTime']).toBe('number');
  });

  it('an anonymous request and an unknown route have no user id', async () => {
    const log = await logged();
    const anonymous = await log.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect(anonymous.statusCode).toBe(200);
    const missing = await log.app.inject({ method: 'DELETE', url: '/nothing/?x=1', headers: { accept: 'application/json' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Not found.' });
    const done = log.lines().filter((l) => l['msg'] === 'request completed');
    expect(done.map((l) => [l['method'], l['url'], l['statusCode'], 'userId' in l])).toEqual([
      ['GET', '/items/', 200, false],
      ['DELETE', '/nothing/?x=1', 404, false],
    ]);
  });

  it('secret-looking query values are redacted in both lines', async () => {
    const log = await logged();
    const res = await log.app.inject({
      url: '/items/?token=tok-SECRET1&page=2&api_key=SECRET2&pass%77ord=SECRET3&client_secret=SECRET4&q=keep',
      headers: { accept: 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    const redacted = '/items/?token=[redacted]&page=2&api_key=[redacted]&pass%77ord=[redacted]&client_secret=[redacted]&q=keep';
    const incoming = log.lines().find((l) => l['msg'] === 'incoming request')!;
    expect(incoming['req']).toMatchObject({ method: 'GET', url: redacted });
    const done = log.lines().find((l) => l['msg'] === 'request completed')!;
    expect(done['url']).toBe(redacted);
    expect(log.text()).not.toMatch(/SECRET\d/);
  });
});

describe('request lines come from listeners Trestle adds, not from Fastify', () => {
  it("at warn a response gets an error listener only, at info a finish listener too; each completion is one line", async () => {
    const log = await logged('warn');
    const counts: [string, number, number][] = [];
    // Fastify adds its response listeners before the onRequest hooks; Trestle's are added as the request comes in.
    log.app.addHook('onRequest', (request, reply, done) => {
      counts.push([log.app.log.level, reply.raw.listenerCount('finish'), reply.raw.listenerCount('error')]);
      done();
    });
    const quiet = await log.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect([quiet.statusCode, quiet.json()]).toEqual([200, [{ id: 1 }]]);
    log.app.log.level = 'info';
    const loud = await log.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect([loud.statusCode, loud.json()]).toEqual([200, [{ id: 1 }]]);
    expect(counts[0]![2]).toBe(counts[1]![2]);
    expect(counts[0]![2]).toBeGreaterThan(0);
    expect(counts.map(([level, finish]) => [level, finish - counts[0]![1]])).toEqual([
      ['warn', 0],
      ['info', 1],
    ]);
    // Only the request at info wrote lines: one start, one completion.
    expect(log.lines().map((l) => [l['msg'], l['reqId']])).toEqual([
      ['incoming request', loud.headers['x-request-id']],
      ['request completed', loud.headers['x-request-id']],
    ]);
  });

  it('a response that errors is logged at error at every level, with which request it was', async () => {
    const log = await logged('warn');
    log.app.addHook('onRequest', (_request, reply, done) => {
      reply.raw.emit('error', new Error('socket gone'));
      done();
    });
    // Through a socket: the injected response takes an error as the end of the request.
    await log.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = log.app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/items/?token=SECRET9`, { headers: { accept: 'application/json', 'x-user': '4' } });
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([200, 'application/json', [{ id: 1 }]]);
    const lines = log.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'request errored', reqId: res.headers.get('x-request-id'), method: 'GET', url: '/items/?token=[redacted]' });
    expect((lines[0]!['err'] as { message: string }).message).toBe('socket gone');
  });

  it("a route's onResponse hook still runs, and the completion line is written once", async () => {
    const log = await logged('info');
    const seen: number[] = [];
    log.app.addHook('onResponse', (_request, reply, done) => {
      seen.push(reply.statusCode);
      done();
    });
    const res = await log.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect([res.statusCode, res.json()]).toEqual([200, [{ id: 1 }]]);
    expect(seen).toEqual([200]);
    expect(log.lines().filter((l) => l['msg'] === 'request completed')).toHaveLength(1);
  });
});

describe('one completion line per request', () => {
  it('an injected response, which emits finish twice, is one completion line, also after the app closes', async () => {
    const log = await logged('info');
    const res = await log.app.inject({ url: '/items/', headers: { accept: 'application/json', 'x-user': '2' } });
    expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([200, 'application/json', [{ id: 1 }]]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await log.app.close();
    app = null;
    expect(log.lines().map((l) => [l['msg'], l['reqId'], l['userId']])).toEqual([
      ['incoming request', res.headers['x-request-id'], undefined],
      ['request completed', res.headers['x-request-id'], 2],
    ]);
  });
});

describe("each request's logger", () => {
  it('is made by Trestle with the request id, for a route, an unknown route and a route with its own log level', async () => {
    const log = await logged('warn');
    const { DeferredChildLogger } = await import('../../src/request-log.js');
    const loggers: [string, boolean, string, boolean][] = [];
    log.app.addHook('onRequest', (request, reply, done) => {
      loggers.push([request.url, request.log instanceof DeferredChildLogger, request.log.level, reply.log === request.log]);
      request.log.warn({ step: 'onRequest' }, 'seen');
      done();
    });
    // A route of Fastify's own with its log level: pino's child at that level, made through the factory.
    log.app.get('/debugged/', { logLevel: 'debug' }, async (request) => {
      request.log.debug('debug line');
      return { debugged: true };
    });
    const item = await log.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect([item.statusCode, item.json()]).toEqual([200, [{ id: 1 }]]);
    const missing = await log.app.inject({ url: '/nothing/', headers: { accept: 'application/json' } });
    expect([missing.statusCode, missing.json()]).toEqual([404, { detail: 'Not found.' }]);
    const debugged = await log.app.inject({ url: '/debugged/' });
    expect([debugged.statusCode, debugged.headers['content-type'], debugged.json()]).toEqual([200, 'application/json; charset=utf-8', { debugged: true }]);
    expect(loggers).toEqual([
      ['/items/', true, 'warn', true],
      ['/nothing/', true, 'warn', true],
      ['/debugged/', false, 'debug', true],
    ]);
    // Fastify's own route sends no X-Request-Id; its id is the one its lines share.
    const debuggedId = log.lines()[2]!['reqId'];
    expect(typeof debuggedId).toBe('string');
    // At debug the route writes its request lines too.
    expect(log.lines().map((l) => [l['level'], l['msg'], l['reqId']])).toEqual([
      [40, 'seen', item.headers['x-request-id']],
      [40, 'seen', missing.headers['x-request-id']],
      [30, 'incoming request', debuggedId],
      [40, 'seen', debuggedId],
      [20, 'debug line', debuggedId],
      [30, 'request completed', debuggedId],
    ]);
    expect(debuggedId).not.toBe(item.headers['x-request-id']);
  });
});

describe('the logger option', () => {
  it('takes true, pino options with a stream, and refuses a logger instance', async () => {
    app = await createApp({ logger: true, routes: [path('items/', Items)] });
    expect(app.log.level).toBe('info');
    await app.close();
    app = null;
    const { pino } = await import('pino');
    await expect(createApp({ logger: pino() as never, routes: [] })).rejects.toThrow(/pino's options, not a logger/);
  });
});
