import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from './context.js';
import type { Authentication } from './authentication/base.js';
import type { Versioning } from './versioning/base.js';
import type { Renderer } from './renderers/base.js';
import type { Parser, UploadedFile } from './parsers/base.js';
import type { User } from './users/user.js';
import type { RouteMatch } from './routing/types.js';
import type { ForwardedHeaders, HostValidator, ProxyTrust } from './hosts.js';
import { ApiError, UnsupportedMediaType, WrappedAttributeError } from './exceptions.js';
import { mediaTypeMatches, parsedMediaType, type MediaType } from './media-types.js';
import { MultipartBody } from './parsers/multipart-stream.js';
import { isStreamedMultipartParser } from './parsers/base.js';
import { parseCookies } from './cookies.js';
import { ForcedAuthentication, inProcessRequest } from './in-process.js';
import { isThenable } from './utils/thenable.js';

const NOT_RESOLVED = Symbol('not-resolved');
const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A query string with no escapes, no `+` and only ASCII: its parameters are its substrings. */
const PLAIN_QUERY = /^[^%+\u0080-\uffff]*$/;
/**
 * The query parameters' object: its prototype chain has no Object.prototype
 * (as `Object.create(null)`), yet V8 keeps it a fast object, where a
 * prototype-less object starts in the slow dictionary mode.
 */
const QueryDict = function QueryDict(this: object) {} as unknown as new () => object;
QueryDict.prototype = Object.create(null) as object;
const NO_QUERY: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

/** Errors that mean a bug in a scheme, not bad credentials. */
function isProgrammingError(err: unknown): boolean {
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError;
}

/** What the app gives every request: shared, built once. */
export interface RequestEnvironment {
  readonly app: AppContext;
  readonly hosts: HostValidator;
  readonly proxies: ProxyTrust;
  readonly forwarded: ForwardedHeaders;
}

/** Converted path parameters: `<int:pk>` gives a number, the other converters strings. */
export type PathParams = Record<string, string | number>;

/**
 * The request as a Trestle view sees it: DRF's `Request`. Wraps the Fastify
 * request; `data` is parsed only when read, `user`/`auth` come from the
 * view's authentication schemes.
 *
 * The type parameters say what a handler expects, as Fastify's route
 * generics do: `ApiRequest<{ pk: number }, BookInput, Token>` types
 * `params`, `data` and `auth` (the pipeline does not check them: a
 * validator, converter or scheme does).
 */
export class ApiRequest<Params extends object = PathParams, Data = unknown, Auth = unknown> {
  readonly raw: FastifyRequest;
  readonly reply: FastifyReply;
  readonly app: AppContext;
  readonly method: string;
  /** Converted path parameters (DRF's `kwargs`). */
  params: Params;
  /** The matched route: pattern, name, namespaces. */
  resolverMatch: RouteMatch | null = null;

  version: string | null = null;
  versioningScheme: Versioning | null = null;
  acceptedRenderer: Renderer | null = null;
  acceptedMediaType: MediaType | null = null;
  authenticators: readonly Authentication[] = [];
  parsers: readonly Parser[] = [];
  successfulAuthenticator: Authentication | null = null;
  /** The viewset action (`list`, `retrieve`, …) when routed through a viewset. */
  action: string | null = null;
  /** Per-request state of the view's pagination class. */
  pagination: unknown = null;
  /** Free space for middleware-like code (sessions put their state here); made on first use. */
  get locals(): Record<string | symbol, unknown> {
    return (this._locals ??= {});
  }
  /** Request headers this response depends on beyond the view's own (see `varyOn`). */
  vary: string[] | null = null;

  private readonly env: RequestEnvironment;
  private _user: User | null | typeof NOT_RESOLVED = NOT_RESOLVED;
  private _auth: unknown = NOT_RESOLVED;
  private _data: unknown = NOT_RESOLVED;
  private _files: Record<string, UploadedFile> | null = null;
  private _locals: Record<string | symbol, unknown> | null = null;
  private _query: Record<string, string> | null = null;
  private _queryParams: URLSearchParams | null = null;
  private _host: string | null = null;
  private _origin: string | undefined = undefined;
  private _cookies: Record<string, string | undefined> | null = null;
  private _pathEnd = -1;

