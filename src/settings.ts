import type { AuthenticationClass } from './authentication/base.js';
import type { PermissionClass } from './permissions.js';
import type { ThrottleClass } from './throttling/base.js';
import type { PaginationClass } from './pagination/base.js';
import type { FilterBackendClass } from './filters/base.js';
import type { VersioningClass } from './versioning/base.js';
import type { RendererClass } from './renderers/base.js';
import type { ParserClass } from './parsers/base.js';
import type { ExceptionHandler } from './exceptions.js';
import type { User } from './users/user.js';
import { ImproperlyConfigured, exceptionHandler } from './exceptions.js';
import { AnonymousUser } from './users/user.js';
import { AllowAny } from './permissions.js';
import { SessionAuthentication } from './authentication/session.js';
import { BasicAuthentication } from './authentication/basic.js';
import { JSONRenderer } from './renderers/json.js';
import { BrowsableAPIRenderer } from './browsable/renderer.js';
import { JSONParser } from './parsers/json.js';
import { FormParser } from './parsers/form.js';
import { MultiPartParser } from './parsers/multipart.js';
import { defaultPasswordValidators, type PasswordValidator } from './users/password-validation.js';

/**
 * Every setting Trestle knows, under DRF's names, with DRF's defaults.
 * `createApp({ settings })` takes a partial object; a name not listed here is
 * an error at start-up. Views override most of them with camelCase
 * attributes (`authenticationClasses`, `paginationClass`, …).
 */
export interface Settings {
  // --- pipeline plug-ins
  DEFAULT_RENDERER_CLASSES: RendererClass[];
  DEFAULT_PARSER_CLASSES: ParserClass[];
  DEFAULT_AUTHENTICATION_CLASSES: AuthenticationClass[];
  DEFAULT_PERMISSION_CLASSES: PermissionClass[];
  DEFAULT_THROTTLE_CLASSES: ThrottleClass[];
  DEFAULT_THROTTLE_RATES: Record<string, string | null>;
  DEFAULT_PAGINATION_CLASS: PaginationClass | null;
  /** Filter backends of generic list views (search, ordering, filter sets); none by default, as DRF. */
  DEFAULT_FILTER_BACKENDS: FilterBackendClass[];
  DEFAULT_VERSIONING_CLASS: VersioningClass | null;
  EXCEPTION_HANDLER: ExceptionHandler;

  // --- authentication
  UNAUTHENTICATED_USER: (() => User) | null;
  UNAUTHENTICATED_TOKEN: (() => unknown) | null;

  // --- pagination
  PAGE_SIZE: number | null;

  // --- versioning
  DEFAULT_VERSION: string | null;
  ALLOWED_VERSIONS: string[] | null;
  VERSION_PARAM: string;
  /**
   * Hardening switch (off, as DRF): a request that states two different
   * versions (`/v1/items/?version=v2`) is a 400 instead of answering the
   * scheme's own place.
   */
  REJECT_CONFLICTING_VERSIONS: boolean;

  // --- generic views and filters
  SEARCH_PARAM: string;
  ORDERING_PARAM: string;
  NON_FIELD_ERRORS_KEY: string;
  URL_FIELD_NAME: string;

  // --- hosts, proxies, HTTPS
  /** Host names the app answers to; `.example.com` matches subdomains, `*` anything. */
  ALLOWED_HOSTS: string[];
  /**
   * Addresses or CIDRs of the proxies in front of the app: `X-Forwarded-For`
   * from them names the client. When listed, they are also the only peers
   * whose forwarded host and scheme count (if those are switched on below).
   */
  TRUSTED_PROXIES: string[];
  /** Django's: take the host from `X-Forwarded-Host` (off). From TRUSTED_PROXIES peers, or any peer when none is listed. */
  USE_X_FORWARDED_HOST: boolean;
  /**
   * Django's: `['X-Forwarded-Proto', 'https']` (or `'HTTP_X_FORWARDED_PROTO'`)
   * makes a request secure when that header's first value is `https`; the
   * header present with another value makes it plain HTTP. Off (`null`).
   */
  SECURE_PROXY_SSL_HEADER: readonly [string, string] | null;
  /** Peers whose remote-user header RemoteUserAuthentication believes (its `trustedProxies`); none by default. */
  REMOTE_USER_TRUSTED_PROXIES: string[];

  // --- secrets
  /** Signs cursors and sessions, encrypts stored token keys. */
  SECRET_KEY: string | null;

  // --- URLs
  /** Redirect `GET /items` to `/items/` when only the slash is missing (Django's default). */
  APPEND_SLASH: boolean;

