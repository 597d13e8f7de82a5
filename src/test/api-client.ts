import { IncomingMessage } from 'node:http';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { AppContext } from '../context.js';
import type { User } from '../users/user.js';
import { inProcessRequestClass } from '../in-process.js';
import { newSessionKey, sessionStore, SESSION_USER_KEY } from '../sessions/session.js';
import { buildRequest, type FieldValue, type RequestFormat, type TestMethod, type TestRequest, type TestRequestOptions } from './requests.js';

/** An app the test client can send requests to: what `createApp` returns. */
export type TestableApp = FastifyInstance & { trestle: AppContext };

/** Options of `new APIClient(app, options)`. */
export interface APIClientOptions {
  /**
   * How request data is encoded when a call does not say (DRF's
   * TEST_REQUEST_DEFAULT_FORMAT): `multipart`, as DRF, unless set.
   */
  format?: RequestFormat;
  /** Run CSRF checks on session-authenticated requests, as a browser's would be (DRF's `enforce_csrf_checks`). Off by default. */
  enforceCsrfChecks?: boolean;
  /** Headers sent with every request (`host`, `accept`, …). */
  headers?: Record<string, string>;
}

/** What a test request answered. */
export interface TestResponse<T = unknown> {
  status: number;
  /** Response headers, names in lower case; `set-cookie` is a list when there are several. */
  headers: Record<string, string | string[] | number | undefined>;
  /** The body as text (empty for none). */
  text: string;
  /** The body as bytes. */
  body: Buffer;
  /** The parsed body when the response is JSON (`application/json`, `…+json`); `undefined` otherwise. */
  data: T;
  /** The body parsed as JSON, whatever the Content-Type says; throws when it is not JSON. */
  json<R = T>(): R;
}

/**
 * DRF's `APIClient`: sends requests to an app in-process through
 * `app.inject` (no socket, the whole pipeline), keeps the cookies responses
 * set, and sends them back.
 *
 * - `get(path, data)` puts `data` in the query string; `post`, `put`,
 *   `patch`, `delete` and `options` encode it as the body, as multipart
 *   unless `format: 'json'` (per call or for the client).
 * - `credentials(headers)` sets headers for every following request
 *   (replacing the previous ones); `credentials()` clears them.
 * - `login({ username, password })` creates a session in the app's session
 *   store, as a login would, and keeps its cookie; `logout()` ends it.
 * - `forceAuthenticate(user, token)` authenticates every following request
 *   as `user`, without credentials; `forceAuthenticate()` stops it.
 * - CSRF checks are skipped unless `enforceCsrfChecks: true`.
 *
 * @example
 * const client = new APIClient(app, { format: 'json' });
 * client.credentials({ Authorization: `Token ${key}` });
 * const res = await client.post('/api/notes/', { title: 'Hello' });
 * // res.status === 201, res.data: the created note
 */
export class APIClient {
  readonly format: RequestFormat;
  readonly enforceCsrfChecks: boolean;
  /** The client's cookie jar: name → value, filled from `Set-Cookie` and sent back in `Cookie`. */
  readonly cookies = new Map<string, string>();
  private readonly defaultHeaders: Record<string, string>;
  private credentialHeaders: Record<string, string> = {};
  private forcedUser: User | null = null;
  private forcedToken: unknown = null;

  constructor(
    readonly app: TestableApp,
    options: APIClientOptions = {},
  ) {
    this.format = options.format ?? 'multipart';
    this.enforceCsrfChecks = options.enforceCsrfChecks ?? false;
    this.defaultHeaders = { ...(options.headers ?? {}) };
  }

  get<T = unknown>(path: string, data?: Record<string, FieldValue | readonly FieldValue[]> | null, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('GET', path, data, options);
  }

  head<T = unknown>(path: string, data?: Record<string, FieldValue | readonly FieldValue[]> | null, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('HEAD', path, data, options);
  }

  post<T = unknown>(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('POST', path, data, options);
  }

  put<T = unknown>(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('PUT', path, data, options);
  }

  patch<T = unknown>(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('PATCH', path, data, options);
  }

  delete<T = unknown>(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('DELETE', path, data, options);
  }

