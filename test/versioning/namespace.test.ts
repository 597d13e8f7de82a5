import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NamespaceVersioning, include, path, type RouteEntry, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

describe('NamespaceVersioning', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    const api = (): RouteEntry[] => [
      path('items/', versionView({}, { name: 'item-detail', params: { pk: 7 } }), { name: 'item-list' }),
      path('items/<int:pk>/', versionView(), { name: 'item-detail' }),
      path('to-plain/', versionView({}, { name: 'plain' })),
    ];
    app = await makeApp(
      [
        include('v1/', api(), { namespace: 'v1' }),
        include('v2/', api(), { namespace: 'v2' }),
        include('v3/', api(), { namespace: 'v3' }),
        include('nested/', [include('v2/', api(), { namespace: 'v2' })], { namespace: 'api' }),
        path('items/', versionView({}, { name: 'item-detail', params: { pk: 7 } })),
        path('plain/', versionView(), { name: 'plain' }),
      ],
      { DEFAULT_VERSIONING_CLASS: NamespaceVersioning, REJECT_CONFLICTING_VERSIONS: true, DEFAULT_VERSION: 'v1', ALLOWED_VERSIONS: ['v1', 'v2'] },
    );
  });
  afterAll(() => app.close());

  it('the namespace is the version, and reverse prefixes the route name with it', async () => {
    const res = await get(app, '/v2/items/');
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, Cookie'); // negotiation and the session (default SessionAuthentication); the scheme reads no header
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/v2/items/7/' });
  });

  it('404 with DRF\'s message for a namespace that is not an allowed version', async () => {
    const res = await get(app, '/v3/items/');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ detail: 'Invalid version in URL path. Does not match any version namespace.' });
  });

  it('nested namespaces give the first part that is an allowed version', async () => {
    const res = await get(app, '/nested/v2/items/');
    expect(res.status).toBe(200);
    // DRF reverses `v2:item-detail`, which names the top-level v2 include.
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/v2/items/7/' });
  });

  it('a route outside any namespace gets the default version; reverse uses its namespace', async () => {
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v1', link: 'http://localhost/v1/items/7/' });
  });

  it('reverse of a name no version namespace has falls back to the plain URL', async () => {
    const res = await get(app, '/v2/to-plain/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/plain/' });
  });

  it('400 when ?version= names another version than the namespace (REJECT_CONFLICTING_VERSIONS)', async () => {
    const res = await get(app, '/v2/items/?version=v1');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'Conflicting versions in the request: URL path says "v2", query parameter says "v1".',
    });
  });
});
