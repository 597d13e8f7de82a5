import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcceptHeaderVersioning, QueryParameterVersioning, URLPathVersioning, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

/** Off by default: each scheme reads its own place only, as DRF, and a `?version=` filter on a path-versioned API is just a filter. */
describe('two different versions in one request (REJECT_CONFLICTING_VERSIONS off, the default)', () => {
  class StrictPath extends URLPathVersioning {
    override rejectConflictingVersions = true;
  }
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp(
      [
        path('<version>/items/', versionView()),
        path('<version>/strict/', versionView({ versioningClass: StrictPath })),
        path('by-accept/', versionView({ versioningClass: AcceptHeaderVersioning })),
        path('<version>/by-query/', versionView({ versioningClass: QueryParameterVersioning })),
      ],
      { DEFAULT_VERSIONING_CLASS: URLPathVersioning, ALLOWED_VERSIONS: ['v1', 'v2'] },
    );
  });
  afterAll(() => app.close());

  it('URL path versioning answers the path version whatever ?version= or Accept say', async () => {
    const res = await get(app, '/v1/items/?version=v2', { accept: 'application/json; version=v2' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ version: 'v1' });
  });

  it('Accept-header and query-parameter versioning read only their own place', async () => {
    const accept = await get(app, '/by-accept/?version=v1', { accept: 'application/json; version=v2' });
    expect(accept).toMatchObject({ status: 200, body: { version: 'v2' } });
    const query = await get(app, '/v1/by-query/?version=v2');
    expect(query).toMatchObject({ status: 200, body: { version: 'v2' } });
  });

  it('a scheme with rejectConflictingVersions = true (the hardening switch) answers 400', async () => {
    const res = await get(app, '/v1/strict/?version=v2');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ detail: 'Conflicting versions in the request: URL path says "v1", query parameter says "v2".' });
  });
});
