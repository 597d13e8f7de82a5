import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { User } from '../users/user.js';
import type { Authentication } from './base.js';
import { authorizationCredentials } from './authorization-header.js';
import { AuthenticationFailed } from '../exceptions.js';
import { authenticateLogin } from '../throttling/login.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LATIN1 = new TextDecoder('latin1');

/**
 * HTTP Basic authentication, as DRF's `BasicAuthentication`:
 *
 * ```
 * GET /api/items/ HTTP/1.1
 * Authorization: Basic YWxpY2U6czNjcmV0        (base64 of "alice:s3cret")
 * ```
 *
 * No header or another keyword: not attempted (`null`). A malformed header
 * or wrong credentials: 401 with `WWW-Authenticate: Basic realm="api"`.
 * Unknown usernames cost one password hash too, so timing does not reveal
 * which accounts exist. Failed attempts count towards LOGIN_FAILURE_RATES
 * (429 past them); a device cookie sent along is honoured but none is set.
 * Send it over HTTPS only.
 *
 * @example
 * class StaffBasic extends BasicAuthentication { realm = 'staff' }
 */
export class BasicAuthentication implements Authentication {
  keyword = 'Basic';
  /** DRF's `www_authenticate_realm`. */
  realm = 'api';

  noCredentialsMessage = 'Invalid basic header. No credentials provided.';
  spacesMessage = 'Invalid basic header. Credentials string should not contain spaces.';
  badEncodingMessage = 'Invalid basic header. Credentials not correctly base64 encoded.';
  invalidCredentialsMessage = 'Invalid username/password.';
  inactiveUserMessage = 'User inactive or deleted.';

  constructor(protected readonly app: AppContext) {}

  /**
   * `null` at once when the request carries no Basic credentials (the next
   * scheme runs without waiting); otherwise a promise, rejected with
   * `AuthenticationFailed` for a malformed header or wrong credentials.
   */
  authenticate(req: ApiRequest): Promise<[User, null] | null> | null {
    let credentials: string | null;
    try {
      credentials = authorizationCredentials(req, this.keyword, this);
    } catch (err) {
      return Promise.reject(err);
    }
    if (credentials === null) return null;

    const decoded = pythonB64decode(credentials);
    const text = decoded === null ? null : decodeUtf8OrLatin1(decoded);
    const colon = text === null ? -1 : text.indexOf(':');
    if (text === null || colon === -1) return Promise.reject(new AuthenticationFailed(this.badEncodingMessage));
    return this.authenticateCredentials(text.slice(0, colon), text.slice(colon + 1), req);
  }

  /** Checks username and password against the `users` store: DRF's `authenticate_credentials`. */
  async authenticateCredentials(username: string, password: string, req: ApiRequest): Promise<[User, null]> {
    const user = await authenticateLogin(req, username, password, { issueDevice: false });
    if (!user) throw new AuthenticationFailed(this.invalidCredentialsMessage);
    if (!user.isActive) throw new AuthenticationFailed(this.inactiveUserMessage);
    return [user, null];
  }

  authenticateHeader(_req: ApiRequest): string {
    return `${this.keyword} realm="${this.realm}"`;
  }
}

function decodeUtf8OrLatin1(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    return LATIN1.decode(bytes); // DRF retries latin-1 on UnicodeDecodeError
  }
}

const B64_VALUES = (() => {
  const table = new Int16Array(256).fill(-1);
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = i;
  return table;
})();

/**
 * Python's `base64.b64decode(s)` (binascii non-strict mode), so the same
 * headers decode as under DRF: characters outside the alphabet are skipped,
 * decoding stops at complete padding, and a bad length or missing padding is
 * an error (`null`).
 */
export function pythonB64decode(input: string): Uint8Array | null {
  const out: number[] = [];
  let quadPos = 0;
  let leftChar = 0;
  let pads = 0;
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code > 0xff) return null; // not latin-1: cannot have come from a header byte
    if (code === 0x3d /* = */) {
      if (quadPos >= 2 && quadPos + ++pads >= 4) return Uint8Array.from(out);
      continue;
    }
    const v = B64_VALUES[code]!;
    if (v === -1) continue;
    pads = 0;
    switch (quadPos) {
      case 0:
        quadPos = 1;
        leftChar = v;
        break;
      case 1:
        quadPos = 2;
        out.push(((leftChar << 2) | (v >> 4)) & 0xff);
        leftChar = v & 0x0f;
        break;
      case 2:
        quadPos = 3;
        out.push(((leftChar << 4) | (v >> 2)) & 0xff);
        leftChar = v & 0x03;
        break;
      default:
        quadPos = 0;
        out.push(((leftChar << 6) | v) & 0xff);
        leftChar = 0;
    }
  }
  return quadPos === 0 ? Uint8Array.from(out) : null;
}
