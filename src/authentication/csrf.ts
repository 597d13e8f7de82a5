import type { ApiRequest } from '../request.js';
import { PermissionDenied } from '../exceptions.js';
import { parseMediaType } from '../media-types.js';
import { randomString, timingSafeEqual } from '../security.js';
import { setCookie } from '../cookies.js';
import { inProcessRequest } from '../in-process.js';

/**
 * CSRF protection as Django's `CsrfViewMiddleware` (Django 4.x/5.x), which
 * DRF's `SessionAuthentication` runs for session-authenticated requests:
 *
 * ```
 * POST /api/items/ HTTP/1.1
 * Cookie: sessionid=…; csrftoken=<32-char secret>
 * X-CSRFToken: <64-char masked token>        (or form field csrfmiddlewaretoken)
 * Origin: https://api.example.com            (checked when sent)
 * Referer: https://api.example.com/page/     (required over HTTPS without Origin)
 * ```
 *
 * The cookie holds a 32-character secret; pages get a 64-character masked
 * token (random mask + secret shifted by the mask), so the token differs on
 * every response (BREACH) while any of them matches the cookie.
 */

export const CSRF_SECRET_LENGTH = 32;
export const CSRF_TOKEN_LENGTH = 2 * CSRF_SECRET_LENGTH;
export const CSRF_ALLOWED_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** A year, as Django's CSRF_COOKIE_AGE. */
export const CSRF_COOKIE_AGE = 31_449_600;

// Django's reason strings, byte for byte.
export const REASON_BAD_ORIGIN = 'Origin checking failed - %s does not match any trusted origins.';
export const REASON_NO_REFERER = 'Referer checking failed - no Referer.';
export const REASON_BAD_REFERER = 'Referer checking failed - %s does not match any trusted origins.';
export const REASON_NO_CSRF_COOKIE = 'CSRF cookie not set.';
export const REASON_CSRF_TOKEN_MISSING = 'CSRF token missing.';
export const REASON_MALFORMED_REFERER = 'Referer checking failed - Referer is malformed.';
export const REASON_INSECURE_REFERER = 'Referer checking failed - Referer is insecure while host is secure.';
export const REASON_INCORRECT_LENGTH = 'has incorrect length';
export const REASON_INVALID_CHARACTERS = 'has invalid characters';
/** Trestle's addition: a browser said the request comes from another site. */
export const REASON_CROSS_SITE = 'Sec-Fetch-Site checking failed - the request is cross-site.';

const SAFE_CSRF_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const CSRF_STATE = Symbol('trestle.csrf');

interface CsrfState {
  /** The secret of this request: from the cookie, or newly made. */
  secret: string | null;
}

class InvalidTokenFormat extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Throws `InvalidTokenFormat` unless `token` is 32 or 64 letters and digits. */
function checkTokenFormat(token: string): void {
  if (token.length !== CSRF_SECRET_LENGTH && token.length !== CSRF_TOKEN_LENGTH) {
    throw new InvalidTokenFormat(REASON_INCORRECT_LENGTH);
  }
  if (/[^a-zA-Z0-9]/.test(token)) throw new InvalidTokenFormat(REASON_INVALID_CHARACTERS);
}

/** A fresh 32-character secret. */
export function newCsrfSecret(): string {
  return randomString(CSRF_SECRET_LENGTH, CSRF_ALLOWED_CHARS);
}

/** Masks a secret with a fresh random mask: `mask + cipher`, 64 characters. */
export function maskCipherSecret(secret: string): string {
  const chars = CSRF_ALLOWED_CHARS;
  const mask = newCsrfSecret();
  let cipher = '';
  for (let i = 0; i < secret.length; i++) {
    cipher += chars[(chars.indexOf(secret[i]!) + chars.indexOf(mask[i]!)) % chars.length];
  }
  return mask + cipher;
}

/** The secret inside a 64-character masked token. */
export function unmaskCipherToken(token: string): string {
  const chars = CSRF_ALLOWED_CHARS;
  const mask = token.slice(0, CSRF_SECRET_LENGTH);
  const cipher = token.slice(CSRF_SECRET_LENGTH);
  let secret = '';
  for (let i = 0; i < cipher.length; i++) {
    const n = chars.indexOf(cipher[i]!) - chars.indexOf(mask[i]!);
    secret += chars[(n + chars.length) % chars.length];
  }
  return secret;
}

