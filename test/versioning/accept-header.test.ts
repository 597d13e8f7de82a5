import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcceptHeaderVersioning, JSONRenderer, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

class AcmeJSONRenderer extends JSONRenderer {
  override mediaType = 'application/vnd.acme+json';
  override format = 'acme';
}

describe('AcceptHeaderVersioning', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp(
      [
        path('items/', versionView({}, { name: 'items' }), { name: 'items' }),
        path('no-default/', versionView({ defaultVersion: null })),
        path('open/', versionView({ allowedVersions: null, defaultVersion: null })),
        path('acme/', versionView({ rendererClasses: [AcmeJSONRenderer] })),
        path('param/', versionView({ versionParam: 'v' })),
        path('<version>/path-items/', versionView()),
      ],
      {
        DEFAULT_VERSIONING_CLASS: AcceptHeaderVersioning, REJECT_CONFLICTING_VERSIONS: true,
        DEFAULT_VERSION: '1.0',
        ALLOWED_VERSIONS: ['1.0', '2.0'],
      },
    );
  });
  afterAll(() => app.close());

  it('reads an allowed version from the accepted media type and answers application/json with Vary: Accept', async () => {
    const res = await get(app, '/items/', { accept: 'application/json; version=2.0' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['vary']).toBe('Accept, Cookie');
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/' });
  });

  it('uses the default version when Accept has no version parameter', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/json; version', 'application/json; indent=2']) {
      const res = await get(app, '/items/', accept === undefined ? {} : { accept });
      expect(res.status).toBe(200);
      expect(res.headers['vary']).toBe('Accept, Cookie');
      expect(res.body).toEqual({ version: '1.0', link: 'http://localhost/items/' });
    }
  });

  it('406 for a version outside ALLOWED_VERSIONS, with DRF\'s message', async () => {
    const res = await get(app, '/items/', { accept: 'application/json; version=3.0' });
    expect(res.status).toBe(406);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['vary']).toBe('Accept') // versioning failed before authentication: the session was never read;
    expect(res.body).toEqual({ detail: 'Invalid version in "Accept" header.' });
  });

  it('406 when no version is sent, there is no default and ALLOWED_VERSIONS is set (DRF)', async () => {
    const res = await get(app, '/no-default/', { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ detail: 'Invalid version in "Accept" header.' });
  });

  it('an empty version is not an allowed version', async () => {
    const res = await get(app, '/items/', { accept: 'application/json; version=' });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ detail: 'Invalid version in "Accept" header.' });
  });

  it('without ALLOWED_VERSIONS any version passes, and none gives null', async () => {
    const a = await get(app, '/open/', { accept: 'application/json; version=banana' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ version: 'banana' });
    const b = await get(app, '/open/', { accept: 'application/json' });
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ version: null });
  });

  it('reads quoted, wildcard, upper-case and oddly punctuated parameters like DRF', async () => {
    const cases: [string, string][] = [
      ['application/json; version="2.0"', '2.0'],
      ['*/*; version=2.0', '2.0'],
      ['application/*; version=2.0', '2.0'],
      ['application/json;VERSION=2.0', '2.0'],
      ['application/json;;version=2.0;;', '2.0'],
      ['text/html, application/json; version=2.0; q=0.5', '2.0'],
    ];
    for (const [accept, version] of cases) {
      const res = await get(app, '/items/', { accept });
      expect([accept, res.status, res.body?.['version']]).toEqual([accept, 200, version]);
    }
  });

  it('content negotiation runs first: an Accept no renderer fits is a plain 406', async () => {
    const res = await get(app, '/items/', { accept: 'text/csv; version=2.0' });
    expect(res.status).toBe(406);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ detail: 'Could not satisfy the request Accept header.' });
  });

  it('a vendor media type carries the version and is the response Content-Type', async () => {
    const res = await get(app, '/acme/', { accept: 'application/vnd.acme+json; version=2.0' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.acme+json');
    expect(res.body).toEqual({ version: '2.0' });
  });

  it('a per-view versionParam names the media-type parameter', async () => {
    const a = await get(app, '/param/', { accept: 'application/json; v=2.0' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ version: '2.0' });
    const b = await get(app, '/param/', { accept: 'application/json; version=2.0' });
    expect(b.body).toEqual({ version: '1.0' });
  });

  it('a huge version value is a 406, not a crash', async () => {
    const res = await get(app, '/items/', { accept: `application/json; version=${'9'.repeat(8000)}` });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ detail: 'Invalid version in "Accept" header.' });
  });

  it('400 when ?version= or the URL path names a different version than Accept (REJECT_CONFLICTING_VERSIONS)', async () => {
    const q = await get(app, '/items/?version=1.0', { accept: 'application/json; version=2.0' });
    expect(q.status).toBe(400);
    expect(q.headers['vary']).toBe('Accept') // the conflict is found before authentication reads the session;
    expect(q.body).toEqual({
      detail: 'Conflicting versions in the request: "Accept" header says "2.0", query parameter says "1.0".',
    });
    const p = await get(app, '/1.0/path-items/', { accept: 'application/json; version=2.0' });
    expect(p.status).toBe(400);
    expect(p.body).toEqual({
      detail: 'Conflicting versions in the request: "Accept" header says "2.0", URL path says "1.0".',
    });
  });

  it('the same version in two places, or ?version= without an Accept version, is fine', async () => {
    const same = await get(app, '/items/?version=2.0', { accept: 'application/json; version=2.0' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ version: '2.0', link: 'http://localhost/items/' });
    const onlyQuery = await get(app, '/items/?version=2.0', { accept: 'application/json' });
    expect(onlyQuery.status).toBe(200);
    expect(onlyQuery.body).toEqual({ version: '1.0', link: 'http://localhost/items/' });
  });

  it('reverse keeps ?format= of the request and adds no version', async () => {
    const res = await get(app, '/items/?format=json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '1.0', link: 'http://localhost/items/?format=json' });
  });
});
