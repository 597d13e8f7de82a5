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
async function logged(): Promise<{ app: TrestleApp; lines: () => Record<string, unknown>[]; text: () => string }> {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  app = await createApp({ logger: { level: 'info', stream }, routes: [path('items/', Items)] });
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