/** Whether a (masked or bare) token carries `secret`, compared in constant time. */
export function csrfTokenMatches(token: string, secret: string): boolean {
  const candidate = token.length === CSRF_TOKEN_LENGTH ? unmaskCipherToken(token) : token;
  return timingSafeEqual(candidate, secret);
}

function state(req: ApiRequest): CsrfState {
  let s = req.locals[CSRF_STATE] as CsrfState | undefined;
  if (!s) {
    s = { secret: null };
    try {
      s.secret = cookieSecret(req);
    } catch {
      s.secret = null; // a malformed cookie is replaced when a token is next handed out
    }
    req.locals[CSRF_STATE] = s;
  }
  return s;
}

/** The secret in the CSRF cookie; null when absent; throws when malformed. */
function cookieSecret(req: ApiRequest): string | null {
  const value = req.cookies[req.app.settings.CSRF_COOKIE_NAME];
  if (value === undefined) return null;
  checkTokenFormat(value);
  // Cookies set before Django 4.0 held a masked token.
  return value.length === CSRF_TOKEN_LENGTH ? unmaskCipherToken(value) : value;
}

function setCsrfCookie(req: ApiRequest, secret: string): void {
  const s = req.app.settings;
  setCookie(req.reply, s.CSRF_COOKIE_NAME, secret, {
    path: '/',
    maxAge: CSRF_COOKIE_AGE,
    expires: new Date(Date.now() + CSRF_COOKIE_AGE * 1000),
    sameSite: 'lax',
    secure: s.CSRF_COOKIE_SECURE,
    httpOnly: false, // JavaScript reads it to fill the X-CSRFToken header
  });
}

/**
 * A masked CSRF token for this request, setting the `csrftoken` cookie (a new
 * secret when none is valid), as Django's `get_token`. Put it in a form's
 * `csrfmiddlewaretoken` field or send it back in `X-CSRFToken`.
 */
export function getCsrfToken(req: ApiRequest): string {
  const s = state(req);
  s.secret ??= newCsrfSecret();
  setCsrfCookie(req, s.secret);
  return maskCipherSecret(s.secret);
}

/** Makes sure the response carries the `csrftoken` cookie (Django's `ensure_csrf_cookie`). */
export function ensureCsrfCookie(req: ApiRequest): void {
  getCsrfToken(req);
}

/** Replaces the CSRF secret (on login), as Django's `rotate_token`. */
export function rotateCsrfToken(req: ApiRequest): void {
  const s = state(req);
  s.secret = newCsrfSecret();
  setCsrfCookie(req, s.secret);
}

/**
 * Why this request fails Django's CSRF check, or `null` when it passes.
 * Safe methods always pass.
 */
export function checkCsrf(req: ApiRequest): string | null {
  if (SAFE_CSRF_METHODS.has(req.method)) return null;
  // As Django's test client: the test client (trestle/test) skips CSRF unless told to enforce it.
  if (inProcessRequest(req.raw.raw)?.skipCsrfChecks) return null;
  const origin = header(req, 'origin');
  if (origin !== undefined) {
    if (!originVerified(req, origin)) return REASON_BAD_ORIGIN.replace('%s', origin);
  } else {
    // Browsers send Origin on unsafe requests; one without it that says
    // cross-site is refused whatever the scheme (stricter than Django).
    if (header(req, 'sec-fetch-site')?.trim().toLowerCase() === 'cross-site') return REASON_CROSS_SITE;
    if (req.isSecure()) {
      const reason = checkReferer(req);
      if (reason) return reason;
    }
  }
  return checkToken(req);
}

/** Throws 403 `CSRF Failed: <reason>` unless the request passes `checkCsrf`. */
export function enforceCsrf(req: ApiRequest): void {
  const reason = checkCsrf(req);
  if (reason) throw new PermissionDenied(`CSRF Failed: ${reason}`);
}

