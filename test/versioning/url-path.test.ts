import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { URLPathVersioning, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

describe('URLPathVersioning', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    const toDetail = { name: 'item-detail', params: { pk: 5 } };
    app = await makeApp(
      [
        path('<version>/items/', versionView({}, toDetail), { name: 'item-list' }),
        path('<version>/items/<int:pk>/', versionView(), { name: 'item-detail' }),
        path('items/', versionView({}, toDetail)),
        path('no-default/', versionView({ defaultVersion: null })),
        path('<version>/to-plain/', versionView({}, { name: 'plain' })),
        path('plain/', versionView(), { name: 'plain' }),
        path('<api>/custom/', versionView({ versionParam: 'api' }, { name: 'custom' }), { name: 'custom' }),
        path('<int:version>/numeric/', versionView({ allowedVersions: ['1', '2'] })),
      ],
      { DEFAULT_VERSIONING_CLASS: URLPathVersioning, REJECT_CONFLICTING_VERSIONS: true, DEFAULT_VERSION: 'v1', ALLOWED_VERSIONS: ['v1', 'v2'] },
    );
  });
  afterAll(() => app.close());

  it('reads an allowed version from the path and reverse fills it in; Vary only from negotiation', async () => {
    const res = await get(app, '/v2/items/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['vary']).toBe('Accept, Cookie'); // negotiation and the session (default SessionAuthentication); the scheme reads no header
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/v2/items/5/' });
  });

  it('a route without <version> gets the default version, and links carry it', async () => {
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v1', link: 'http://localhost/v1/items/5/' });
  });

  it('404 with DRF\'s message for a version outside ALLOWED_VERSIONS', async () => {
    for (const url of ['/v3/items/', '/V1/items/', '/v%201/items/', '/%E2%9C%93/items/', `/${'v'.repeat(400)}/items/`]) {
      const res = await get(app, url);
      expect([url, res.status, res.body]).toEqual([url, 404, { detail: 'Invalid version in URL path.' }]);
      expect(res.headers['content-type']).toBe('application/json');
    }
  });

  it('404 for a route without <version> when there is no default and ALLOWED_VERSIONS is set', async () => {
    const res = await get(app, '/no-default/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Invalid version in URL path.' });
  });

  it('reverse of a route without <version> falls back to the plain URL (DRF)', async () => {
    const res = await get(app, '/v2/to-plain/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/plain/' });
  });

  it('reverse keeps the request\'s ?format=', async () => {
    const res = await get(app, '/v2/items/?format=json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/v2/items/5/?format=json' });
  });

  it('a per-view versionParam reads and reverses that parameter', async () => {
    const res = await get(app, '/v2/custom/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v2', link: 'http://localhost/v2/custom/' });
    expect((await get(app, '/v9/custom/')).status).toBe(404);
  });

  it('a version converted to a number by <int:version> is a string', async () => {
    const res = await get(app, '/2/numeric/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '2' });
  });

  it('400 when ?version= or the Accept header names another version (REJECT_CONFLICTING_VERSIONS)', async () => {
    const q = await get(app, '/v1/items/?version=v2');
    expect(q.status).toBe(400);
    expect(q.headers['content-type']).toBe('application/json');
    expect(q.body).toEqual({
      detail: 'Conflicting versions in the request: URL path says "v1", query parameter says "v2".',
    });
    const repeated = await get(app, '/v1/items/?version=v1&version=v2');
    expect(repeated.status).toBe(400);
    const a = await get(app, '/v1/items/', { accept: 'application/json; version=2' });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ detail: 'Conflicting versions in the request: URL path says "v1", "Accept" header says "2".' });
  });

  it('the same version in the query as in the path is accepted', async () => {
    const res = await get(app, '/v1/items/?version=v1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v1', link: 'http://localhost/v1/items/5/' });
  });

  it('an invalid version wins over a conflict: 404 first, as DRF would answer', async () => {
    const res = await get(app, '/v3/items/?version=v2');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Invalid version in URL path.' });
  });
});
