import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIView,
  AllowAny,
  AuthenticationFailed,
  IsAuthenticated,
  JSONRenderer,
  Response,
  createApp,
  path,
  type ApiRequest,
  type Authentication,
  type TrestleApp,
  type User,
} from '../../src/index.js';
import { authorizationCredentials } from '../../src/authentication/authorization-header.js';
import { patchVary } from '../../src/response.js';

const MESSAGES = { noCredentialsMessage: 'none', spacesMessage: 'spaces' };

/** DRF's `get_authorization_header(request).split()` then the keyword check, written the slow way. */
function reference(header: string | undefined, keyword: string): string | null | 'none' | 'spaces' {
  if (header === undefined) return null;
  const auth = header.split(/[ \t\n\r\x0b\x0c]+/).filter((p) => p !== '');
  if (auth.length === 0 || auth[0]!.toLowerCase() !== keyword.toLowerCase()) return null;
  if (auth.length === 1) return 'none';
  if (auth.length > 2) return 'spaces';
  return auth[1]!;
}

function credentials(header: string | undefined, keyword: string): string | null | 'none' | 'spaces' {
  const req = { headers: header === undefined ? {} : { authorization: header } } as unknown as ApiRequest;
  try {
    return authorizationCredentials(req, keyword, MESSAGES);
  } catch (err) {
    return (err as AuthenticationFailed).message as 'none' | 'spaces';
  }
}

describe('the Authorization header is split as Python splits bytes', () => {
  const headers = [
    undefined,
    '',
    ' ',
    'Token',
    'Token ',
    ' Token',
    'Token abc',
    'token abc',
    'TOKEN abc',
    'Token  abc',
    ' Token abc',
    'Token abc ',
    'Token\tabc',
    'Token \tabc',
    'Token abc\tdef',
    'Token abc def',
    'Token abc\x0bdef',
    'Token abc\x0cdef',
    'Token abc\rdef',
    'Token\nabc',
    'Token abc\xa0def', // not whitespace to bytes.split()
    'Token \xa0',
    'Tokenabc',
    'Bearer abc',
    'Basic YWxpY2U6czNjcmV0',
    'Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b',
  ];
  for (const header of headers) {
    it(`${JSON.stringify(header)}`, () => {
      for (const keyword of ['Token', 'Basic', 'Bearer']) expect(credentials(header, keyword)).toEqual(reference(header, keyword));
    });
  }
});

describe('patchVary', () => {
  const cases: [Record<string, string>, string[]][] = [
    [{}, []],
    [{}, ['Cookie']],
    [{}, ['']],
    [{}, ['Cookie', 'cookie', 'Accept']],
    [{ Vary: '' }, ['Cookie']],
    [{ Vary: 'Accept' }, ['Cookie']],
    [{ vary: 'Accept' }, ['accept']],
    [{ VARY: 'Accept, Cookie' }, ['Origin', 'cookie']],
    // Other headers beside it, of the same length as `Vary` and not.
    [{ Link: '<a>', Location: '/b/', vary: 'Accept' }, ['Cookie']],
    [{ Allow: 'GET', Link: '<a>' }, ['Accept', 'Cookie']],
  ];
  for (const [headers, names] of cases) {
    it(`${JSON.stringify(headers)} + ${JSON.stringify(names)}`, () => {
      const res = new Response(null, { headers });
      patchVary(res, names);
      // Django's patch_vary_headers, written out.
      const current = Object.entries(headers).find(([k]) => k.toLowerCase() === 'vary')?.[1];
      const list = current ? current.split(',').map((s) => s.trim()).filter(Boolean) : [];
      for (const n of names) if (!list.some((v) => v.toLowerCase() === n.toLowerCase())) list.push(n);
      const expected = list.length > 0 ? list.join(', ') : current;
      expect(res.getHeader('vary')).toBe(expected);
      expect(Object.keys(res.headers).filter((k) => k.toLowerCase() === 'vary').length).toBe(expected === undefined ? 0 : 1);
    });
  }
});

/** `X-Vary: a,b` makes the request vary on those headers; `X-Set-Vary` is a Vary the handler sets itself. */
class Varying extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    const names = req.headers['x-vary'];
    if (typeof names === 'string') for (const n of names.split(',')) req.varyOn(n);
    const own = req.headers['x-set-vary'];
    return typeof own === 'string' ? new Response({ ok: true }, { headers: { Vary: own } }) : { ok: true };
  }
}

