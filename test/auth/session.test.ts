import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AllowAny,
  IsAuthenticated,
  SessionAuthentication,
  TokenAuthentication,
  authRoutes,
  path,
  unmaskCipherToken,
  type ApiRequest,
  type AuthenticationClass,
  type TrestleApp,
} from '../../src/index.js';
import { appWith, authFixture, setCookieLine, setCookies, type AuthFixture } from './helpers.js';

class WhoAmI extends APIView {
  override authenticationClasses: AuthenticationClass[] = [SessionAuthentication];
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { username: req.user.username };
  }
  post(req: ApiRequest) {
    return { username: req.user.username, data: req.data };
  }
  delete() {
    return { deleted: true };
  }
}

class OpenWrite extends APIView {
  override authenticationClasses = [SessionAuthentication];
  override permissionClasses = [AllowAny];
  post(req: ApiRequest) {
    return { authenticated: req.user.isAuthenticated };
  }
}

class SessionThenToken extends WhoAmI {
  override authenticationClasses = [SessionAuthentication, TokenAuthentication];
}

interface Browser {
  sessionid: string;
  csrftoken: string;
  /** A masked token for the X-CSRFToken header. */
  token: string;
  cookie: string;
}

describe('SessionAuthentication, CSRF and the login views', () => {
  let fx: AuthFixture;
  let app: TrestleApp;
  let https: TrestleApp;

  const routes = [
    authRoutes(),
    path('whoami/', WhoAmI),
    path('open/', OpenWrite),
    path('session-token/', SessionThenToken),
  ];

  beforeAll(async () => {
    fx = await authFixture();
    app = await appWith(fx, { routes });
    https = await appWith(fx, { routes, settings: { TRUSTED_PROXIES: ['127.0.0.1'], SECURE_PROXY_SSL_HEADER: ['HTTP_X_FORWARDED_PROTO', 'https'] } });
  });
  afterAll(async () => {
    await app.close();
    await https.close();
    await fx.close();
  });

  async function csrf(target = app): Promise<{ csrftoken: string; token: string }> {
    const res = await target.inject({ method: 'GET', url: '/api-auth/login/' });
    return { csrftoken: setCookies(res.headers)['csrftoken']!, token: res.json().csrfToken };
  }

  async function loginAs(username = 'alice', password = 's3cret'): Promise<Browser> {
    const { csrftoken, token } = await csrf();
    const res = await app.inject({
      method: 'POST',
      url: '/api-auth/login/',
      headers: { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token },
      payload: { username, password },
    });
    expect(res.statusCode).toBe(200);
    const cookies = setCookies(res.headers);
    return {
      sessionid: cookies['sessionid']!,
      csrftoken: cookies['csrftoken']!,
      token: res.json().csrfToken,
      cookie: `sessionid=${cookies['sessionid']}; csrftoken=${cookies['csrftoken']}`,
    };
  }

  describe('GET /api-auth/login/', () => {
    it('sets the csrftoken cookie and returns a masked token that carries its secret', async () => {
      const res = await app.inject({ method: 'GET', url: '/api-auth/login/' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const line = setCookieLine(res.headers, 'csrftoken')!;
      expect(line).toMatch(/^csrftoken=[a-zA-Z0-9]{32}; Max-Age=31449600; Path=\/; Expires=.+; SameSite=Lax$/);
      expect(line).not.toMatch(/HttpOnly/);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['csrfToken']);
      expect(body.csrfToken).toMatch(/^[a-zA-Z0-9]{64}$/);
      expect(unmaskCipherToken(body.csrfToken)).toBe(setCookies(res.headers)['csrftoken']);
    });

    it('keeps an existing valid secret and masks it differently each time', async () => {
      const { csrftoken } = await csrf();
      const a = await app.inject({ url: '/api-auth/login/', headers: { cookie: `csrftoken=${csrftoken}` } });
      const b = await app.inject({ url: '/api-auth/login/', headers: { cookie: `csrftoken=${csrftoken}` } });
      expect(setCookies(a.headers)['csrftoken']).toBe(csrftoken);
      expect(a.json().csrfToken).not.toBe(b.json().csrfToken);
      expect(unmaskCipherToken(a.json().csrfToken)).toBe(csrftoken);
      expect(unmaskCipherToken(b.json().csrfToken)).toBe(csrftoken);
    });

    it('browsers get an HTML form with the token and a safe next only', async () => {
      const res = await app.inject({
        url: '/api-auth/login/?next=/items/%3Cx%3E',
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toMatch(/<input type="hidden" name="csrfmiddlewaretoken" value="[a-zA-Z0-9]{64}">/);
      expect(res.body).toContain('name="next" value="/items/&lt;x&gt;"');
      const evil = await app.inject({ url: '/api-auth/login/?next=//evil.example/', headers: { accept: 'text/html' } });
      expect(evil.body).toContain('name="next" value=""');
    });
  });

  describe('POST /api-auth/login/ always enforces CSRF', () => {
    it('no cookie: 403 CSRF cookie not set', async () => {
      const res = await app.inject({ method: 'POST', url: '/api-auth/login/', payload: { username: 'alice', password: 's3cret' } });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' });
      expect(setCookies(res.headers)['sessionid']).toBeUndefined();
    });

    it('cookie but no token: 403 CSRF token missing', async () => {
      const { csrftoken } = await csrf();
      const res = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `csrftoken=${csrftoken}` },
        payload: { username: 'alice', password: 's3cret' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
    });

    it('JSON login: session cookie (HttpOnly, Lax), rotated CSRF secret, new token in the body', async () => {
      const { csrftoken, token } = await csrf();
      const res = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token },
        payload: { username: 'alice', password: 's3cret' },
      });
      expect(res.statusCode).toBe(200);
      const session = setCookieLine(res.headers, 'sessionid')!;
      expect(session).toMatch(/^sessionid=[a-z0-9]{32}; Max-Age=1209600; Path=\/; Expires=.+; HttpOnly; SameSite=Lax$/);
      const cookies = setCookies(res.headers);
      expect(cookies['csrftoken']).toMatch(/^[a-zA-Z0-9]{32}$/);
      expect(cookies['csrftoken']).not.toBe(csrftoken);
      expect(res.json()).toEqual({ username: 'alice', csrfToken: expect.stringMatching(/^[a-zA-Z0-9]{64}$/) });
      expect(unmaskCipherToken(res.json().csrfToken)).toBe(cookies['csrftoken']);
    });

    it('form login with the csrfmiddlewaretoken field redirects to a same-site next only', async () => {
      const { csrftoken, token } = await csrf();
      const post = (next: string) =>
        app.inject({
          method: 'POST',
          url: '/api-auth/login/',
          headers: { cookie: `csrftoken=${csrftoken}`, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ username: 'alice', password: 's3cret', csrfmiddlewaretoken: token, next }).toString(),
        });
      const ok = await post('/items/?page=2');
      expect(ok.statusCode).toBe(302);
      expect(ok.headers['location']).toBe('/items/?page=2');
      expect(setCookies(ok.headers)['sessionid']).toMatch(/^[a-z0-9]{32}$/);
      for (const bad of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
        const res = await post(bad);
        expect(res.statusCode).toBe(302);
        expect(res.headers['location']).toBe('/');
      }
    });

    it('wrong credentials: 400 with Django\'s message and no session; missing fields: 400 per field', async () => {
      const { csrftoken, token } = await csrf();
      const headers = { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token };
      const bad = await app.inject({ method: 'POST', url: '/api-auth/login/', headers, payload: { username: 'alice', password: 'nope' } });
      expect(bad.statusCode).toBe(400);
      expect(setCookies(bad.headers)['sessionid']).toBeUndefined();
      expect(bad.json()).toMatchObject({
        non_field_errors: ['Please enter a correct username and password. Note that both fields may be case-sensitive.'],
      });
      const missing = await app.inject({ method: 'POST', url: '/api-auth/login/', headers, payload: { username: 'alice' } });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ password: ['This field is required.'] });
      const inactive = await app.inject({ method: 'POST', url: '/api-auth/login/', headers, payload: { username: 'carol', password: 'carolpw' } });
      expect(inactive.statusCode).toBe(400);
    });

    it('a malformed JSON body after a good CSRF check is a 400 parse error, not a 500', async () => {
      const { csrftoken, token } = await csrf();
      const res = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token, 'content-type': 'application/json' },
        payload: '{"username": ',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/^JSON parse error/);
    });

    it('rotates the session id: a session id planted before login is not the one logged in', async () => {
      const first = await loginAs();
      const { csrftoken, token } = await csrf();
      const res = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `sessionid=${first.sessionid}; csrftoken=${csrftoken}`, 'x-csrftoken': token },
        payload: { username: 'admin', password: 'adminpw' },
      });
      expect(res.statusCode).toBe(200);
      const second = setCookies(res.headers)['sessionid']!;
      expect(second).not.toBe(first.sessionid);
      const old = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${first.sessionid}` } });
      expect(old.statusCode).toBe(403);
      const now = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${second}` } });
      expect(now.json()).toEqual({ username: 'admin' });
    });
  });

  describe('session-authenticated requests', () => {
    let b: Browser;
    beforeAll(async () => {
      b = await loginAs();
    });

    it('safe methods need no CSRF token', async () => {
      const res = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${b.sessionid}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ username: 'alice' });
    });

    it('unsafe methods with the X-CSRFToken header pass (masked or bare secret)', async () => {
      for (const token of [b.token, b.csrftoken]) {
        const res = await app.inject({
          method: 'POST',
          url: '/whoami/',
          headers: { cookie: b.cookie, 'x-csrftoken': token },
          payload: { a: 1 },
        });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ username: 'alice', data: { a: 1 } });
      }
      const del = await app.inject({ method: 'DELETE', url: '/whoami/', headers: { cookie: b.cookie, 'x-csrftoken': b.token } });
      expect(del.statusCode).toBe(200);
    });

    it.each([
      ['no CSRF cookie', (x: Browser) => ({ cookie: `sessionid=${x.sessionid}`, 'x-csrftoken': x.token }), 'CSRF cookie not set.'],
      ['no token', (x: Browser) => ({ cookie: x.cookie }), 'CSRF token missing.'],
      [
        'a wrong token',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': 'a'.repeat(64) }),
        "CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
      ],
      [
        'a token of the wrong length',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': 'abc' }),
        "CSRF token from the 'X-Csrftoken' HTTP header has incorrect length.",
      ],
      [
        'a token with invalid characters',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': '!'.repeat(32) }),
        "CSRF token from the 'X-Csrftoken' HTTP header has invalid characters.",
      ],
      [
        'a malformed cookie',
        (x: Browser) => ({ cookie: `sessionid=${x.sessionid}; csrftoken=short`, 'x-csrftoken': x.token }),
        'CSRF cookie has incorrect length.',
      ],
      [
        'a cross-site Origin',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': x.token, origin: 'https://evil.example' }),
        'Origin checking failed - https://evil.example does not match any trusted origins.',
      ],
      [
        'Origin null',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': x.token, origin: 'null' }),
        'Origin checking failed - null does not match any trusted origins.',
      ],
      [
        'Sec-Fetch-Site: cross-site',
        (x: Browser) => ({ cookie: x.cookie, 'x-csrftoken': x.token, 'sec-fetch-site': 'cross-site' }),
        'Sec-Fetch-Site checking failed - the request is cross-site.',
      ],
    ])('%s: 403 CSRF Failed', async (_name, headers, reason) => {
      const res = await app.inject({ method: 'POST', url: '/whoami/', headers: headers(b), payload: {} });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: `CSRF Failed: ${reason}` });
    });

    it('a same-origin Origin passes', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/whoami/',
        headers: { cookie: b.cookie, 'x-csrftoken': b.token, origin: 'http://localhost:80' },
        payload: {},
      });
      expect(res.statusCode).toBe(200);
    });

    it('content types do not bypass CSRF: text/plain and form posts still need the token', async () => {
      const plain = await app.inject({
        method: 'POST',
        url: '/whoami/',
        headers: { cookie: b.cookie, 'content-type': 'text/plain' },
        payload: 'csrfmiddlewaretoken=' + b.token,
      });
      expect(plain.statusCode).toBe(403);
      expect(plain.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
      const upper = await app.inject({
        method: 'POST',
        url: '/whoami/',
        headers: { cookie: b.cookie, 'content-type': 'APPLICATION/X-WWW-FORM-URLENCODED' },
        payload: 'a=1',
      });
      expect(upper.statusCode).toBe(403);
      expect(upper.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
      const crossSiteForm = await app.inject({
        method: 'POST',
        url: '/whoami/',
        headers: { cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        payload: `csrfmiddlewaretoken=${b.token}`,
      });
      expect(crossSiteForm.statusCode).toBe(403);
      expect(crossSiteForm.json()).toEqual({
        detail: 'CSRF Failed: Origin checking failed - https://evil.example does not match any trusted origins.',
      });
    });

    it('the form field is read from form bodies, media type compared case-insensitively', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/whoami/',
        headers: { cookie: b.cookie, 'content-type': 'Application/X-WWW-Form-URLEncoded; charset=UTF-8' },
        payload: `csrfmiddlewaretoken=${b.token}&a=1`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ username: 'alice', data: { csrfmiddlewaretoken: b.token, a: '1' } });
    });

    it('anonymous unsafe requests never need a CSRF token', async () => {
      const res = await app.inject({ method: 'POST', url: '/open/', payload: {} });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ authenticated: false });
      const forged = await app.inject({ method: 'POST', url: '/open/', headers: { cookie: 'sessionid=' + 'x'.repeat(32) }, payload: {} });
      expect(forged.statusCode).toBe(200);
      expect(forged.json()).toEqual({ authenticated: false });
    });

    it('an inactive user\'s session does not authenticate', async () => {
      const carolish = await fx.users.createUser({ username: 'dave', password: 'davepw' });
      const d = await loginAs('dave', 'davepw');
      await fx.users.update(carolish.pk, { isActive: false });
      const res = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${d.sessionid}` } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it('[Session, Token] without credentials: 403 and no WWW-Authenticate', async () => {
      const res = await app.inject({ url: '/session-token/' });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });
  });

  describe('over HTTPS (X-Forwarded-Proto from a trusted proxy)', () => {
    async function httpsLogin(): Promise<{ cookie: string; token: string; sessionLine: string }> {
      const { csrftoken, token } = await csrf(https);
      const res = await https.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: {
          cookie: `csrftoken=${csrftoken}`,
          'x-csrftoken': token,
          'x-forwarded-proto': 'https',
          host: 'localhost',
          referer: 'https://localhost/api-auth/login/',
        },
        payload: { username: 'alice', password: 's3cret' },
      });
      expect(res.statusCode).toBe(200);
      const c = setCookies(res.headers);
      return { cookie: `sessionid=${c['sessionid']}; csrftoken=${c['csrftoken']}`, token: res.json().csrfToken, sessionLine: setCookieLine(res.headers, 'sessionid')! };
    }

    it('the session cookie is Secure', async () => {
      const { sessionLine } = await httpsLogin();
      expect(sessionLine).toMatch(/; Secure/);
    });

    it.each([
      [undefined, 'Referer checking failed - no Referer.'],
      ['not a url', 'Referer checking failed - Referer is malformed.'],
      ['http://localhost/page/', 'Referer checking failed - Referer is insecure while host is secure.'],
      ['https://evil.example/page/', 'Referer checking failed - https://evil.example/page/ does not match any trusted origins.'],
    ])('Referer %s: 403', async (referer, reason) => {
      const s = await httpsLogin();
      const headers: Record<string, string> = { cookie: s.cookie, 'x-csrftoken': s.token, 'x-forwarded-proto': 'https', host: 'localhost' };
      if (referer !== undefined) headers['referer'] = referer;
      const res = await https.inject({ method: 'POST', url: '/whoami/', headers, payload: {} });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: `CSRF Failed: ${reason}` });
    });

    it('a same-host HTTPS Referer or a matching Origin passes', async () => {
      const s = await httpsLogin();
      const base = { cookie: s.cookie, 'x-csrftoken': s.token, 'x-forwarded-proto': 'https', host: 'localhost' };
      const byReferer = await https.inject({ method: 'POST', url: '/whoami/', headers: { ...base, referer: 'https://localhost/x/' }, payload: {} });
      expect(byReferer.statusCode).toBe(200);
      const byOrigin = await https.inject({ method: 'POST', url: '/whoami/', headers: { ...base, origin: 'https://localhost' }, payload: {} });
      expect(byOrigin.statusCode).toBe(200);
    });

    it('CSRF_TRUSTED_ORIGINS admits another origin, wildcards for subdomains', async () => {
      const trusted = await appWith(fx, {
        routes,
        settings: { TRUSTED_PROXIES: ['127.0.0.1'], SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto', 'https'], CSRF_TRUSTED_ORIGINS: ['https://*.example.com', 'https://app.example.org'] },
      });
      try {
        const { csrftoken, token } = await csrf(trusted);
        const res = await trusted.inject({
          method: 'POST',
          url: '/api-auth/login/',
          headers: { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token, 'x-forwarded-proto': 'https', origin: 'https://app.example.org' },
          payload: { username: 'alice', password: 's3cret' },
        });
        expect(res.statusCode).toBe(200);
        const c = setCookies(res.headers);
        const headers = {
          cookie: `sessionid=${c['sessionid']}; csrftoken=${c['csrftoken']}`,
          'x-csrftoken': res.json().csrfToken,
          'x-forwarded-proto': 'https',
        };
        const sub = await trusted.inject({ method: 'POST', url: '/whoami/', headers: { ...headers, origin: 'https://a.b.example.com' }, payload: {} });
        expect(sub.statusCode).toBe(200);
        const ref = await trusted.inject({ method: 'POST', url: '/whoami/', headers: { ...headers, referer: 'https://x.example.com/p' }, payload: {} });
        expect(ref.statusCode).toBe(200);
        const other = await trusted.inject({ method: 'POST', url: '/whoami/', headers: { ...headers, origin: 'http://a.example.com' }, payload: {} });
        expect(other.statusCode).toBe(403);
      } finally {
        await trusted.close();
      }
    });

    it('X-Forwarded-Proto from an untrusted peer does not make the request HTTPS', async () => {
      const res = await app.inject({ method: 'GET', url: '/api-auth/login/', headers: { 'x-forwarded-proto': 'https' } });
      const { csrftoken, token } = { csrftoken: setCookies(res.headers)['csrftoken']!, token: res.json().csrfToken };
      const login = await app.inject({
        method: 'POST',
        url: '/api-auth/login/',
        headers: { cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': token, 'x-forwarded-proto': 'https' },
        payload: { username: 'alice', password: 's3cret' },
      });
      expect(login.statusCode).toBe(200); // no Referer needed: the request is plain HTTP
      expect(setCookieLine(login.headers, 'sessionid')).not.toMatch(/Secure/);
    });
  });

  describe('a session cookie that names no live session', () => {
    it.each([
      ['unknown', 'a'.repeat(32)],
      ['malformed', 'bogus'],
    ])('%s: deleted in the response, as Django\'s session middleware does', async (_name, key) => {
      const res = await app.inject({ url: '/whoami/', headers: { cookie: `sessionid=${key}` } });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(res.headers['vary']).toMatch(/\bCookie\b/);
      expect(setCookieLine(res.headers, 'sessionid')).toMatch(/^sessionid=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
    });

    it('a live session cookie is left alone', async () => {
      const b = await loginAs();
      const res = await app.inject({ url: '/whoami/', headers: { cookie: b.cookie } });
      expect(res.statusCode).toBe(200);
      expect(setCookieLine(res.headers, 'sessionid')).toBeUndefined();
    });
  });

  describe('POST /api-auth/logout/', () => {
    it('needs CSRF, deletes the session and clears the cookie', async () => {
      const b = await loginAs();
      const refused = await app.inject({ method: 'POST', url: '/api-auth/logout/', headers: { cookie: b.cookie } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });

      const res = await app.inject({ method: 'POST', url: '/api-auth/logout/', headers: { cookie: b.cookie, 'x-csrftoken': b.token } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ detail: 'Logged out.' });
      expect(setCookieLine(res.headers, 'sessionid')).toMatch(/^sessionid=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);

      const after = await app.inject({ url: '/whoami/', headers: { cookie: b.cookie } });
      expect(after.statusCode).toBe(403);
      expect(after.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it('logs out whatever the Accept header, as Django: no 406 that leaves the session alive', async () => {
      for (const [accept, type] of [['application/xml', 'application/json'], ['text/html', 'text/html; charset=utf-8']] as const) {
        const b = await loginAs();
        const res = await app.inject({ method: 'POST', url: '/api-auth/logout/', headers: { cookie: b.cookie, 'x-csrftoken': b.token, accept } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe(type);
        if (type === 'application/json') expect(res.json()).toEqual({ detail: 'Logged out.' });
        expect(setCookieLine(res.headers, 'sessionid')).toMatch(/^sessionid=; Max-Age=0; /);
        const after = await app.inject({ url: '/whoami/', headers: { cookie: b.cookie } });
        expect(after.statusCode).toBe(403);
      }
    });

    it('GET is not allowed (Django 5 logs out on POST only)', async () => {
      const res = await app.inject({ method: 'GET', url: '/api-auth/logout/' });
      expect(res.statusCode).toBe(405);
      expect(res.json()).toEqual({ detail: 'Method "GET" not allowed.' });
    });
  });
});
