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

describe('CORS (django-cors-headers settings)', () => {
  it('a preflight from an allowed origin is answered before authentication', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN] });
    const res = await a.inject({
      method: 'OPTIONS',
      url: '/items/',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('DELETE, GET, OPTIONS, PATCH, POST, PUT');
    expect(res.headers['access-control-allow-headers']).toBe('accept, authorization, content-type, user-agent, x-csrftoken, x-requested-with');
    expect(res.headers['access-control-max-age']).toBe('86400');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['vary']).toContain('Origin');
    expect(res.body).toBe('');
  });

  it('a plain OPTIONS still gets DRF metadata (with CORS headers for an allowed origin)', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN] });
    const res = await a.inject({ method: 'OPTIONS', url: '/items/', headers: { origin: ORIGIN, accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.json()).toMatchObject({ name: 'Items', renders: ['application/json', 'text/html'] });
  });

  it('actual requests carry the headers for an allowed origin, none for another', async () => {
    const a = await start({ CORS_ALLOWED_ORIGINS: [ORIGIN], CORS_ALLOW_CREDENTIALS: true, CORS_EXPOSE_HEADERS: ['x-request-id'] });
    const allowed = await a.inject({ url: '/private/', headers: { origin: ORIGIN } });
    expect(allowed.statusCode).toBe(403);
    expect(allowed.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(allowed.headers['access-control-expose-headers']).toBe('x-request-id');
    const other = await a.inject({ url: '/items/', headers: { origin: 'https://evil.example' } });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual([{ id: 1 }]);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await a.inject({ method: 'OPTIONS', url: '/items/', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
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
