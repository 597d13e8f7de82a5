import { afterEach, describe, expect, it } from 'vitest';
import { QueryParameterVersioning, URLPathVersioning, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

describe('versioning settings and per-view overrides', () => {
  let app: TrestleApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('is off by default: request.version is null whatever the request says, and Vary only from negotiation', async () => {
    app = await makeApp([path('<version>/items/', versionView()), path('items/', versionView())]);
    for (const [url, headers] of [
      ['/v2/items/', {}],
      ['/items/?version=v2', {}],
      ['/items/', { accept: 'application/json; version=v2', host: 'v2.localhost' }],
    ] as const) {
      const res = await get(app, url, headers);
      expect([url, res.status, res.body]).toEqual([url, 200, { version: null }]);
      expect(res.headers['vary']).toBe('Accept, Cookie'); // negotiation and the session (default SessionAuthentication); the scheme reads no header
    }
  });

  it('a view with versioningClass null opts out of DEFAULT_VERSIONING_CLASS', async () => {
    app = await makeApp(
      [path('on/', versionView()), path('off/', versionView({ versioningClass: null }))],
      { DEFAULT_VERSIONING_CLASS: QueryParameterVersioning, DEFAULT_VERSION: 'v1', ALLOWED_VERSIONS: ['v1'] },
    );
    expect((await get(app, '/on/?version=v9')).status).toBe(404);
    const off = await get(app, '/off/?version=v9');
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ version: null });
  });

  it('a view with versioningClass turns versioning on when the setting is off', async () => {
    app = await makeApp([path('<version>/items/', versionView({ versioningClass: URLPathVersioning }))]);
    const res = await get(app, '/v7/items/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v7' });
  });

  it('per-view defaultVersion and allowedVersions replace the settings for that view only', async () => {
    app = await makeApp(
      [
        path('global/', versionView()),
        path('own/', versionView({ defaultVersion: '2.0', allowedVersions: ['2.0', '3.0'] })),
      ],
      { DEFAULT_VERSIONING_CLASS: QueryParameterVersioning, DEFAULT_VERSION: '1.0', ALLOWED_VERSIONS: ['1.0'] },
    );
    expect((await get(app, '/own/')).body).toEqual({ version: '2.0' });
    expect((await get(app, '/own/?version=3.0')).body).toEqual({ version: '3.0' });
    const own1 = await get(app, '/own/?version=1.0');
    expect(own1.status).toBe(404);
    expect(own1.body).toEqual({ detail: 'Invalid version in query parameter.' });
    expect((await get(app, '/global/')).body).toEqual({ version: '1.0' });
    expect((await get(app, '/global/?version=3.0')).status).toBe(404);
  });

  it('the default version is allowed even when ALLOWED_VERSIONS does not list it', async () => {
    app = await makeApp([path('items/', versionView())], {
      DEFAULT_VERSIONING_CLASS: QueryParameterVersioning,
      DEFAULT_VERSION: 'v0',
      ALLOWED_VERSIONS: ['v1'],
    });
    expect((await get(app, '/items/?version=v0')).body).toEqual({ version: 'v0' });
    expect((await get(app, '/items/?version=v1')).body).toEqual({ version: 'v1' });
    expect((await get(app, '/items/?version=v2')).status).toBe(404);
  });

  it('an empty ALLOWED_VERSIONS list allows any version, as DRF (an empty list is falsy in Python)', async () => {
    app = await makeApp([path('items/', versionView())], {
      DEFAULT_VERSIONING_CLASS: QueryParameterVersioning,
      ALLOWED_VERSIONS: [],
    });
    expect((await get(app, '/items/?version=anything')).body).toEqual({ version: 'anything' });
    expect((await get(app, '/items/')).body).toEqual({ version: null });
  });

  it('VERSION_PARAM renames the parameter for every scheme that reads one', async () => {
    app = await makeApp([path('items/', versionView())], {
      DEFAULT_VERSIONING_CLASS: QueryParameterVersioning,
      VERSION_PARAM: 'v',
    });
    expect((await get(app, '/items/?v=2&version=3')).body).toEqual({ version: '2' });
  });

  it('a prototype name as the version is just a string (no Object.prototype lookups)', async () => {
    app = await makeApp([path('items/', versionView())], {
      DEFAULT_VERSIONING_CLASS: QueryParameterVersioning,
      VERSION_PARAM: 'constructor',
    });
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: null });
  });
});
