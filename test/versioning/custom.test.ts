import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BaseVersioning,
  XAPIVersionScheme,
  path,
  reverse,
  type ApiRequest,
  type ReverseParams,
  type TrestleApp,
  type Versioning,
} from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

/** A custom scheme that puts the version in URLs must override reverse. */
class PrefixVersioning extends BaseVersioning {
  determineVersion(req: ApiRequest): string | null {
    const m = /^\/api-([a-z0-9]+)\//.exec(req.path);
    return m ? m[1]! : this.defaultVersion;
  }
  override reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    const url = super.reverse(name, params, req);
    return req?.version ? url.replace('/api-any/', `/api-${req.version}/`) : url;
  }
}

/** The bare interface, without BaseVersioning. */
class ConstantVersioning implements Versioning {
  determineVersion(): string {
    return 'fixed';
  }
  reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    return reverse(name, params, { request: req, versioned: false });
  }
}

class ClientVersioning extends XAPIVersionScheme {
  override headerName = 'X-Client-Version';
}

describe('custom versioning schemes', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp([
      path('items/', versionView({ versioningClass: XAPIVersionScheme }, { name: 'items' }), { name: 'items' }),
      path('limited/', versionView({ versioningClass: XAPIVersionScheme, allowedVersions: ['1.0', '2.0'] })),
      path('client/', versionView({ versioningClass: ClientVersioning })),
      path('api-<ver>/things/', versionView({ versioningClass: PrefixVersioning }, { name: 'things', params: { ver: 'any' } }), {
        name: 'things',
      }),
      path('constant/', versionView({ versioningClass: ConstantVersioning })),
    ]);
  });
  afterAll(() => app.close());

  it('XAPIVersionScheme reads X-API-Version and adds Vary: X-API-Version', async () => {
    const res = await get(app, '/items/', { 'x-api-version': '2.0' });
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, X-API-Version, Cookie');
    expect(res.body).toEqual({ version: '2.0', link: 'http://localhost/items/' });
  });

  it('XAPIVersionScheme gives null when the header is absent, even with a default version', async () => {
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, X-API-Version, Cookie');
    expect(res.body).toEqual({ version: null, link: 'http://localhost/items/' });
  });

  it('XAPIVersionScheme refuses a version outside allowedVersions with a 404', async () => {
    const bad = await get(app, '/limited/', { 'x-api-version': '3.0' });
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ detail: 'Invalid version in "X-API-Version" header.' });
    expect((await get(app, '/limited/', { 'x-api-version': '1.0' })).body).toEqual({ version: '1.0' });
  });

  it('a subclass renames the header, and Vary follows', async () => {
    const res = await get(app, '/client/', { 'x-client-version': '5', 'x-api-version': '9' });
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, X-Client-Version, Cookie');
    expect(res.body).toEqual({ version: '5' });
  });

  it('a custom URL scheme\'s reverse rewrites links with the request version', async () => {
    const res = await get(app, '/api-v3/things/');
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, Cookie'); // negotiation and the session (default SessionAuthentication); the scheme reads no header
    expect(res.body).toEqual({ version: 'v3', link: 'http://localhost/api-v3/things/' });
  });

  it('a scheme implementing only the Versioning interface works', async () => {
    const res = await get(app, '/constant/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'fixed' });
  });
});
