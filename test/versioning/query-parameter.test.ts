import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryParameterVersioning, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

describe('QueryParameterVersioning', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    const toDetail = { name: 'item-detail', params: { pk: 3 } };
    app = await makeApp(
      [
        path('items/', versionView({}, toDetail), { name: 'item-list' }),
        path('items/<int:pk>/', versionView(), { name: 'item-detail' }),
        path('no-default/', versionView({ defaultVersion: null })),
        path('open/', versionView({ defaultVersion: null, allowedVersions: null }, toDetail)),
        path('param/', versionView({ versionParam: 'api-version' }, toDetail)),
        path('<version>/in-path/', versionView()),
      ],
      { DEFAULT_VERSIONING_CLASS: QueryParameterVersioning, REJECT_CONFLICTING_VERSIONS: true, DEFAULT_VERSION: '1.0', ALLOWED_VERSIONS: ['1.0', '2.0'] },
    );
  });
  afterAll(() => app.close());

  it('reads ?version= and reverse adds it to links; Vary only from negotiation', async () => {
    const res = await get(app, '/items/?version=2.0');
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, Cookie'); // negotiation and the session (default SessionAuthentication); the scheme reads no header
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/3/?version=2.0' });
  });

  it('without the parameter the default version is used and links carry it', async () => {
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '1.0', link: 'http://localhost/items/3/?version=1.0' });
  });

  it('404 with DRF\'s message for a version outside ALLOWED_VERSIONS', async () => {
    for (const url of ['/items/?version=3.0', '/items/?version=', '/items/?version', '/items/?version=%FF', `/items/?version=${'x'.repeat(5000)}`]) {
      const res = await get(app, url);
      expect([url.slice(0, 30), res.status, res.body]).toEqual([url.slice(0, 30), 404, { detail: 'Invalid version in query parameter.' }]);
      expect(res.headers['content-type']).toBe('application/json');
    }
  });

  it('404 when the parameter is missing, there is no default and ALLOWED_VERSIONS is set', async () => {
    const res = await get(app, '/no-default/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Invalid version in query parameter.' });
  });

  it('a repeated parameter counts by its last value, as DRF', async () => {
    const res = await get(app, '/items/?version=3.0&version=2.0');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/3/?version=2.0' });
    expect((await get(app, '/items/?version=2.0&version=3.0')).status).toBe(404);
  });

  it('with versioning on but no version and no default, links carry no ?version=', async () => {
    const res = await get(app, '/open/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: null, link: 'http://localhost/items/3/' });
  });

  it('links keep ?format= and sort the query by name, as DRF\'s replace_query_param', async () => {
    const res = await get(app, '/items/?version=2.0&format=json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/3/?format=json&version=2.0' });
  });

  it('a per-view versionParam names the query parameter and the link parameter', async () => {
    const res = await get(app, '/param/?api-version=2.0&version=9');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/3/?api-version=2.0' });
  });

  it('a version value is encoded in links', async () => {
    const res = await get(app, '/open/?version=a%20b%26c');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'a b&c', link: 'http://localhost/items/3/?version=a+b%26c' });
  });

  it('400 when the URL path or the Accept header names another version (REJECT_CONFLICTING_VERSIONS)', async () => {
    const p = await get(app, '/1.0/in-path/?version=2.0');
    expect(p.status).toBe(400);
    expect(p.body).toEqual({
      detail: 'Conflicting versions in the request: query parameter says "2.0", URL path says "1.0".',
    });
    const a = await get(app, '/items/?version=2.0', { accept: 'application/json; version=1.0' });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({
      detail: 'Conflicting versions in the request: query parameter says "2.0", "Accept" header says "1.0".',
    });
  });
});
