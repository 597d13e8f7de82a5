import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { User } from '../users/user.js';
import type { Authentication } from './base.js';
import { enforceCsrf } from './csrf.js';
import { knownSession, sessionUserId } from '../sessions/session.js';

/**
 * Session authentication, as DRF's `SessionAuthentication`: the user who
 * logged in through `/api-auth/login/` (or `login()`), for same-site AJAX.
 *
 * ```
 * POST /api/items/ HTTP/1.1
 * Cookie: sessionid=…; csrftoken=…
 * X-CSRFToken: <token from the csrftoken cookie or the login page>
 * ```
 *
 * No live session, or an inactive user: not attempted (`null`). A
 * session-authenticated unsafe request (POST, PUT, PATCH, DELETE) without a
 * valid CSRF token: 403 `CSRF Failed: <reason>`. There is no
 * `WWW-Authenticate`, so denials are 403, never 401.
 */
export class SessionAuthentication implements Authentication {
  constructor(protected readonly app: AppContext) {}

  /**
   * `null` at once when no cookie can name a session (the next scheme runs
   * without waiting); otherwise a promise, after the session is loaded.
   */
  authenticate(req: ApiRequest): Promise<[User, null] | null> | null {
    if (knownSession(req) === null) return null;
    return this.authenticateSession(req);
  }

  private async authenticateSession(req: ApiRequest): Promise<[User, null] | null> {
    const pk = await sessionUserId(req);
    if (pk === null) return null;
    const user = await this.app.services.get('users').getById(pk);
    if (!user || !user.isActive) return null;
    this.enforceCsrf(req);
    return [user, null];
  }

  /** Override to exempt a scheme subclass from CSRF (rarely right). */
  enforceCsrf(req: ApiRequest): void {
    enforceCsrf(req);
  }
}
