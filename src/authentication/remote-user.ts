import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { User } from '../users/user.js';
import type { Authentication } from './base.js';
import { DuplicateUsername } from '../users/errors.js';
import { ProxyTrust } from '../hosts.js';
import { warnOnce } from '../pagination/base.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Remote-user authentication, as DRF's `RemoteUserAuthentication`: a proxy
 * in front of the app (nginx with SSO, Apache, an identity-aware proxy)
 * authenticated the user and says who it is in a header.
 *
 * ```
 * GET /api/items/ HTTP/1.1
 * Remote-User: alice              (only believed from `trustedProxies` peers)
 * ```
 *
 * The header is ignored unless the socket peer is one of `trustedProxies`
 * (REMOTE_USER_TRUSTED_PROXIES): anyone else could simply send it. This
 * trust is the scheme's own; it says nothing about forwarded host or scheme
 * headers. No header, an untrusted peer or an inactive
 * user: not attempted (`null`). Unknown usernames get a user record with an
 * unusable password when `createUnknownUser` is true (Django's default).
 *
 * @example
 * class SsoAuthentication extends RemoteUserAuthentication { header = 'X-Forwarded-User'; createUnknownUser = false }
 */
export class RemoteUserAuthentication implements Authentication {
  header = 'Remote-User';
  createUnknownUser = true;
  /** Addresses or CIDRs of the proxies that set the header. */
  trustedProxies: readonly string[];
  private trust: ProxyTrust | null = null;

  constructor(protected readonly app: AppContext) {
    this.trustedProxies = app.settings.REMOTE_USER_TRUSTED_PROXIES;
  }

  async authenticate(req: ApiRequest): Promise<[User, null] | null> {
    this.trust ??= new ProxyTrust(this.trustedProxies, `${this.constructor.name}.trustedProxies`);
    if (this.trust.empty) {
      warnOnce(this.app, `remote-user-proxies:${this.constructor.name}`,
        `${this.constructor.name} trusts no proxy, so its header is never believed: set REMOTE_USER_TRUSTED_PROXIES (TRUSTED_PROXIES does not apply to it).`);
    }
    if (!this.trust.isTrusted(req.raw.socket?.remoteAddress)) return null;
    const raw = req.headers[this.header.toLowerCase()];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (!value) return null;
    const username = this.cleanUsername(decodeHeader(value));
    if (!username) return null;
    const user = await this.findOrCreate(username);
    return user && user.isActive ? [user, null] : null;
  }

  /** Django's `RemoteUserBackend.clean_username` hook: adjust the name before lookup. */
  cleanUsername(username: string): string {
    return username;
  }

  private async findOrCreate(username: string): Promise<User | null> {
    if (username.includes('\0')) return null;
    const users = this.app.services.get('users');
    const found = await users.getByUsername(username);
    if (found || !this.createUnknownUser) return found;
    try {
      return await users.createUser({ username });
    } catch (err) {
      // Another request created it first; anything else (a name the store refuses) is "not attempted".
      if (err instanceof DuplicateUsername) return users.getByUsername(username);
      this.app.log.warn({ err, username }, 'remote user could not be created');
      return null;
    }
  }
}

/** Header bytes arrive as latin-1; proxies send UTF-8 names. */
function decodeHeader(value: string): string {
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
