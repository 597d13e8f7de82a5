import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostNameVersioning, path, type TrestleApp } from '../../src/index.js';
import { get, makeApp, versionView } from './helpers.js';

class ApiPrefixVersioning extends HostNameVersioning {
  override hostnameRegex = /^api-(v[0-9]+)\.example\.com$/;
}

describe('HostNameVersioning', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp(
      [
        path('items/', versionView({}, { name: 'items' }), { name: 'items' }),
        path('prefixed/', versionView({ versioningClass: ApiPrefixVersioning })),
      ],
      {
        DEFAULT_VERSIONING_CLASS: HostNameVersioning, REJECT_CONFLICTING_VERSIONS: true,
        DEFAULT_VERSION: 'v1',
        ALLOWED_VERSIONS: ['v1', 'v2'],
        ALLOWED_HOSTS: ['.example.com', 'localhost', '127.0.0.1', '[::1]'],
      },
    );
  });
  afterAll(() => app.close());

  it('the first label of the host is the version; Vary: Host; links keep the host', async () => {
    const res = await get(app, '/items/', { host: 'v2.example.com' });
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, Host, Cookie');
    expect(res.body).toEqual({ version: 'v2', link: 'http://v2.example.com/items/' });
  });

  it('the port is ignored', async () => {
    const res = await get(app, '/items/', { host: 'v2.example.com:8000' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 'v2', link: 'http://v2.example.com:8000/items/' });
  });

  it('IP addresses, localhost and hosts of another shape get the default version', async () => {
    for (const host of ['127.0.0.1', '127.0.0.1:8000', '[::1]', '[::1]:8000', 'localhost', 'a.v2.example.com', 'example.com', 'v2.example.com.']) {
      const res = await get(app, '/items/', { host });
      expect([host, res.status, res.body?.['version']]).toEqual([host, 200, 'v1']);
      expect(res.headers['vary']).toBe('Accept, Host, Cookie');
    }
  });

  it('404 with DRF\'s message for a version outside ALLOWED_VERSIONS (case-sensitive, as DRF)', async () => {
    for (const host of ['v3.example.com', 'V2.example.com', 'www.example.com:443']) {
      const res = await get(app, '/items/', { host });
      expect([host, res.status, res.body]).toEqual([host, 404, { detail: 'Invalid version in hostname.' }]);
      expect(res.headers['content-type']).toBe('application/json');
    }
  });

  it('a host outside ALLOWED_HOSTS is a 400 before any version is read', async () => {
    for (const host of ['v2.evil.org', `v2.${'a'.repeat(5000)}.com`, 'user@v2.example.com', 'v2.example.com:abc']) {
      const res = await get(app, '/items/', { host });
      expect([host.slice(0, 30), res.status]).toEqual([host.slice(0, 30), 400]);
      expect(res.headers['content-type']).toBe('application/json');
      expect(typeof res.body?.['detail']).toBe('string');
    }
  });

  it('hostnameRegex is configurable in a subclass', async () => {
    const a = await get(app, '/prefixed/', { host: 'api-v2.example.com' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ version: 'v2' });
    const b = await get(app, '/prefixed/', { host: 'v2.example.com' });
    expect(b.body).toEqual({ version: 'v1' });
  });

  it('400 when ?version= names another version than the host; ignored when the host names none (REJECT_CONFLICTING_VERSIONS)', async () => {
    const conflict = await get(app, '/items/?version=v1', { host: 'v2.example.com' });
    expect(conflict.status).toBe(400);
    expect(conflict.headers['vary']).toBe('Accept, Host') // refused before authentication reads the session;
    expect(conflict.body).toEqual({
      detail: 'Conflicting versions in the request: hostname says "v2", query parameter says "v1".',
    });
    const ip = await get(app, '/items/?version=v2', { host: '127.0.0.1' });
    expect(ip.status).toBe(200);
    expect(ip.body).toEqual({ version: 'v1', link: 'http://127.0.0.1/items/' });
  });
});
