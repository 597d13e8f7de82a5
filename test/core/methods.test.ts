import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import {
  APIView,
  ApiRequest,
  AuthenticationFailed,
  IsAdminUser,
  IsAuthenticated,
  createApp,
  path,
  type Authentication,
  type Throttle,
  type TrestleApp,
  type User,
} from '../../src/index.js';

function user(username: string, isStaff: boolean): User {
  return { pk: 1, username, email: '', isActive: true, isStaff, isSuperuser: false, isAuthenticated: true, isAnonymous: false };
}

/** `X-User: alice` (staff) or `bob`; anything else fails; absent = not attempted. */
class HeaderAuth implements Authentication {
  authenticate(req: ApiRequest): [User, unknown] | null {
    const name = req.headers['x-user'];
    if (name === undefined) return null;
    if (name !== 'alice' && name !== 'bob') throw new AuthenticationFailed('No such user');
    return [user(name, name === 'alice'), null];
  }
  authenticateHeader(): string {
    return 'Header realm="test"';
  }
}

/** Refuses every request of `X-Throttle: yes`. */
class HeaderThrottle implements Throttle {
  allowRequest(req: ApiRequest) {
    return req.headers['x-throttle'] === 'yes' ? { allowed: false as const, wait: 7 } : { allowed: true as const };
  }
}

class Items extends APIView {
  override authenticationClasses = [HeaderAuth];
  override permissionClasses = [IsAuthenticated, IsAdminUser];
  override throttleClasses = [HeaderThrottle];
  get() {
    return [];
  }
  post() {
    return {};
  }
}

let app: TrestleApp;
beforeAll(async () => {
  app = await createApp({ logger: false, routes: [path('items/', Items)] });
});
afterAll(() => app.close());

describe('methods outside the eight registered ones reach the view, as in DRF', () => {
  it.each(['PROPFIND', 'SEARCH', 'PURGE', 'MKCOL', 'REPORT', 'LOCK'])('%s unauthenticated: 401 with WWW-Authenticate', async (method) => {
    const res = await app.inject({ method: method as 'GET', url: '/items/' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Header realm="test"');
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('failed credentials are answered before the method is looked at', async () => {
    const res = await app.inject({ method: 'PROPFIND' as 'GET', url: '/items/', headers: { 'x-user': 'mallory' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'No such user' });
  });

  it('authenticated but not permitted: 403', async () => {
    const res = await app.inject({ method: 'PURGE' as 'GET', url: '/items/', headers: { 'x-user': 'bob' } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  it('throttled before the method: 429 with Retry-After', async () => {
    const res = await app.inject({ method: 'SEARCH' as 'GET', url: '/items/', headers: { 'x-user': 'alice', 'x-throttle': 'yes' } });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.json()).toEqual({ detail: 'Request was throttled. Expected available in 7 seconds.' });
  });

  it('permitted: 405 with Allow and DRF message', async () => {
    const res = await app.inject({ method: 'PROPFIND' as 'GET', url: '/items/', headers: { 'x-user': 'alice' }, payload: '<propfind/>' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Method "PROPFIND" not allowed.' });
  });

  it('a QUERY without Content-Type or body is authenticated first (401), not refused by Fastify', async () => {
    const res = await app.inject({ method: 'QUERY' as 'GET', url: '/items/' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Header realm="test"');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('a QUERY without Content-Type, permitted: 405 with Allow', async () => {
    const res = await app.inject({ method: 'QUERY' as 'GET', url: '/items/', headers: { 'x-user': 'alice' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Method "QUERY" not allowed.' });
    const withBody = await app.inject({ method: 'QUERY' as 'GET', url: '/items/', headers: { 'x-user': 'bob' }, payload: 'q=1' });
    expect(withBody.statusCode).toBe(403);
    expect(withBody.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  it('a QUERY with a Content-Type and a body, permitted: 405 with Allow (not refused by Fastify)', async () => {
    const res = await app.inject({ method: 'QUERY' as 'GET', url: '/items/', headers: { 'x-user': 'alice', 'content-type': 'application/json' }, payload: '{"q": 1}' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Method "QUERY" not allowed.' });
  });

  it('an unknown path is still a 404 whatever the method', async () => {
    const res = await app.inject({ method: 'PROPFIND' as 'GET', url: '/nothing/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not found.' });
  });

  it('over a real socket too', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const res = await new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'PURGE', path: '/items/', headers: { 'x-user': 'alice' } }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, allow: r.headers['allow'], body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toEqual({ status: 405, allow: 'GET, POST, HEAD, OPTIONS', body: '{"detail":"Method \\"PURGE\\" not allowed."}' });
  });

  it('a method name Node does not know is a 400 from Node, before the app (documented)', async () => {
    if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const res = await rawRequest(port, 'FOO /items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: alice\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.head).toContain('content-type: application/json');
    expect(res.body).toBe('{"detail":"Malformed request."}');
  });
});