class JsonOnlyVarying extends Varying {
  override rendererClasses = [JSONRenderer];
}

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

describe('Vary of a response that set none, merged once per combination of names', () => {
  it('gives what the view names and the request names give, on every request, whichever came first', async () => {
    app = await createApp({ logger: false, routes: [path('v/', Varying), path('j/', JsonOnlyVarying)] });
    const vary = async (url: string, headers: Record<string, string>) => {
      const res = await app!.inject({ url, headers: { accept: 'application/json', ...headers } });
      expect(res.statusCode).toBe(200);
      return res.headers['vary'];
    };
    for (let round = 0; round < 2; round++) {
      expect(await vary('/v/', {})).toBe('Accept');
      expect(await vary('/v/', { 'x-vary': 'Cookie' })).toBe('Accept, Cookie');
      expect(await vary('/v/', { 'x-vary': 'accept' })).toBe('Accept');
      expect(await vary('/v/', { 'x-vary': 'Cookie,Origin,cookie' })).toBe('Accept, Cookie, Origin');
      expect(await vary('/v/', { 'x-vary': 'Cookie', 'x-set-vary': 'Origin' })).toBe('Origin, Accept, Cookie');
      expect(await vary('/j/', {})).toBeUndefined();
      expect(await vary('/j/', { 'x-vary': 'Cookie' })).toBe('Cookie');
      expect(await vary('/j/', { 'x-vary': 'Cookie,Origin' })).toBe('Cookie, Origin');
      expect(await vary('/j/', { 'x-vary': 'Cookie', 'x-set-vary': 'Accept' })).toBe('Accept, Cookie');
    }
  });
});

const alice: User = {
  pk: 1,
  username: 'alice',
  email: '',
  isActive: true,
  isStaff: false,
  isSuperuser: false,
  isAuthenticated: true,
  isAnonymous: false,
};

/** Answers at once (no promise): `X-Sync: alice` authenticates, `X-Sync: bad` fails, `X-Sync: bug` is a bug. */
class SyncScheme implements Authentication {
  authenticate(req: ApiRequest): [User, unknown] | null {
    const v = req.headers['x-sync'];
    if (v === undefined) return null;
    if (v === 'bad') throw new AuthenticationFailed('Bad sync credentials.');
    if (v === 'bug') throw new TypeError('a bug');
    return [alice, 'sync'];
  }
  authenticateHeader(): string {
    return 'Sync';
  }
}

/** Answers with a promise: `X-Async: alice` authenticates, `X-Async: bad` fails. */
class AsyncScheme implements Authentication {
  async authenticate(req: ApiRequest): Promise<[User, unknown] | null> {
    const v = req.headers['x-async'];
    if (v === undefined) return null;
    if (v === 'bad') throw new AuthenticationFailed('Bad async credentials.');
    return [{ ...alice, pk: 2, username: 'bob' }, 'async'];
  }
}

class Who extends APIView {
  override authenticationClasses = [SyncScheme, AsyncScheme, SyncScheme];
  override permissionClasses = [IsAuthenticated];
  get(req: ApiRequest) {
    return { user: req.user.username, auth: req.auth, scheme: req.successfulAuthenticator?.constructor.name };
  }
}

describe('schemes that answer without a promise are passed without waiting', () => {
  it('keeps the order, the first success, the errors and 401 with the first scheme’s header', async () => {
    class Later extends Who {
      override authenticationClasses = [AsyncScheme, SyncScheme];
    }
    app = await createApp({ logger: false, routes: [path('who/', Who), path('later/', Later)] });
    const get = (headers: Record<string, string>) => app!.inject({ url: '/who/', headers: { accept: 'application/json', ...headers } });
    let res = await get({ 'x-sync': 'alice', 'x-async': 'alice' });
    expect([res.statusCode, res.json()]).toEqual([200, { user: 'alice', auth: 'sync', scheme: 'SyncScheme' }]);
    res = await get({ 'x-async': 'alice' });
    expect([res.statusCode, res.json()]).toEqual([200, { user: 'bob', auth: 'async', scheme: 'AsyncScheme' }]);
    res = await get({ 'x-async': 'bad' });
    expect([res.statusCode, res.json(), res.headers['www-authenticate']]).toEqual([401, { detail: 'Bad async credentials.' }, 'Sync']);
    res = await get({ 'x-sync': 'bad' });
    expect([res.statusCode, res.json(), res.headers['www-authenticate']]).toEqual([401, { detail: 'Bad sync credentials.' }, 'Sync']);
    res = await get({});
    expect([res.statusCode, res.json(), res.headers['www-authenticate']]).toEqual([
      401,
      { detail: 'Authentication credentials were not provided.' },
      'Sync',
    ]);
    res = await get({ 'x-sync': 'bug' });
    expect(res.statusCode).toBe(500);
    // A synchronous scheme after an asynchronous one that was not attempted.
    res = await app.inject({ url: '/later/', headers: { accept: 'application/json', 'x-sync': 'alice' } });
    expect([res.statusCode, res.json()]).toEqual([200, { user: 'alice', auth: 'sync', scheme: 'SyncScheme' }]);
    res = await app.inject({ url: '/later/', headers: { accept: 'application/json', 'x-sync': 'bad', 'x-async': 'bad' } });
    // The first scheme has no WWW-Authenticate: 403, as DRF.
    expect([res.statusCode, res.json()]).toEqual([403, { detail: 'Bad async credentials.' }]);
  });
});

