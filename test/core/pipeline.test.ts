import { describe, expect, it } from 'vitest';
import {
  APIView,
  AllowAny,
  ApiRequest,
  AuthenticationFailed,
  IsAuthenticated,
  NotFound,
  Response,
  WrappedAttributeError,
  createApp,
  path,
  type Authentication,
  type User,
  type Versioning,
} from '../../src/index.js';

const alice: User = {
  pk: 1,
  username: 'alice',
  email: 'alice@example.com',
  isActive: true,
  isStaff: false,
  isSuperuser: false,
  isAuthenticated: true,
  isAnonymous: false,
};

/** Authenticates `X-User: alice`; any other value fails; absent = not attempted. */
class HeaderAuth implements Authentication {
  calls = 0;
  authenticate(req: ApiRequest): [User, unknown] | null {
    this.calls++;
    const name = req.headers['x-user'];
    if (name === undefined) return null;
    if (name !== 'alice') throw new AuthenticationFailed('No such user');
    return [alice, 'header-credential'];
  }
  authenticateHeader(): string {
    return 'Header realm="test"';
  }
}

/** Same as HeaderAuth but without a WWW-Authenticate value. */
class SilentAuth extends HeaderAuth {
  override authenticateHeader(): string {
    return '';
  }
}

const events: string[] = [];
class RecordingAuth implements Authentication {
  authenticate(): null {
    events.push('authenticate');
    return null;
  }
}

class FailingVersioning implements Versioning {
  determineVersion(): string | null {
    events.push('version');
    throw new NotFound('Invalid version in URL path.');
  }
  reverse(): string {
    return '';
  }
}

class Whoami extends APIView {
  override authenticationClasses = [HeaderAuth];
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { user: req.user.username, auth: req.auth };
  }
}

class Open extends APIView {
  override authenticationClasses = [HeaderAuth];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    return { user: req.user.username, authenticated: req.user.isAuthenticated };
  }
  post(req: ApiRequest) {
    return new Response({ received: req.data }, { status: 201 });
  }
}

class SilentProtected extends APIView {
  override authenticationClasses = [SilentAuth, HeaderAuth];
  override permissionClasses = [IsAuthenticated];
  get() {
    return { ok: true };
  }
}

class VersionFirst extends APIView {
  override authenticationClasses = [RecordingAuth];
  override versioningClass = FailingVersioning;
  get() {
    return { ok: true };
  }
}

class BuggyAuth implements Authentication {
  authenticate(req: ApiRequest): [User, unknown] | null {
    const missing = (req as unknown as { nothing: { here: string } }).nothing;
    return [alice, missing.here];
  }
}
class Buggy extends APIView {
  override authenticationClasses = [BuggyAuth];
  get(req: ApiRequest) {
    return { user: req.user.username };
  }
}

class Crashing extends APIView {
  override authenticationClasses = [];
  get(): never {
    throw new Error('database exploded: secret details');
  }
}

class DenyWithMessage {
  message = 'Members only.';
  hasPermission(): boolean {
    return false;
  }
}
class MembersOnly extends APIView {
  override authenticationClasses = [HeaderAuth];
  override permissionClasses = [DenyWithMessage];
  get() {
    return {};
  }
}

async function app() {
  return createApp({
    logger: false,
    routes: [
      path('whoami/', Whoami),
      path('open/', Open),
      path('silent/', SilentProtected),
      path('versioned/', VersionFirst),
      path('buggy/', Buggy),
      path('crash/', Crashing),
      path('members/', MembersOnly),
    ],
  });
}