  // --- request limits
  /** Largest request body accepted, in bytes (Django's default: 2.5 MiB). */
  DATA_UPLOAD_MAX_MEMORY_SIZE: number;
  /** Parts (fields and files) a multipart body may have (Django's default: 1000). */
  DATA_UPLOAD_MAX_NUMBER_FIELDS: number;
  /** An uploaded file up to this size stays in memory, a larger one is streamed to a temporary file (Django: 2.5 MiB). */
  FILE_UPLOAD_MAX_MEMORY_SIZE: number;
  /** Largest multipart body, files included, in bytes (413 past it). */
  FILE_UPLOAD_MAX_SIZE: number;
  /** Directory of temporary upload files; `null` = the OS's temporary directory. */
  FILE_UPLOAD_TEMP_DIR: string | null;
  /** Deepest nesting of objects and arrays a JSON body may have (400 past it). */
  JSON_MAX_DEPTH: number;
  /**
   * Largest JSON response `Accept: …; indent=N` may produce, in characters;
   * past it the response is sent compact. `indent` itself is capped at 8.
   */
  JSON_INDENT_MAX_SIZE: number;

  // --- login abuse (DRF has none; see docs/authentication.md)
  /**
   * Failed logins counted on every login path, as throttle rates
   * (`'<n>/<s|m|h|d>'`, `null` = not counted; a key left out keeps its default):
   * `client` per username from one client (its device cookie, else its
   * address; past it that client alone waits out the window); `username` per
   * username from clients not known for it (past it such clients are slowed
   * down by LOGIN_FAILURE_BACKOFF, never walled off); `address` per address
   * over all names (never applied to a client known for the name).
   */
  LOGIN_FAILURE_RATES: { client?: string | null; username?: string | null; address?: string | null };
  /**
   * Past `LOGIN_FAILURE_RATES.username`, one attempt for that name from an
   * unknown client per delay: `initial` seconds, doubled with each further
   * failure, at most `max` seconds.
   */
  LOGIN_FAILURE_BACKOFF: { initial: number; max: number };
  /** The signed "known client" cookie a successful login sets (OWASP's device cookie); `null` = none. */
  LOGIN_DEVICE_COOKIE_NAME: string | null;
  /** Seconds the device cookie lives. */
  LOGIN_DEVICE_COOKIE_AGE: number;
  /** Seconds an address a user logged in from stays known for that user (cookie-less API clients); 0 = never. */
  LOGIN_KNOWN_ADDRESS_AGE: number;
  /** Seconds a client has to send a request's headers; 0 = no limit. */
  HEADERS_TIMEOUT: number;
  /** Seconds a client has to send a whole request, headers and body; 0 = no limit. */
  REQUEST_TIMEOUT: number;
  /** Seconds a connection may stay silent (no byte either way) before it is closed; 0 = no limit. */
  IDLE_TIMEOUT: number;
  /** Seconds a kept-alive connection waits for its next request. */
  KEEP_ALIVE_TIMEOUT: number;

  // --- outages
  /** `Retry-After` (seconds) of the 503 sent while the database or Redis is unreachable. */
  SERVICE_UNAVAILABLE_RETRY_AFTER: number;
  /** Seconds between outage log lines of one kind: the first is logged, the rest counted into one line per interval. */
  OUTAGE_LOG_INTERVAL: number;

  // --- sessions and CSRF (Django's names)
  SESSION_COOKIE_NAME: string;
  SESSION_COOKIE_AGE: number;
  SESSION_COOKIE_SECURE: boolean;
  SESSION_COOKIE_SAMESITE: 'Lax' | 'Strict' | 'None';
  CSRF_COOKIE_NAME: string;
  CSRF_HEADER_NAME: string;
  CSRF_COOKIE_SECURE: boolean;
  CSRF_TRUSTED_ORIGINS: string[];
  LOGIN_URL: string;
  LOGIN_REDIRECT_URL: string;

  // --- tokens
  /** Token lifetime in seconds for the lifecycle mode; `null` = never expires. */
  TOKEN_TTL: number | null;
  /** `'single'` (DRF: one token per user) or `'multi'` (named tokens, expiry, last use). */
  TOKEN_MODE: 'single' | 'multi';
  /** Create a token whenever a user is created. */
  TOKEN_CREATE_ON_USER_CREATED: boolean;

  // --- browsable API, admin, docs
  /** Where Trestle's CSS/JS are served (`<STATIC_URL>trestle/…`); an absolute URL serves nothing locally. */
  STATIC_URL: string;

