import { afterEach, describe, expect, it } from 'vitest';
import { APIView, IsAuthenticated, createApp, path, type TrestleApp, type SettingsInput } from '../../src/index.js';

class Items extends APIView {
  get() {
    return [{ id: 1 }];
  }
  post() {
    return { id: 2 };
  }
}

class Private extends APIView {
  override permissionClasses = [IsAuthenticated];
  get() {
    return [];
  }
}

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

async function start(settings: SettingsInput): Promise<TrestleApp> {
  app = await createApp({ logger: false, settings, routes: [path('items/', Items), path('private/', Private)] });
  return app;
}

const ORIGIN = 'https://app.example.com';

/** The response's Access-Control-* headers. */
function corsHeaders(res: { headers: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')));
}

describe('CORS (django-cors-headers settings)', () => {
  it('a preflight from an allowed origin is answered before authentication', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN] });
    const res = await a.inject({
      method: 'OPTIONS',
      url: '/private/',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.statusCode).toBe(200);
    expect(corsHeaders(res)).toEqual({
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-methods': 'DELETE, GET, OPTIONS, PATCH, POST, PUT',
      'access-control-allow-headers': 'accept, authorization, content-type, user-agent, x-csrftoken, x-requested-with',
      'access-control-max-age': '86400',
    });
    expect(res.headers['vary']).toBe('origin');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toBe('');
  });

  it('a preflight from an origin not allowed is answered empty, with no Access-Control-* header at all', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN], CORS_ALLOW_CREDENTIALS: true, CORS_EXPOSE_HEADERS: ['x-request-id'] });
    for (const origin of ['https://evil.example', 'http://app.example.com', 'https://app.example.com:8443', 'null', 'https://[::1']) {
      const res = await a.inject({ method: 'OPTIONS', url: '/items/', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(res.statusCode, origin).toBe(200);
      expect(corsHeaders(res), origin).toEqual({});
      expect(res.headers['vary']).toBe('origin');
      expect(res.headers['allow']).toBeUndefined();
      expect(res.body).toBe('');
    }
  });

  it('answers to another origin carry no Access-Control-* header; every answer varies on Origin', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN], CORS_ALLOW_CREDENTIALS: true, CORS_EXPOSE_HEADERS: ['x-request-id'] });
    const other = await a.inject({ url: '/items/', headers: { origin: 'https://evil.example', accept: 'application/json' } });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual([{ id: 1 }]);
    expect(corsHeaders(other)).toEqual({});
    expect(other.headers['vary']).toBe('Accept, Cookie, origin');
    const none = await a.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect(none.statusCode).toBe(200);
    expect(corsHeaders(none)).toEqual({});
    expect(none.headers['vary']).toBe('Accept, Cookie, origin');
    const allowed = await a.inject({ url: '/items/', headers: { origin: ORIGIN, accept: 'application/json' } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['vary']).toBe('Accept, Cookie, origin');
    expect(corsHeaders(allowed)).toEqual({
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'x-request-id',
    });
    const missing = await a.inject({ url: '/nothing/', headers: { origin: ORIGIN, accept: 'application/json' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Not found.' });
    expect(missing.headers['vary']).toBe('Accept, origin');
    expect(missing.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('origins compare by scheme (any case) and host:port, and are echoed as sent', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN, 'http://localhost:3000'] });
    const upper = await a.inject({ url: '/items/', headers: { origin: 'HTTPS://app.example.com' } });
    expect(upper.statusCode).toBe(200);
    expect(upper.headers['access-control-allow-origin']).toBe('HTTPS://app.example.com');
    const port = await a.inject({ url: '/items/', headers: { origin: 'http://localhost:3000' } });
    expect(port.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    const otherPort = await a.inject({ url: '/items/', headers: { origin: 'http://localhost:3001' } });
    expect(otherPort.statusCode).toBe(200);
    expect(corsHeaders(otherPort)).toEqual({});
  });

  it('CORS_ALLOW_ALL_ORIGINS answers `*`, or the origin itself when credentials are allowed', async () => {
    const any = await start({ CORS_ALLOW_ALL_ORIGINS: true });
    const star = await any.inject({ url: '/items/', headers: { origin: 'https://anyone.example' } });
    expect(star.statusCode).toBe(200);
    expect(corsHeaders(star)).toEqual({ 'access-control-allow-origin': '*' });
    expect(star.headers['vary']).toBe('Accept, Cookie, origin');
    await any.close();
    app = null;
    const withCredentials = await start({ CORS_ALLOW_ALL_ORIGINS: true, CORS_ALLOW_CREDENTIALS: true });
    const echoed = await withCredentials.inject({ url: '/items/', headers: { origin: 'https://anyone.example' } });
    expect(corsHeaders(echoed)).toEqual({ 'access-control-allow-origin': 'https://anyone.example', 'access-control-allow-credentials': 'true' });
  });

  it('a plain OPTIONS still gets DRF metadata (with CORS headers for an allowed origin)', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN] });
    const res = await a.inject({ method: 'OPTIONS', url: '/items/', headers: { origin: ORIGIN, accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.json()).toMatchObject({ name: 'Items', renders: ['application/json', 'text/html'] });
  });

  it('an error answer to an allowed origin carries the headers too', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN], CORS_ALLOW_CREDENTIALS: true });
    const res = await a.inject({ url: '/private/', headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(corsHeaders(res)).toEqual({ 'access-control-allow-origin': ORIGIN, 'access-control-allow-credentials': 'true' });
    expect(res.headers['vary']).toBe('Accept, Cookie, origin');
  });

  it('off by default: no CORS headers, a preflight is an ordinary OPTIONS', async () => {
    const a = await start({});
    const res = await a.inject({ method: 'OPTIONS', url: '/items/', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', accept: 'application/json' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Items' });
  });

  it('a CORS_ALLOWED_ORIGINS entry with a path rejects createApp', async () => {
    await expect(createApp({ logger: false, settings: { CORS_ALLOWED_ORIGINS: ['https://app.example.com/'] } })).rejects.toThrow(
      'CORS_ALLOWED_ORIGINS: "https://app.example.com/" is not an origin (scheme://host[:port], no path).',
    );
  });
});