describe('request log lines at LOG_LEVEL=warn', () => {
  it('writes no info line, and still the error line of a failing request', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    class Boom extends APIView {
      override authenticationClasses = [];
      override permissionClasses = [AllowAny];
      get() {
        throw new Error('boom');
      }
    }
    app = await createApp({ logger: { level: 'warn', stream }, routes: [path('who/', Who), path('boom/', Boom)] });
    const ok = await app.inject({ url: '/who/', headers: { accept: 'application/json', 'x-sync': 'alice' } });
    expect(ok.statusCode).toBe(200);
    expect(text).toBe('');
    const boom = await app.inject({ url: '/boom/', headers: { accept: 'application/json' } });
    expect(boom.statusCode).toBe(500);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['level'], l['msg'], l['reqId']])).toEqual([[50, 'unhandled error in view', boom.headers['x-request-id']]]);
  });
});

describe('a view answered without a promise is sent as one answered with one', () => {
  class Sync extends APIView {
    override authenticationClasses = [];
    override permissionClasses = [AllowAny];
    get(req: ApiRequest): Response | Promise<Response> {
      if (req.query['fail'] === 'api') throw new AuthenticationFailed('no');
      if (req.query['fail'] === 'bug') throw new Error('bug');
      return new Response({ sync: true }, { status: 201, headers: { 'X-Kind': 'sync' } });
    }
  }
  class Async extends Sync {
    override async get(req: ApiRequest) {
      await new Promise((r) => setImmediate(r));
      return super.get(req);
    }
  }
  /** Overrides dispatch: the app must call it, not the fast path. */
  class Wrapped extends Sync {
    override async dispatch(req: ApiRequest) {
      const res = await super.dispatch(req);
      res.headers['X-Wrapped'] = 'yes';
      return res;
    }
  }

  it('status, headers, body and errors are the same either way, and an overridden dispatch still runs', async () => {
    app = await createApp({ logger: false, routes: [path('s/', Sync), path('a/', Async), path('w/', Wrapped)] });
    const answer = async (url: string, method = 'GET') => {
      const res = await app!.inject({ method: method as 'GET', url, headers: { accept: 'application/json' } });
      const { date: _date, 'x-request-id': _id, ...headers } = res.headers;
      return { status: res.statusCode, headers, body: res.body };
    };
    for (const q of ['', '?fail=api', '?fail=bug']) {
      const sync = await answer(`/s/${q}`);
      expect(await answer(`/a/${q}`)).toEqual(sync);
      const wrapped = await answer(`/w/${q}`);
      // A dispatch that rejects (an error past the exception handler) adds nothing: the app's 500.
      expect(wrapped.headers['x-wrapped']).toBe(q === '?fail=bug' ? undefined : 'yes');
      delete wrapped.headers['x-wrapped'];
      expect(wrapped).toEqual(sync);
    }
    expect((await answer('/s/')).status).toBe(201);
    expect((await answer('/s/?fail=api')).status).toBe(403);
    expect((await answer('/s/?fail=bug')).status).toBe(500);
    const notAllowed = await answer('/s/', 'POST');
    expect([notAllowed.status, notAllowed.headers['allow']]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect(await answer('/a/', 'POST')).toEqual(notAllowed);
  });
});

describe('buildAbsoluteUri works the scheme and host out once per request', () => {
  class Links extends APIView {
    override authenticationClasses = [];
    override permissionClasses = [AllowAny];
    get(req: ApiRequest) {
      const locations = [undefined, '/a/b/', 'c/', '', 'https://other.example/x', 'HTTP://Other.example/', 'mailto:x', '//host/path'];
      // Twice: the second round reads the remembered prefix.
      return [0, 1].map(() => locations.map((l) => req.buildAbsoluteUri(l)));
    }
  }
  const expected = (origin: string) => {
    const one = [
      `${origin}/links/sub/?q=1`,
      `${origin}/a/b/`,
      `${origin}/links/sub/c/`,
      `${origin}/links/sub/`,
      'https://other.example/x',
      'HTTP://Other.example/',
      `${origin}/links/sub/mailto:x`,
      `${origin}//host/path`,
    ];
    return [one, one];
  };

  it('follows Host, X-Forwarded-Host and the scheme header per request, and refuses a bad host every time', async () => {
    app = await createApp({
      logger: false,
      settings: {
        ALLOWED_HOSTS: ['api.example', 'proxy.example'],
        USE_X_FORWARDED_HOST: true,
        SECURE_PROXY_SSL_HEADER: ['HTTP_X_FORWARDED_PROTO', 'https'],
      },
      routes: [path('links/sub/', Links)],
    });
    const get = (headers: Record<string, string>) => app!.inject({ url: '/links/sub/?q=1', headers: { accept: 'application/json', ...headers } });
    let res = await get({ host: 'api.example' });
    expect(res.json()).toEqual(expected('http://api.example'));
    res = await get({ host: 'api.example', 'x-forwarded-proto': 'https' });
    expect(res.json()).toEqual(expected('https://api.example'));
    res = await get({ host: 'api.example', 'x-forwarded-host': 'proxy.example:8443', 'x-forwarded-proto': 'https' });
    expect(res.json()).toEqual(expected('https://proxy.example:8443'));
    res = await get({ host: 'api.example' });
    expect(res.json()).toEqual(expected('http://api.example'));
    res = await get({ host: 'api.example', 'x-forwarded-host': 'evil.example' });
    expect(res.statusCode).toBe(400);
  });

  it('believes the forwarded headers only from a listed proxy (TRUSTED_PROXIES), by the peer of each request', async () => {
    const forwarded = { host: 'api.example', 'x-forwarded-host': 'proxy.example', 'x-forwarded-proto': 'https' };
    for (const [proxies, origin] of [
      [['10.0.0.0/8'], 'http://api.example'],
      [['127.0.0.1'], 'https://proxy.example'],
    ] as const) {
      const one = await createApp({
        logger: false,
        settings: {
          ALLOWED_HOSTS: ['api.example', 'proxy.example'],
          USE_X_FORWARDED_HOST: true,
          SECURE_PROXY_SSL_HEADER: ['HTTP_X_FORWARDED_PROTO', 'https'],
          TRUSTED_PROXIES: [...proxies],
        },
        routes: [path('links/sub/', Links)],
      });
      try {
        const res = await one.inject({ url: '/links/sub/?q=1', remoteAddress: '127.0.0.1', headers: { accept: 'application/json', ...forwarded } });
        expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([200, 'application/json', expected(origin)]);
      } finally {
        await one.close();
      }
    }
  });
});

describe('the steps of initial() run in order, an overridden initial() as such', () => {
  const seen: string[] = [];
  class Steps extends APIView {
    override authenticationClasses = [AsyncScheme];
    override permissionClasses = [AllowAny];
    override performContentNegotiation(req: ApiRequest, force = false) {
      if (!force) seen.push('negotiation');
      super.performContentNegotiation(req, force);
    }
    override performAuthentication(req: ApiRequest) {
      seen.push('authentication');
      return super.performAuthentication(req);
    }
    override checkPermissions(req: ApiRequest) {
      seen.push('permissions');
      if (req.query['deny'] === '1') throw new AuthenticationFailed('denied');
      return super.checkPermissions(req);
    }
    override handleException(req: ApiRequest, err: unknown) {
      seen.push('exception');
      return super.handleException(req, err);
    }
    get(req: ApiRequest) {
      seen.push('handler');
      if (req.query['bug'] === '1') throw new Error('bug');
      return { user: req.user?.username ?? null };
    }
  }
  class OwnInitial extends Steps {
    override initial(req: ApiRequest) {
      seen.push('own initial');
      if (req.query['stop'] === '1') throw new AuthenticationFailed('stopped');
      return super.initial(req);
    }
  }

  it('negotiation, authentication, permissions, handler; each error through the exception handler once', async () => {
    app = await createApp({ logger: false, routes: [path('steps/', Steps), path('own/', OwnInitial)] });
    const get = async (url: string) => {
      seen.length = 0;
      const res = await app!.inject({ url, headers: { accept: 'application/json', 'x-async': 'alice' } });
      return [res.statusCode, [...seen]];
    };
    expect(await get('/steps/')).toEqual([200, ['negotiation', 'authentication', 'permissions', 'handler']]);
    expect(await get('/steps/?deny=1')).toEqual([403, ['negotiation', 'authentication', 'permissions', 'exception']]);
    expect(await get('/steps/?bug=1')).toEqual([500, ['negotiation', 'authentication', 'permissions', 'handler', 'exception']]);
    expect(await get('/own/')).toEqual([200, ['own initial', 'negotiation', 'authentication', 'permissions', 'handler']]);
    expect(await get('/own/?stop=1')).toEqual([403, ['own initial', 'exception']]);
    expect(await get('/own/?bug=1')).toEqual([500, ['own initial', 'negotiation', 'authentication', 'permissions', 'handler', 'exception']]);
  });
});

describe('the default logger at LOG_LEVEL=warn', () => {
  it("gives each request a deferred child, with the request id; pino's child at info", async () => {
    const { DeferredChildLogger } = await import('../../src/request-log.js');
    const seen: unknown[] = [];
    class Log extends APIView {
      override authenticationClasses = [];
      override permissionClasses = [AllowAny];
      get(req: ApiRequest) {
        const log = req.raw.log as unknown as { bindings?: () => Record<string, unknown> };
        seen.push([log instanceof DeferredChildLogger, log.bindings?.()['reqId']]);
        return { ok: true };
      }
    }
    const before = process.env['LOG_LEVEL'];
    process.env['LOG_LEVEL'] = 'warn';
    try {
      app = await createApp({ routes: [path('log/', Log)] });
    } finally {
      if (before === undefined) delete process.env['LOG_LEVEL'];
      else process.env['LOG_LEVEL'] = before;
    }
    const res = await app.inject({ url: '/log/', headers: { accept: 'application/json' } });
    expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([200, 'application/json', { ok: true }]);
    expect(seen).toEqual([[true, res.headers['x-request-id']]]);
    // At info every request writes a line: pino's own child.
    app.log.level = 'info';
    seen.length = 0;
    const atInfo = await app.inject({ url: '/log/', headers: { accept: 'application/json' } });
    expect(atInfo.statusCode).toBe(200);
    expect(seen).toEqual([[false, atInfo.headers['x-request-id']]]);
  });
});

describe("the app logger's deferred request loggers", () => {
  async function loggingInto(level: string) {
    const { appLogging } = await import('../../src/request-log.js');
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const { logger, childLoggerFactory } = appLogging({ level, stream });
    // As Fastify calls it for a request: its own (null) logger, the request id binding, the route's options.
    const child = (bindings: Record<string, unknown>, options: Record<string, unknown>) =>
      childLoggerFactory.call(null as never, logger, bindings, options, {} as never);
    const lines = async () => {
      await new Promise((r) => setImmediate(r));
      return text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    return { logger, child, lines };
  }

  it('writes what pino’s child writes, with the bindings, and follows the app logger’s level', async () => {
    const { DeferredChildLogger } = await import('../../src/request-log.js');
    const { logger, child, lines } = await loggingInto('warn');
    const log = child({ reqId: 'r1' }, {});
    expect(log).toBeInstanceOf(DeferredChildLogger);
    expect(log.level).toBe('warn');
    log.info('not written');
    log.debug('not written');
    log.warn({ a: 1 }, 'warned');
    log.child({ b: 2 }).error('from a child');
    expect((log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('info')).toBe(false);
    logger.level = 'info';
    log.info('now written');
    expect((await lines()).map((l) => [l['level'], l['reqId'], l['a'], l['b'], l['msg']])).toEqual([
      [40, 'r1', 1, undefined, 'warned'],
      [50, 'r1', undefined, 2, 'from a child'],
      [30, 'r1', undefined, undefined, 'now written'],
    ]);
    // At info, and with a route's own options, pino's child as before.
    expect(child({ reqId: 'r2' }, {})).not.toBeInstanceOf(DeferredChildLogger);
    logger.level = 'warn';
    expect(child({ reqId: 'r3' }, { level: 'debug' })).not.toBeInstanceOf(DeferredChildLogger);
  });
});
