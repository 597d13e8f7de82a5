import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { APIView, createApp, path, type TrestleApp } from '../../src/index.js';

class Ok extends APIView {
  override authenticationClasses = [];
  get() {
    return { ok: true };
  }
}

let app: TrestleApp;
let port: number;

beforeAll(async () => {
  app = await createApp({ logger: false, routes: [path('ok/', Ok)] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
afterAll(() => app.close());

const raw = (text: string) => rawRequest(port, text);

describe('malformed requests over a real socket', () => {
  it('HTTP/1.1 without a Host header is a JSON 400 from the host check', async () => {
    const res = await raw('GET /ok/ HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.head).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ detail: "Invalid HTTP_HOST header: ''. The domain name provided is not valid according to RFC 1034/1035." });
  });

  it('an empty Host header is a JSON 400', async () => {
    const res = await raw('GET /ok/ HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ detail: "Invalid HTTP_HOST header: ''. The domain name provided is not valid according to RFC 1034/1035." });
  });

  it('a request line that does not parse is a JSON 400', async () => {
    const res = await raw('GARBAGE\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.head).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ detail: 'Malformed request.' });
  });

  it('a well-formed request with an allowed host works', async () => {
    const res = await raw(`GET /ok/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
    expect(res.head).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ ok: true });
  });
});