  constructor(raw: FastifyRequest, reply: FastifyReply, env: RequestEnvironment, params: object = {}) {
    this.raw = raw;
    this.reply = reply;
    this.env = env;
    this.app = env.app;
    this.method = raw.method;
    this.params = params as Params;
  }

  get headers(): FastifyRequest['headers'] {
    return this.raw.headers;
  }

  /** The path as sent, without the query string. */
  get path(): string {
    const url = this.raw.url;
    if (this._pathEnd === -1) {
      const q = url.indexOf('?');
      this._pathEnd = q === -1 ? url.length : q;
    }
    return url.slice(0, this._pathEnd);
  }

  /** The raw query string without `?` (empty when none). */
  get queryString(): string {
    const url = this.raw.url;
    const q = url.indexOf('?');
    return q === -1 ? '' : url.slice(q + 1);
  }

  /** Query parameters, last value wins (DRF's `query_params.get`). */
  get query(): Readonly<Record<string, string>> {
    if (this._query === null) {
      if (this.raw.url.indexOf('?') === -1) {
        this._query = NO_QUERY; // most requests: nothing to parse
      } else {
        // No Object.prototype: a parameter named `constructor` or `toString` is just a parameter.
        const out = new QueryDict() as Record<string, string>;
        const qs = this.queryString;
        if (PLAIN_QUERY.test(qs)) {
          // Nothing to decode: split as URLSearchParams would, without building one.
          for (const pair of qs.split('&')) {
            if (pair === '') continue;
            const eq = pair.indexOf('=');
            if (eq === -1) out[pair] = '';
            else out[pair.slice(0, eq)] = pair.slice(eq + 1);
          }
        } else {
          for (const [k, v] of this.queryParams) out[k] = v;
        }
        this._query = out;
      }
    }
    return this._query;
  }

  /** All query parameters in order, repeated names included. */
  get queryParams(): URLSearchParams {
    if (this._queryParams === null) this._queryParams = new URLSearchParams(this.queryString);
    return this._queryParams;
  }

  /** The request's cookies, parsed from the `Cookie` header on first read. */
  get cookies(): Record<string, string | undefined> {
    return (this._cookies ??= parseCookies(this.raw.headers.cookie));
  }

  /**
   * Records that the response depends on a request header (the session
   * cookie, a custom version header); the pipeline adds it to `Vary`.
   */
  varyOn(header: string): void {
    if (this.vary === null) this.vary = [header];
    else if (!this.vary.includes(header)) this.vary.push(header);
  }

  // ---------------------------------------------------------------- identity

  /**
   * The authenticated user. Authentication runs in the pipeline before the
   * handler; code that runs earlier (or a view that skips it) awaits
   * `getUser()` instead.
   */
  get user(): User {
    if (this._user === NOT_RESOLVED) {
      throw new Error('request.user was read before authentication ran; use `await request.getUser()`.');
    }
    return this._user as User;
  }

  set user(value: User) {
    this._user = value;
  }

  /** The credential the scheme returned (the token record for Token). */
  get auth(): Auth {
    if (this._auth === NOT_RESOLVED) {
      throw new Error('request.auth was read before authentication ran; use `await request.getAuth()`.');
    }
    return this._auth as Auth;
  }

  set auth(value: unknown) {
    this._auth = value;
  }

  get isAuthenticationResolved(): boolean {
    return this._user !== NOT_RESOLVED;
  }

  /** Lazily authenticates, then returns the user. */
  async getUser(): Promise<User> {
    if (this._user === NOT_RESOLVED) await this.authenticate();
    return this._user as User;
  }

  async getAuth(): Promise<unknown> {
    if (this._auth === NOT_RESOLVED) await this.authenticate();
    return this._auth;
  }