  options<T = unknown>(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestResponse<T>> {
    return this.send('OPTIONS', path, data, options);
  }

  /**
   * Headers for every following request, replacing those set before
   * (DRF's `credentials(HTTP_AUTHORIZATION=…)`); no argument clears them.
   *
   * @example
   * client.credentials({ Authorization: `Token ${token.key}` });
   */
  credentials(headers: Record<string, string> = {}): void {
    this.credentialHeaders = { ...headers };
  }

  /**
   * Authenticates every following request as `user` (`request.auth` is
   * `token`), without credentials and whatever schemes the view has, as
   * DRF's `force_authenticate`. `forceAuthenticate()` (or `null`) turns it
   * off and logs out, as DRF's does. The switch takes effect at once; the
   * promise settles when the logged-out session is deleted from the store.
   */
  forceAuthenticate(user?: User | null, token: unknown = null): Promise<void> {
    this.forcedUser = user ?? null;
    this.forcedToken = user ? token : null;
    return user ? Promise.resolve() : this.logout();
  }

  /**
   * Logs in as Django's test client does: checks the credentials against the
   * app's `users` store (an inactive user cannot log in), creates a session
   * in the app's session store, and keeps its cookie, so that
   * `SessionAuthentication` finds the user. Returns `false` when the
   * credentials are wrong.
   */
  async login(credentials: { username: string; password: string }): Promise<boolean> {
    const app = this.app.trestle;
    const users = app.services.tryGet('users');
    if (!users) throw new Error('login() needs the app\'s `users` service: create the app with a database (or `users`).');
    const user = await users.authenticate(credentials.username, credentials.password);
    if (!user || !user.isActive || user.pk === null) return false;
    const store = sessionStore(app);
    const previous = this.cookies.get(app.settings.SESSION_COOKIE_NAME);
    if (previous !== undefined) await store.delete(previous);
    const key = newSessionKey();
    await store.save(key, { [SESSION_USER_KEY]: String(user.pk) }, new Date(Date.now() + app.settings.SESSION_COOKIE_AGE * 1000));
    this.cookies.set(app.settings.SESSION_COOKIE_NAME, key);
    // Django's user_logged_in receiver: last_login is recorded.
    await users.update(user.pk, { lastLogin: new Date() });
    return true;
  }

  /**
   * Logs out, as DRF's `APIClient.logout`: clears `credentials()` and
   * `forceAuthenticate()`, deletes the session from the store and empties
   * the cookie jar.
   */
  async logout(): Promise<void> {
    this.credentialHeaders = {};
    this.forcedUser = null;
    this.forcedToken = null;
    const app = this.app.trestle;
    const key = this.cookies.get(app.settings.SESSION_COOKIE_NAME);
    this.cookies.clear();
    if (key !== undefined) await sessionStore(app).delete(key);
  }

  /** Sends a request built by `APIRequestFactory` (or by hand) with the client's cookies and switches. */
  async request<T = unknown>(request: TestRequest): Promise<TestResponse<T>> {
    const headers = { ...request.headers };
    if (this.cookies.size > 0 && headers['cookie'] === undefined) {
      headers['cookie'] = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    const res = await injectRequest(this.app, request, headers);
    this.keepCookies(res);
    return testResponse<T>(res);
  }

  private async send<T>(method: TestMethod, path: string, data: unknown, options: TestRequestOptions = {}): Promise<TestResponse<T>> {
    const request = await buildRequest(method, path, data, options, {
      format: this.format,
      headers: { ...this.defaultHeaders, ...this.credentialHeaders },
      enforceCsrfChecks: this.enforceCsrfChecks,
    });
    request.forceUser = this.forcedUser;
    request.forceToken = this.forcedToken;
    return this.request<T>(request);
  }

  private keepCookies(res: LightMyRequestResponse): void {
    for (const cookie of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const expired = (cookie.maxAge !== undefined && cookie.maxAge <= 0) || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now());
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
}

/** Sends one test request through `app.inject`, carrying its switches on the request object. */
export function injectRequest(app: FastifyInstance, request: TestRequest, headers: Record<string, string> = request.headers): Promise<LightMyRequestResponse> {
  const Request = inProcessRequestClass(
    { skipCsrfChecks: !request.enforceCsrfChecks, forceUser: request.forceUser, forceToken: request.forceToken },
    IncomingMessage,
  );
  return app.inject({
    method: request.method,
    url: request.url,
    headers,
    ...(request.body !== undefined ? { payload: request.body } : {}),
    Request,
  });
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The test client's view of an inject response. */
export function testResponse<T>(res: LightMyRequestResponse): TestResponse<T> {
  const text = res.body;
  const contentType = res.headers['content-type'];
  const isJson = typeof contentType === 'string' && JSON_TYPE.test(contentType) && text !== '';
  const data = (isJson ? JSON.parse(text) : undefined) as T;
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    body: res.rawPayload,
    data,
    json<R = T>(): R {
      return JSON.parse(text) as R;
    },
  };
}