describe('request pipeline', () => {
  it('authenticated request reaches the handler with user and auth', async () => {
    const res = await (await app()).inject({ url: '/whoami/', headers: { 'x-user': 'alice' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(res.json()).toEqual({ user: 'alice', auth: 'header-credential' });
  });

  it('denied unauthenticated request is 401 with the first scheme\'s WWW-Authenticate', async () => {
    const res = await (await app()).inject({ url: '/whoami/' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Header realm="test"');
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('denied unauthenticated request is 403 without WWW-Authenticate when the first scheme has none', async () => {
    const res = await (await app()).inject({ url: '/silent/' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('a scheme that raises ends the request before permissions, even on AllowAny', async () => {
    const res = await (await app()).inject({ url: '/open/', headers: { 'x-user': 'mallory' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Header realm="test"');
    expect(res.json()).toEqual({ detail: 'No such user' });
  });

  it('anonymous request on AllowAny gets the unauthenticated user', async () => {
    const res = await (await app()).inject({ url: '/open/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ user: '', authenticated: false });
  });

  it('authenticated but denied is 403 with the permission\'s message', async () => {
    const res = await (await app()).inject({ url: '/members/', headers: { 'x-user': 'alice' } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json()).toEqual({ detail: 'Members only.' });
  });

  it('a view whose versioning fails never runs authentication', async () => {
    events.length = 0;
    const res = await (await app()).inject({ url: '/versioned/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Invalid version in URL path.' });
    expect(events).toEqual(['version']);
  });

  it('a method the view lacks is 405 with Allow, but only after authentication and permissions', async () => {
    const a = await app();
    const anonymous = await a.inject({ method: 'DELETE', url: '/whoami/' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    const authed = await a.inject({ method: 'DELETE', url: '/whoami/', headers: { 'x-user': 'alice' } });
    expect(authed.statusCode).toBe(405);
    expect(authed.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(authed.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
  });

  it('a programming error inside a scheme is wrapped, logged and answered with a generic 500', async () => {
    const logged: unknown[] = [];
    const a = await createApp({ logger: false, routes: [path('buggy/', Buggy)] });
    a.log.error = ((obj: unknown) => void logged.push(obj)) as typeof a.log.error;
    const res = await a.inject({ url: '/buggy/' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'A server error occurred.' });
    const err = (logged[0] as { err: unknown }).err;
    expect(err).toBeInstanceOf(WrappedAttributeError);
    expect((err as WrappedAttributeError).original).toBeInstanceOf(TypeError);
  });

  it('an unknown error is a 500 whose body leaks nothing', async () => {
    const res = await (await app()).inject({ url: '/crash/' });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret');
    expect(res.json()).toEqual({ detail: 'A server error occurred.' });
  });
});

describe('lazy body parsing', () => {
  it('an unauthenticated request with a broken body gets 401 from the pipeline, not 400', async () => {
    const res = await (await app()).inject({
      method: 'POST',
      url: '/whoami/',
      payload: '{"broken',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('an unauthenticated request with an unsupported body gets 401, not 415', async () => {
    const res = await (await app()).inject({
      method: 'POST',
      url: '/whoami/',
      payload: 'a,b,c',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('bad JSON is 400 "JSON parse error - …" when the handler reads data', async () => {
    const res = await (await app()).inject({
      method: 'POST',
      url: '/open/',
      payload: '{"broken',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json().detail).toMatch(/^JSON parse error - /);
  });

  it('an unsupported media type is 415 with DRF\'s message', async () => {
    const res = await (await app()).inject({
      method: 'POST',
      url: '/open/',
      payload: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('parses JSON, form and multipart bodies; media types are case-insensitive', async () => {
    const a = await app();
    const json = await a.inject({ method: 'POST', url: '/open/', payload: '{"a":[1,2]}', headers: { 'content-type': 'Application/JSON; charset=UTF-8' } });
    expect(json.statusCode).toBe(201);
    expect(json.json()).toEqual({ received: { a: [1, 2] } });
    const form = await a.inject({ method: 'POST', url: '/open/', payload: 'a=1&b=x+y&a=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json()).toEqual({ received: { a: '2', b: 'x y' } });
    const boundary = 'XyZ';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="title"',
      '',
      'Dune',
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="a.txt"',
      'Content-Type: text/plain',
      '',
      'hello',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const multipart = await a.inject({ method: 'POST', url: '/open/', payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(multipart.statusCode).toBe(201);
    const received = multipart.json().received;
    expect(received.title).toBe('Dune');
    expect(received.file.filename).toBe('a.txt');
  });

  it('a multipart body without a boundary is 400, not 500', async () => {
    const res = await (await app()).inject({ method: 'POST', url: '/open/', payload: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^Multipart form parse error/);
  });

  it('an empty body is {} whatever its content type', async () => {
    const res = await (await app()).inject({ method: 'POST', url: '/open/', headers: { 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ received: {} });
  });

  it('a body over DATA_UPLOAD_MAX_MEMORY_SIZE is 413 JSON', async () => {
    const a = await createApp({ logger: false, settings: { DATA_UPLOAD_MAX_MEMORY_SIZE: 10 }, routes: [path('open/', Open)] });
    const res = await a.inject({ method: 'POST', url: '/open/', payload: '{"a":"0123456789"}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Request body is too large.' });
  });

  it('a malformed Content-Type is judged by the pipeline: 401 unauthenticated, 415 when data is read', async () => {
    const a = await app();
    const anonymous = await a.inject({ method: 'POST', url: '/whoami/', payload: '{}', headers: { 'content-type': ';;;' } });
    expect(anonymous.statusCode).toBe(401);
    const read = await a.inject({ method: 'POST', url: '/open/', payload: '{}', headers: { 'content-type': ';;;' } });
    expect(read.statusCode).toBe(415);
    expect(read.json()).toEqual({ detail: 'Unsupported media type ";;;" in request.' });
  });

  it('a path with broken percent-encoding is a JSON 400', async () => {
    const res = await (await app()).inject({ url: '/open/%zz/' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Malformed request path.' });
  });
});
