import type { ApiRequest } from '../request.js';
import { SimpleRateThrottle } from './simple-rate.js';

/**
 * Limits unauthenticated clients by address (scope `anon`):
 *
 * ```
 * GET /api/items/ HTTP/1.1          (no credentials; 101st request this day)
 * -> 429 Retry-After: 3600  {"detail": "Request was throttled. Expected available in 3600 seconds."}
 * ```
 *
 * Authenticated requests are not counted.
 */
export class AnonRateThrottle extends SimpleRateThrottle {
  override scope: string | null = 'anon';

  getCacheKey(req: ApiRequest): string | null {
    const user = req.user as ApiRequest['user'] | null;
    if (user && user.isAuthenticated) return null;
    return this.formatKey(this.scope!, this.getIdent(req));
  }
}
