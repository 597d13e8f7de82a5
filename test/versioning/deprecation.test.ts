import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  Response,
  URLPathVersioning,
  deprecationHeaders,
  path,
  type ApiRequest,
  type TrestleApp,
  type VersionDeprecation,
} from '../../src/index.js';
import { get, makeApp } from './helpers.js';

class DeprecatingVersioning extends URLPathVersioning {
  override allowedVersions = ['v1', 'v2', 'v3'];
  override deprecatedVersions: Record<string, VersionDeprecation> = {
    v1: {
      since: new Date('2025-01-01T00:00:00Z'),
      sunset: new Date('2026-06-30T23:59:59Z'),
      link: 'https://docs.example.com/migrate',
    },
    v2: { since: new Date('2026-01-15T12:00:00Z') },
  };
}

class Items extends APIView {
  override versioningClass = DeprecatingVersioning;
  get(req: ApiRequest) {
    if (req.query['fail'] !== undefined) throw new Error('boom');
    if (req.query['link'] !== undefined) {
      return new Response({ version: req.version }, { headers: { Link: '<http://localhost/next/>; rel="next"' } });
    }
    return { version: req.version };
  }
}

describe('deprecated versions', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp([path('<version>/items/', Items)]);
  });
  afterAll(() => app.close());

  it('responses for a deprecated version carry Deprecation, Sunset and Link', async () => {
    const res = await get(app, '/v1/items/');
    expect(res.status).toBe(200);
    expect(res.headers['deprecation']).toBe('@1735689600');
    expect(res.headers['sunset']).toBe('Tue, 30 Jun 2026 23:59:59 GMT');
    expect(res.headers['link']).toBe('<https://docs.example.com/migrate>; rel="deprecation"');
    expect(res.body).toEqual({ version: 'v1' });
  });

  it('only the headers that are configured are sent', async () => {
    const res = await get(app, '/v2/items/');
    expect(res.status).toBe(200);
    expect(res.headers['deprecation']).toBe('@1768478400');
    expect(res.headers['sunset']).toBeUndefined();
    expect(res.headers['link']).toBeUndefined();
  });

  it('a current version has no deprecation headers', async () => {
    const res = await get(app, '/v3/items/');
    expect(res.status).toBe(200);
    expect(res.headers['deprecation']).toBeUndefined();
    expect(res.headers['sunset']).toBeUndefined();
    expect(res.headers['link']).toBeUndefined();
  });

  it('an invalid version gets its 404 without deprecation headers', async () => {
    const res = await get(app, '/v0/items/');
    expect(res.status).toBe(404);
    expect(res.headers['deprecation']).toBeUndefined();
    expect(res.body).toEqual({ detail: 'Invalid version in URL path.' });
  });

  it('a Link the handler set is kept and the deprecation link appended', async () => {
    const res = await get(app, '/v1/items/?link');
    expect(res.status).toBe(200);
    expect(res.headers['link']).toBe('<http://localhost/next/>; rel="next", <https://docs.example.com/migrate>; rel="deprecation"');
  });

  it('a 500 for a deprecated version still announces the deprecation', async () => {
    const res = await get(app, '/v1/items/?fail');
    expect(res.status).toBe(500);
    expect(res.headers['deprecation']).toBe('@1735689600');
    expect(res.body).toEqual({ detail: 'A server error occurred.' });
  });

  it('deprecationHeaders formats RFC 9745 and RFC 8594 values', () => {
    expect(deprecationHeaders({ since: new Date(1500), sunset: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)), link: 'https://x.test/a' })).toEqual({
      Deprecation: '@1',
      Sunset: 'Wed, 02 Jan 2030 03:04:05 GMT',
      Link: '<https://x.test/a>; rel="deprecation"',
    });
  });
});