  // --- passwords
  /** Rules a new password must pass (createsuperuser, changepassword, the admin); Django's four by default. */
  AUTH_PASSWORD_VALIDATORS: PasswordValidator[];

  // --- CORS (django-cors-headers' names); on when an origin is allowed
  /** Origins (`https://app.example.com`) whose browser scripts may call the API. */
  CORS_ALLOWED_ORIGINS: string[];
  /** Any origin may: `Access-Control-Allow-Origin: *`, or the origin itself with CORS_ALLOW_CREDENTIALS. */
  CORS_ALLOW_ALL_ORIGINS: boolean;
  /** Let cross-origin requests carry cookies (`Access-Control-Allow-Credentials: true`). */
  CORS_ALLOW_CREDENTIALS: boolean;
  CORS_ALLOW_HEADERS: string[];
  CORS_ALLOW_METHODS: string[];
  /** Response headers a script may read beyond the simple ones. */
  CORS_EXPOSE_HEADERS: string[];
  /** Seconds a browser may cache a preflight's answer. */
  CORS_PREFLIGHT_MAX_AGE: number;

  // --- shared state
  /** `redis://…`; when set, throttles, sessions and caches live in Redis. */
  REDIS_URL: string | null;

  /**
   * Development mode. Defaults to true unless `NODE_ENV=production`; when
   * false, `createApp` refuses to start without SECRET_KEY or with the
   * development ALLOWED_HOSTS.
   */
  DEBUG: boolean;
  /**
   * Ids of system check messages to say nothing about (Django's
   * SILENCED_SYSTEM_CHECKS), e.g. `['security.W012']`. See docs/checks.md.
   */
  SILENCED_SYSTEM_CHECKS: string[];
}

export type SettingsInput = Partial<Settings>;

/** DRF's defaults, built on demand so plug-in modules can import this file freely. */
export function defaultSettings(): Settings {
  return {
    DEFAULT_RENDERER_CLASSES: [JSONRenderer, BrowsableAPIRenderer],
    DEFAULT_PARSER_CLASSES: [JSONParser, FormParser, MultiPartParser],
    DEFAULT_AUTHENTICATION_CLASSES: [SessionAuthentication, BasicAuthentication],
    DEFAULT_PERMISSION_CLASSES: [AllowAny],
    DEFAULT_THROTTLE_CLASSES: [],
    DEFAULT_THROTTLE_RATES: { user: null, anon: null },
    DEFAULT_PAGINATION_CLASS: null,
    DEFAULT_FILTER_BACKENDS: [],
    DEFAULT_VERSIONING_CLASS: null,
    EXCEPTION_HANDLER: exceptionHandler,

    UNAUTHENTICATED_USER: () => new AnonymousUser(),
    UNAUTHENTICATED_TOKEN: null,

    PAGE_SIZE: null,

    DEFAULT_VERSION: null,
    ALLOWED_VERSIONS: null,
    VERSION_PARAM: 'version',
    REJECT_CONFLICTING_VERSIONS: false,

    SEARCH_PARAM: 'search',
    ORDERING_PARAM: 'ordering',
    NON_FIELD_ERRORS_KEY: 'non_field_errors',
    URL_FIELD_NAME: 'url',

    ALLOWED_HOSTS: ['localhost', '.localhost', '127.0.0.1', '[::1]'],
    TRUSTED_PROXIES: [],
    USE_X_FORWARDED_HOST: false,
    SECURE_PROXY_SSL_HEADER: null,
    REMOTE_USER_TRUSTED_PROXIES: [],

    SECRET_KEY: null,

    APPEND_SLASH: true,

    DATA_UPLOAD_MAX_MEMORY_SIZE: 2_621_440,
    DATA_UPLOAD_MAX_NUMBER_FIELDS: 1000,
    FILE_UPLOAD_MAX_MEMORY_SIZE: 2_621_440,
    FILE_UPLOAD_MAX_SIZE: 104_857_600,
    FILE_UPLOAD_TEMP_DIR: null,
    JSON_MAX_DEPTH: 64,
    JSON_INDENT_MAX_SIZE: 1_048_576,
    LOGIN_FAILURE_RATES: { client: '10/h', username: '20/h', address: '100/h' },
    LOGIN_FAILURE_BACKOFF: { initial: 1, max: 60 },
    LOGIN_DEVICE_COOKIE_NAME: 'login_device',
    LOGIN_DEVICE_COOKIE_AGE: 31_536_000,
    LOGIN_KNOWN_ADDRESS_AGE: 2_592_000,
    HEADERS_TIMEOUT: 10,
    REQUEST_TIMEOUT: 30,
    IDLE_TIMEOUT: 60,
    KEEP_ALIVE_TIMEOUT: 72,

    SERVICE_UNAVAILABLE_RETRY_AFTER: 5,
    OUTAGE_LOG_INTERVAL: 10,

    SESSION_COOKIE_NAME: 'sessionid',
    SESSION_COOKIE_AGE: 1_209_600,
    SESSION_COOKIE_SECURE: false,
    SESSION_COOKIE_SAMESITE: 'Lax',
    CSRF_COOKIE_NAME: 'csrftoken',
    CSRF_HEADER_NAME: 'X-CSRFToken',
    CSRF_COOKIE_SECURE: false,
    CSRF_TRUSTED_ORIGINS: [],
    LOGIN_URL: '/api-auth/login/',
    LOGIN_REDIRECT_URL: '/',

    TOKEN_TTL: null,
    TOKEN_MODE: 'single',
    TOKEN_CREATE_ON_USER_CREATED: false,

    STATIC_URL: '/static/',

    AUTH_PASSWORD_VALIDATORS: defaultPasswordValidators(),

    CORS_ALLOWED_ORIGINS: [],
    CORS_ALLOW_ALL_ORIGINS: false,
    CORS_ALLOW_CREDENTIALS: false,
    CORS_ALLOW_HEADERS: ['accept', 'authorization', 'content-type', 'user-agent', 'x-csrftoken', 'x-requested-with'],
    CORS_ALLOW_METHODS: ['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT'],
    CORS_EXPOSE_HEADERS: [],
    CORS_PREFLIGHT_MAX_AGE: 86_400,

    REDIS_URL: null,

    DEBUG: process.env['NODE_ENV'] !== 'production',

    SILENCED_SYSTEM_CHECKS: [],
  };
}

