import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { APIView, ApiRequest, AllowAny, createApp, path, reverse, type TrestleApp } from '../../src/index.js';

class Links extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    return { self: reverse('links', {}, { request: req }), host: req.getHost(), auth: req.headers.authorization ?? null };
  }
}

let app: TrestleApp;
let port: number;

beforeAll(async () => {
  app = await createApp({ settings: { ALLOWED_HOSTS: ['127.0.0.1', 'api.example'] }, routes: [path('links/', Links, { name: 'links' })] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
afterAll(() => app.close());

const raw = (text: string) => rawRequest(port, text);

describe('duplicate singleton headers', () => {
  it('two Host headers are a JSON 400', async () => {
    const res = await raw(`GET /links/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.head).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ detail: 'Duplicate Host header.' });
  });

  it('two Authorization headers are a JSON 400, whatever their case', async () => {
    const res = await raw(`GET /links/ HTTP/1.1\r\nHost: 127.0.0.1\r\nauthorization: Token a\r\nAUTHORIZATION: Token b\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ detail: 'Duplicate Authorization header.' });
    const hosts = await raw(`GET /links/ HTTP/1.1\r\nhost: 127.0.0.1\r\nHOST: evil.example\r\nConnection: close\r\n\r\n`);
    expect(hosts.status).toBe(400);
    expect(JSON.parse(hosts.body)).toEqual({ detail: 'Duplicate Host header.' });
  });

  it('one of each is fine', async () => {
    const res = await raw(`GET /links/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token a\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ self: 'http://127.0.0.1/links/', host: '127.0.0.1', auth: 'Token a' });
  });

  it('on unknown routes too', async () => {
    const res = await raw(`GET /nothing/ HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ detail: 'Duplicate Host header.' });
  });
});

describe('absolute-form request targets', () => {
  it('route the path and take the host from the target (RFC 9112 §3.2.2)', async () => {
    const res = await raw(`GET http://api.example/links/?a=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ self: 'http://api.example/links/', host: 'api.example', auth: null });
  });

  it('a host outside ALLOWED_HOSTS in the target is the host check 400, never a link to it', async () => {
    const res = await raw(`GET http://evil.example/links/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('http://');
    expect(JSON.parse(res.body)).toEqual({ detail: "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS." });
  });

  it('userinfo is not part of the host, and a target without a path is the root', async () => {
    const res = await raw(`GET http://user:pw@api.example HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ detail: 'Not found.' });
  });

  it('an asterisk-form OPTIONS is a JSON 404', async () => {
    const res = await raw(`OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.head).toContain('content-type: application/json');
  });
});