  /**
   * Tries each scheme in order; the first `[user, auth]` wins. A scheme that
   * throws an `ApiError` ends authentication (the error propagates); a
   * programming error is re-thrown as `WrappedAttributeError`.
   */
  authenticate(): void | Promise<void> {
    // `forceAuthenticate` of the test client (trestle/test): DRF's ForcedAuthentication replaces the schemes.
    const inProcess = inProcessRequest(this.raw.raw);
    if (inProcess?.forceUser) this.authenticators = [new ForcedAuthentication(inProcess.forceUser, inProcess.forceToken)];
    if (this.authenticators.length === 0) {
      this.notAuthenticated();
      return;
    }
    return this.authenticateFrom(0);
  }

  /**
   * The schemes from `start` on. A scheme that answers without a promise
   * (not attempted: no header of its kind) is passed without waiting for
   * the event loop; the first promise makes the rest asynchronous.
   */
  private authenticateFrom(start: number): void | Promise<void> {
    const schemes = this.authenticators;
    for (let i = start; i < schemes.length; i++) {
      const scheme = schemes[i]!;
      let result: Promise<[User, unknown] | null> | [User, unknown] | null;
      try {
        result = scheme.authenticate(this as ApiRequest);
      } catch (err) {
        return this.schemeFailed(err);
      }
      if (isThenable(result)) return this.awaitScheme(i, result);
      if (result !== null && result !== undefined) return this.authenticated(scheme, result);
    }
    this.notAuthenticated();
  }

  private awaitScheme(index: number, pending: Promise<[User, unknown] | null>): Promise<void> {
    // A scheme's own thenable is adopted first; a native promise is chained as it is.
    const settled = pending instanceof Promise ? pending : Promise.resolve(pending);
    return settled.then(
      (result) => {
        if (result !== null && result !== undefined) return this.authenticated(this.authenticators[index]!, result);
        return this.authenticateFrom(index + 1);
      },
      (err: unknown) => this.schemeFailed(err),
    );
  }

  private authenticated(scheme: Authentication, result: [User, unknown]): void {
    this.successfulAuthenticator = scheme;
    this._user = result[0];
    this._auth = result[1];
  }

  /**
   * A scheme threw: an `ApiError` ends authentication (it propagates); a
   * programming error is re-thrown as `WrappedAttributeError`.
   */
  private schemeFailed(err: unknown): never {
    if (err instanceof ApiError) {
      this.notAuthenticated();
      throw err;
    }
    if (isProgrammingError(err)) throw new WrappedAttributeError(err);
    throw err;
  }

  private notAuthenticated(): void {
    this.successfulAuthenticator = null;
    const s = this.app.settings;
    this._user = s.UNAUTHENTICATED_USER ? s.UNAUTHENTICATED_USER() : null;
    this._auth = s.UNAUTHENTICATED_TOKEN ? s.UNAUTHENTICATED_TOKEN() : null;
  }

  // ------------------------------------------------------------------ body

  /** The raw body bytes (empty when none was sent). */
  get body(): Buffer {
    const b = this.raw.body;
    return Buffer.isBuffer(b) ? b : Buffer.alloc(0);
  }

  get contentType(): string {
    return this.raw.headers['content-type'] ?? '';
  }

  /**
   * The parsed body, parsed on first read by the view's parsers (DRF's lazy
   * `request.data`). An empty body is `{}`. Throws 415 for a content type no
   * parser accepts and 400 for a body that does not parse.
   */
  get data(): Data {
    if (this._data === NOT_RESOLVED) this.parse();
    return this._data as Data;
  }

  set data(value: unknown) {
    this._data = value;
  }

  /** Uploaded files of a multipart body. */
  get files(): Record<string, UploadedFile> {
    if (this._data === NOT_RESOLVED) this.parse();
    return (this._files ??= {});
  }