/**
 * Merges user settings over the defaults and freezes the result. Unknown
 * names throw, with the closest known name as a hint, so a typo never
 * silently does nothing.
 */
export function resolveSettings(input: SettingsInput = {}): Readonly<Settings> {
  const defaults = defaultSettings();
  const known = Object.keys(defaults);
  for (const name of Object.keys(input)) {
    if (!Object.hasOwn(defaults, name)) {
      const hint = closest(name, known);
      throw new ImproperlyConfigured(
        `Unknown setting "${name}".${hint ? ` Did you mean "${hint}"?` : ''}`,
      );
    }
  }
  const merged = { ...defaults } as Record<string, unknown>;
  for (const [name, value] of Object.entries(input)) {
    if (value !== undefined) merged[name] = value;
  }
  const settings = merged as unknown as Settings;
  checkSettings(settings);
  return Object.freeze(settings);
}

function checkSettings(s: Settings): void {
  if (s.PAGE_SIZE !== null && (!Number.isInteger(s.PAGE_SIZE) || s.PAGE_SIZE <= 0)) {
    throw new ImproperlyConfigured('PAGE_SIZE must be a positive integer or null.');
  }
  if (!Array.isArray(s.ALLOWED_HOSTS)) {
    throw new ImproperlyConfigured('ALLOWED_HOSTS must be a list of host names.');
  }
  if (!Array.isArray(s.TRUSTED_PROXIES)) {
    throw new ImproperlyConfigured('TRUSTED_PROXIES must be a list of addresses or CIDRs.');
  }
  if (!Array.isArray(s.CORS_ALLOWED_ORIGINS)) {
    throw new ImproperlyConfigured('CORS_ALLOWED_ORIGINS must be a list of origins such as "https://app.example.com".');
  }
  for (const origin of s.CORS_ALLOWED_ORIGINS) {
    // As django-cors-headers' check: scheme and host (and port), nothing else.
    if (typeof origin !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/i.test(origin)) {
      throw new ImproperlyConfigured(`CORS_ALLOWED_ORIGINS: "${String(origin)}" is not an origin (scheme://host[:port], no path).`);
    }
  }
  if (!Array.isArray(s.AUTH_PASSWORD_VALIDATORS) || !s.AUTH_PASSWORD_VALIDATORS.every((v) => typeof v?.validate === 'function')) {
    throw new ImproperlyConfigured('AUTH_PASSWORD_VALIDATORS must be a list of validators (objects with validate()).');
  }
  if (!Array.isArray(s.SILENCED_SYSTEM_CHECKS) || !s.SILENCED_SYSTEM_CHECKS.every((id) => typeof id === 'string')) {
    throw new ImproperlyConfigured('SILENCED_SYSTEM_CHECKS must be a list of check ids such as "security.W012".');
  }
  if (!Array.isArray(s.REMOTE_USER_TRUSTED_PROXIES)) {
    throw new ImproperlyConfigured('REMOTE_USER_TRUSTED_PROXIES must be a list of addresses or CIDRs.');
  }
  if (typeof s.USE_X_FORWARDED_HOST !== 'boolean') {
    throw new ImproperlyConfigured('USE_X_FORWARDED_HOST must be true or false.');
  }
  const ssl = s.SECURE_PROXY_SSL_HEADER;
  if (ssl !== null && (!Array.isArray(ssl) || ssl.length !== 2 || typeof ssl[0] !== 'string' || typeof ssl[1] !== 'string' || ssl[0] === '')) {
    // Django's wording.
    throw new ImproperlyConfigured('The SECURE_PROXY_SSL_HEADER setting must be a tuple containing two values.');
  }
  if (!Number.isInteger(s.DATA_UPLOAD_MAX_MEMORY_SIZE) || s.DATA_UPLOAD_MAX_MEMORY_SIZE <= 0) {
    throw new ImproperlyConfigured('DATA_UPLOAD_MAX_MEMORY_SIZE must be a positive integer.');
  }
  for (const name of ['JSON_MAX_DEPTH', 'JSON_INDENT_MAX_SIZE', 'DATA_UPLOAD_MAX_NUMBER_FIELDS', 'FILE_UPLOAD_MAX_MEMORY_SIZE', 'FILE_UPLOAD_MAX_SIZE'] as const) {
    if (!Number.isInteger(s[name]) || s[name] <= 0) throw new ImproperlyConfigured(`${name} must be a positive integer.`);
  }
  const login = s.LOGIN_FAILURE_RATES;
  if (login === null || typeof login !== 'object' || Object.keys(login).some((k) => !['client', 'username', 'address'].includes(k))) {
    throw new ImproperlyConfigured('LOGIN_FAILURE_RATES must be { client?: rate | null, username?: rate | null, address?: rate | null }.');
  }
  for (const rate of [login.client, login.username, login.address]) {
    if (rate === undefined) continue;
    // The grammar of parseRate (throttling/simple-rate.ts), checked here so createApp rejects it.
    if (rate !== null && (typeof rate !== 'string' || !/^\s*[+-]?\d+\s*\/[smhd]/.test(rate))) {
      throw new ImproperlyConfigured(`Invalid throttle rate "${String(rate)}" in LOGIN_FAILURE_RATES: use "<requests>/<s|m|h|d>".`);
    }
  }
  const backoff = s.LOGIN_FAILURE_BACKOFF;
  if (
    backoff === null || typeof backoff !== 'object' ||
    !(typeof backoff.initial === 'number' && backoff.initial > 0 && Number.isFinite(backoff.initial)) ||
    !(typeof backoff.max === 'number' && backoff.max >= backoff.initial && Number.isFinite(backoff.max))
  ) {
    throw new ImproperlyConfigured('LOGIN_FAILURE_BACKOFF must be { initial: seconds > 0, max: seconds >= initial }.');
  }
  if (s.LOGIN_DEVICE_COOKIE_NAME !== null && (typeof s.LOGIN_DEVICE_COOKIE_NAME !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(s.LOGIN_DEVICE_COOKIE_NAME))) {
    throw new ImproperlyConfigured('LOGIN_DEVICE_COOKIE_NAME must be a cookie name or null.');
  }
  for (const name of ['LOGIN_DEVICE_COOKIE_AGE', 'LOGIN_KNOWN_ADDRESS_AGE'] as const) {
    if (!Number.isInteger(s[name]) || s[name] < 0) throw new ImproperlyConfigured(`${name} must be a whole number of seconds, 0 or more.`);
  }
  for (const name of ['HEADERS_TIMEOUT', 'REQUEST_TIMEOUT', 'IDLE_TIMEOUT', 'KEEP_ALIVE_TIMEOUT', 'SERVICE_UNAVAILABLE_RETRY_AFTER', 'OUTAGE_LOG_INTERVAL'] as const) {
    const value = s[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ImproperlyConfigured(`${name} must be a number of seconds, 0 or more.`);
    }
  }
  // Node refuses a header deadline later than the whole-request deadline.
  if (s.REQUEST_TIMEOUT > 0 && s.HEADERS_TIMEOUT > s.REQUEST_TIMEOUT) {
    throw new ImproperlyConfigured('HEADERS_TIMEOUT must be at most REQUEST_TIMEOUT.');
  }
}

function closest(name: string, candidates: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toUpperCase(), c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : null;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
