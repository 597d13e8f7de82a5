import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AcceptHeaderVersioning,
  QueryParameterVersioning,
  byVersion,
  path,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import { get, makeApp } from './helpers.js';

const greet = byVersion({ '1.0': () => ({ greeting: 'hello' }), '2.0': () => ({ message: { text: 'hello', lang: 'en' } }) });
const greetOrOld = byVersion({ '2.0': () => ({ message: 'new' }) }, () => ({ message: 'fallback' }));

class Greeting extends APIView {
  get(req: ApiRequest) {
    return greet(req)();
  }
}
class WithFallback extends APIView {
  get(req: ApiRequest) {
    return greetOrOld(req)();
  }
}

describe('byVersion', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp(
      [
        path('greeting/', Greeting),
        path('fallback/', WithFallback),
        path('accept/', Object.assign(new Greeting(), { versioningClass: AcceptHeaderVersioning })),
      ],
      { DEFAULT_VERSIONING_CLASS: QueryParameterVersioning },
    );
  });
  afterAll(() => app.close());

  it('picks the entry of the request version: v1 and v2 render the same resource differently', async () => {
    const v1 = await get(app, '/greeting/?version=1.0');
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ greeting: 'hello' });
    const v2 = await get(app, '/greeting/?version=2.0');
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ message: { text: 'hello', lang: 'en' } });
  });

  it('an unknown or missing version uses the fallback', async () => {
    expect((await get(app, '/fallback/?version=9')).body).toEqual({ message: 'fallback' });
    expect((await get(app, '/fallback/')).body).toEqual({ message: 'fallback' });
    expect((await get(app, '/fallback/?version=2.0')).body).toEqual({ message: 'new' });
  });

  it('without a fallback an unknown version is the scheme\'s invalid-version error, never a 500', async () => {
    for (const v of ['9', 'constructor', '__proto__', 'toString']) {
      const res = await get(app, `/greeting/?version=${v}`);
      expect([v, res.status, res.body]).toEqual([v, 404, { detail: 'Invalid version in query parameter.' }]);
    }
    const missing = await get(app, '/greeting/');
    expect(missing.status).toBe(404);
    const accept = await get(app, '/accept/', { accept: 'application/json; version=9' });
    expect(accept.status).toBe(406);
    expect(accept.body).toEqual({ detail: 'Invalid version in "Accept" header.' });
  });

  it('takes a version string as well as a request', () => {
    const pick = byVersion({ a: 1, b: 2 }, 0);
    expect([pick('a'), pick('b'), pick('c'), pick(null)]).toEqual([1, 2, 0, 0]);
    expect(() => byVersion({ a: 1 })('z')).toThrow('Invalid version.');
  });
});
