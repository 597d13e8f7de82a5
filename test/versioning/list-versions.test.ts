import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AcceptHeaderVersioning,
  HostNameVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
  XAPIVersionScheme,
  createApp,
  listVersions,
  path,
  type TrestleApp,
  type VersionDeprecation,
} from '../../src/index.js';

class Deprecating extends URLPathVersioning {
  override deprecatedVersions: Record<string, VersionDeprecation> = { v1: { since: new Date(0) } };
}
class View extends APIView {
  get() {
    return {};
  }
}
const view = (config: Partial<View>) => Object.assign(new View(), config);

describe('listVersions (for the OpenAPI generator)', () => {
  let app: TrestleApp;
  const views = {
    off: view({}),
    path: view({ versioningClass: Deprecating, allowedVersions: ['v1', 'v2'], defaultVersion: 'v2' }),
    query: view({ versioningClass: QueryParameterVersioning, versionParam: 'api', defaultVersion: 'v0', allowedVersions: ['v1'] }),
    accept: view({ versioningClass: AcceptHeaderVersioning }),
    host: view({ versioningClass: HostNameVersioning }),
    namespace: view({ versioningClass: NamespaceVersioning }),
    header: view({ versioningClass: XAPIVersionScheme }),
  };
  beforeAll(async () => {
    app = await createApp({ logger: false, routes: Object.entries(views).map(([name, v]) => path(`${name}/`, v)) });
  });
  afterAll(() => app.close());

  it('describes where each scheme reads the version and which versions exist', () => {
    expect(listVersions(views.off)).toBeNull();
    expect(listVersions(views.path)).toEqual({
      scheme: 'Deprecating',
      location: 'path',
      name: 'version',
      defaultVersion: 'v2',
      allowedVersions: ['v1', 'v2'],
      versions: ['v1', 'v2'],
      deprecated: { v1: { since: new Date(0) } },
    });
    expect(listVersions(views.query)).toMatchObject({ location: 'query', name: 'api', versions: ['v1', 'v0'] });
    expect(listVersions(views.accept)).toMatchObject({ location: 'media-type', name: 'version', versions: [], allowedVersions: null });
    expect(listVersions(views.host)).toMatchObject({ location: 'host', name: null });
    expect(listVersions(views.namespace)).toMatchObject({ location: 'namespace', name: null });
    expect(listVersions(views.header)).toMatchObject({ location: 'header', name: 'X-API-Version' });
  });
});