function checkToken(req: ApiRequest): string | null {
  let secret: string | null;
  try {
    secret = cookieSecret(req);
  } catch (err) {
    return `CSRF cookie ${(err as InvalidTokenFormat).reason}.`;
  }
  if (secret === null) return REASON_NO_CSRF_COOKIE;

  let token = '';
  let source = 'POST';
  if (req.method === 'POST' && isFormMediaType(req.contentType)) {
    const field = (req.data as Record<string, unknown> | null)?.['csrfmiddlewaretoken'];
    if (typeof field === 'string') token = field;
  }
  if (token === '') {
    const headerName = csrfHeaderName(req.app.settings.CSRF_HEADER_NAME);
    const value = header(req, headerName.toLowerCase());
    if (value === undefined) return REASON_CSRF_TOKEN_MISSING;
    token = value;
    source = `the '${pythonTitle(headerName)}' HTTP header`;
  }
  try {
    checkTokenFormat(token);
  } catch (err) {
    return `CSRF token from ${source} ${(err as InvalidTokenFormat).reason}.`;
  }
  if (!csrfTokenMatches(token, secret)) return `CSRF token from ${source} incorrect.`;
  return null;
}

function originVerified(req: ApiRequest, origin: string): boolean {
  let host: string | null = null;
  try {
    host = req.getHost();
  } catch {
    host = null;
  }
  if (host !== null && origin === `${req.scheme}://${host}`) return true;
  const trusted = req.app.settings.CSRF_TRUSTED_ORIGINS;
  if (trusted.some((t) => !t.includes('*') && t === origin)) return true;
  const parsed = splitUrl(origin);
  if (!parsed) return false;
  return trusted.some((t) => {
    if (!t.includes('*')) return false;
    const p = splitUrl(t);
    return p !== null && p.scheme === parsed.scheme && isSameDomain(parsed.netloc, p.netloc.slice(p.netloc.indexOf('*') + 1));
  });
}

function checkReferer(req: ApiRequest): string | null {
  const referer = header(req, 'referer');
  if (referer === undefined) return REASON_NO_REFERER;
  const parsed = splitUrl(referer);
  if (!parsed || parsed.scheme === '' || parsed.netloc === '') return REASON_MALFORMED_REFERER;
  if (parsed.scheme !== 'https') return REASON_INSECURE_REFERER;
  const shown = parsed.scheme + referer.slice(referer.indexOf(':'));
  const trustedHosts = req.app.settings.CSRF_TRUSTED_ORIGINS.map((o) => (splitUrl(o)?.netloc ?? '').replace(/^\*+/, ''));
  if (trustedHosts.some((h) => isSameDomain(parsed.netloc, h))) return null;
  let good: string;
  try {
    good = req.getHost();
  } catch {
    return REASON_BAD_REFERER.replace('%s', shown);
  }
  return isSameDomain(parsed.netloc, good) ? null : REASON_BAD_REFERER.replace('%s', shown);
}

/** Django's `is_same_domain`: exact match, or a `.example.com` pattern and its subdomains. */
function isSameDomain(host: string, pattern: string): boolean {
  if (!pattern) return false;
  const p = pattern.toLowerCase();
  return (p.startsWith('.') && (host.endsWith(p) || host === p.slice(1))) || p === host;
}

/** Scheme (lower-cased) and netloc as Python's `urlparse`; null for an unbalanced IPv6 bracket. */
function splitUrl(url: string): { scheme: string; netloc: string } | null {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(url);
  const scheme = m ? m[1]!.toLowerCase() : '';
  const rest = m ? m[2]! : url;
  if (!rest.startsWith('//')) return { scheme, netloc: '' };
  const netloc = /^\/\/([^/?#]*)/.exec(rest)![1]!;
  if (netloc.includes('[') !== netloc.includes(']')) return null;
  return { scheme, netloc };
}

function isFormMediaType(contentType: string): boolean {
  const { type, subtype } = parseMediaType(contentType);
  const base = `${type}/${subtype}`;
  return base === 'application/x-www-form-urlencoded' || base === 'multipart/form-data';
}

/** Accepts `X-CSRFToken` or Django's META spelling `HTTP_X_CSRFTOKEN`. */
function csrfHeaderName(setting: string): string {
  return setting.startsWith('HTTP_') ? setting.slice(5).replace(/_/g, '-') : setting;
}

/** Python's `str.title()` for ASCII header names: `x-csrftoken` -> `X-Csrftoken`. */
function pythonTitle(name: string): string {
  let out = '';
  let prevCased = false;
  for (const ch of name) {
    const cased = /[a-zA-Z]/.test(ch);
    out += cased ? (prevCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prevCased = cased;
  }
  return out;
}

function header(req: ApiRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