  private parse(): void {
    const streamed = this.raw.body;
    if (streamed instanceof MultipartBody) return this.parseStreamed(streamed);
    const body = this.body;
    if (body.length === 0) {
      this._data = {};
      return;
    }
    const contentType = this.contentType;
    const mediaType = parsedMediaType(contentType);
    const parser = this.parsers.find((p) => mediaTypeMatches(parsedMediaType(p.mediaType), mediaType));
    if (!parser) {
      // Keep DRF's behaviour of an empty data set after a failed parse.
      this._data = {};
      throw new UnsupportedMediaType(contentType);
    }
    try {
      const result = parser.parse(body, mediaType);
      this._data = result.data;
      this._files = result.files;
    } catch (err) {
      this._data = {};
      this._files = {};
      throw err;
    }
  }

  /** A multipart body already read by busboy (fields and files, no bytes). */
  private parseStreamed(body: MultipartBody): void {
    const mediaType = parsedMediaType(this.contentType);
    const parser = this.parsers.find((p) => mediaTypeMatches(parsedMediaType(p.mediaType), mediaType));
    this._data = {};
    this._files = {};
    if (!parser || !isStreamedMultipartParser(parser)) throw new UnsupportedMediaType(this.contentType);
    if (body.error) throw body.error;
    const result = parser.parseStreamed(body);
    this._data = result.data;
    this._files = result.files;
  }

  // ------------------------------------------------------- hosts and URLs

  /** True when the socket peer is a trusted proxy (TRUSTED_PROXIES). */
  get fromTrustedProxy(): boolean {
    return this.env.proxies.isTrusted(this.raw.socket?.remoteAddress);
  }

  /** The client address: the peer, or X-Forwarded-For through trusted proxies. */
  get clientIp(): string {
    return this.env.proxies.clientAddress(this.raw.socket?.remoteAddress, this.raw.headers['x-forwarded-for']);
  }

  /** `https` for TLS sockets, or as SECURE_PROXY_SSL_HEADER says when it is set. */
  get scheme(): 'http' | 'https' {
    const forwarded = this.env.forwarded.forwardedScheme(this.raw.headers, this.raw.socket);
    if (forwarded !== undefined) return forwarded;
    return (this.raw.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  }

  isSecure(): boolean {
    return this.scheme === 'https';
  }

  /**
   * The Host (X-Forwarded-Host with USE_X_FORWARDED_HOST), validated
   * against ALLOWED_HOSTS. Throws `DisallowedHost` (400) otherwise.
   */
  getHost(): string {
    if (this._host !== null) return this._host;
    const host = this.env.forwarded.forwardedHost(this.raw.headers, this.raw.socket) ?? this.raw.headers.host ?? '';
    this._host = this.env.hosts.check(host);
    return this._host;
  }

  /**
   * `scheme://host` of this request, the host validated (`getHost`). Worked
   * out once per request; requests with the same scheme and host in turn
   * share one string, so links compare their origin by reference.
   */
  get origin(): string {
    return (this._origin ??= sharedOrigin(this.scheme, this.getHost()));
  }

  /**
   * An absolute URL for `location` (a path, or nothing for the current
   * URL), built only from an allowed host.
   */
  buildAbsoluteUri(location?: string): string {
    const base = this.origin;
    if (location === undefined) return base + this.raw.url;
    // A path cannot be an absolute URL: no need to try the pattern.
    if (location.charCodeAt(0) === 0x2f /* / */) return base + location;
    if (ABSOLUTE_URL.test(location)) return location;
    // Relative to the current path, as Django's build_absolute_uri.
    const dir = this.path.slice(0, this.path.lastIndexOf('/') + 1);
    return base + dir + location;
  }
}

/** The last origin made, by its scheme and host: most requests of a process name the same host. */
let lastOrigin = { scheme: '', host: '', origin: '' };

function sharedOrigin(scheme: string, host: string): string {
  const last = lastOrigin;
  if (last.host === host && last.scheme === scheme) return last.origin;
  lastOrigin = { scheme, host, origin: `${scheme}://${host}` };
  return lastOrigin.origin;
}
