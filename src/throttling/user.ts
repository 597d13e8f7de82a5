import type { ApiRequest } from '../request.js';
import { SimpleRateThrottle } from './simple-rate.js';

/**
 * Limits each user (scope `user`), counting by user pk, or by address for
 * unauthenticated requests:
 *
 * ```
 * GET /api/items/ HTTP/1.1
 * Authorization: Token …           (1001st request this day)
 * -> 429 Retry-After: …
 * ```
 */
export class UserRateThrottle extends SimpleRateThrottle {
  override scope: string | null = 'user';

  getCacheKey(req: ApiRequest): string | null {
    const user = req.user as ApiRequest['user'] | null;
    const ident = user && user.isAuthenticated ? String(user.pk) : this.getIdent(req);
    return this.formatKey(this.scope!, ident);
  }
}
