import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AllowAny,
  BasicAuthentication,
  IsAuthenticated,
  TokenAuthentication,
  path,
  pythonB64decode,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import { appWith, authFixture, basic, type AuthFixture } from './helpers.js';

class Protected extends APIView {
  override authenticationClasses = [BasicAuthentication, TokenAuthentication];
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { username: req.user.username, auth: req.auth ?? null };
  }
}

class Open extends APIView {
  override authenticationClasses = [BasicAuthentication];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    return { authenticated: req.user.isAuthenticated };
  }
}

class StaffRealm extends BasicAuthentication {
  override realm = 'staff';
}
class RealmView extends Protected {
  override authenticationClasses = [StaffRealm];
}

const BASIC_401 = { 'www-authenticate': 'Basic realm="api"', 'content-type': 'application/json' };

describe('BasicAuthentication', () => {
  let fx: AuthFixture;
  let app: TrestleApp;

  beforeAll(async () => {
    fx = await authFixture();
    app = await appWith(fx, {
      routes: [path('protected/', Protected), path('open/', Open), path('realm/', RealmView)],
    });
  });
  afterAll(async () => {
    await app.close();
    await fx.close();
  });

  const get = (url: string, authorization?: string) =>
    app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

  it('good credentials authenticate the user with auth null', async () => {
    const res = await get('/protected/', basic('alice', 's3cret'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json()).toEqual({ username: 'alice', auth: null });
  });

  it('the keyword is case-insensitive and extra whitespace is ignored, as bytes.split()', async () => {
    const creds = Buffer.from('alice:s3cret').toString('base64');
    const res = await get('/protected/', `  bAsIc \t ${creds}  `);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ username: 'alice', auth: null });
  });

  it('no Authorization header: 401 with the first scheme\'s WWW-Authenticate', async () => {
    const res = await get('/protected/');
    expect(res.statusCode).toBe(401);
    expect(res.headers).toMatchObject(BASIC_401);
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it.each([
    ['Basic', 'Invalid basic header. No credentials provided.'],
    ['Basic a b', 'Invalid basic header. Credentials string should not contain spaces.'],
    ['Basic !!!notbase64', 'Invalid basic header. Credentials not correctly base64 encoded.'],
    ['Basic YWxpY2U', 'Invalid basic header. Credentials not correctly base64 encoded.'], // bad padding
    ['Basic a', 'Invalid basic header. Credentials not correctly base64 encoded.'], // 1 more than a multiple of 4
    [`Basic ${Buffer.from('nocolon').toString('base64')}`, 'Invalid basic header. Credentials not correctly base64 encoded.'],
    [basic('alice', 'wrong'), 'Invalid username/password.'],
    [basic('nobody', 's3cret'), 'Invalid username/password.'],
    [basic('carol', 'carolpw'), 'Invalid username/password.'], // inactive: the store refuses, as ModelBackend
    [basic('al\0ice', 's3cret'), 'Invalid username/password.'],
  ])('%s -> 401 %s', async (header, detail) => {
    const res = await get('/protected/', header);
    expect(res.statusCode).toBe(401);
    expect(res.headers).toMatchObject(BASIC_401);
    expect(res.json()).toEqual({ detail });
  });

  it('a scheme that fails ends the request even on an AllowAny view', async () => {
    const res = await get('/open/', basic('alice', 'wrong'));
    expect(res.statusCode).toBe(401);
    expect(res.headers).toMatchObject(BASIC_401);
    expect(res.json()).toEqual({ detail: 'Invalid username/password.' });
    const anon = await get('/open/');
    expect(anon.statusCode).toBe(200);
    expect(anon.json()).toEqual({ authenticated: false });
  });

  it('another keyword is not attempted: the next scheme (Token) answers', async () => {
    const res = await get('/protected/', 'Token abc');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
    expect(res.json()).toEqual({ detail: 'Invalid token.' });
  });

  it('the realm is configurable in a subclass', async () => {
    const res = await get('/realm/');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="staff"');
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('non-UTF-8 credentials are decoded as latin-1, as DRF retries', async () => {
    const user = await fx.users.createUser({ username: 'jos\u00e9', password: 'pw' });
    const res = await get('/protected/', basic('jos\u00e9', 'pw', 'latin1'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ username: user.username, auth: null });
    const utf8 = await get('/protected/', basic('jos\u00e9', 'pw'));
    expect(utf8.statusCode).toBe(200);
  });

  it('messages are attributes a subclass can change', async () => {
    class Polite extends BasicAuthentication {
      override invalidCredentialsMessage = 'Nope.';
    }
    class PoliteView extends Protected {
      override authenticationClasses = [Polite];
    }
    const polite = await appWith(fx, { routes: [path('p/', PoliteView)] });
    const res = await polite.inject({ url: '/p/', headers: { authorization: basic('alice', 'x') } });
    await polite.close();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'Nope.' });
  });
});

describe("pythonB64decode matches Python's base64.b64decode", () => {
  const text = (s: string) => {
    const out = pythonB64decode(s);
    return out === null ? null : Buffer.from(out).toString('latin1');
  };
  it.each([
    ['YWxpY2U6czNjcmV0', 'alice:s3cret'],
    ['YWxp Y2U6\nczNjcmV0', 'alice:s3cret'], // non-alphabet characters are skipped
    ['YQ==', 'a'],
    ['YQ==trailing', 'a'], // decoding stops at complete padding
    ['YWI=', 'ab'],
    ['', ''],
  ])('%j -> %j', (input, expected) => {
    expect(text(input)).toBe(expected);
  });
  it.each(['YQ', 'YQ=', 'a', 'abcde'])('%j is an error', (input) => {
    expect(text(input)).toBeNull();
  });
});
