import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import type { ThrottleDecision } from './base.js';
import { SimpleRateThrottle } from './simple-rate.js';

/**
 * Limits by the view's `throttleScope`, per user (or address), so views
 * that share a scope share a budget:
 *
 * ```
 * class Uploads extends APIView { throttleScope = 'uploads'; throttleClasses = [ScopedRateThrottle] }
 * // settings: DEFAULT_THROTTLE_RATES: { uploads: '20/day' }
 * ```
 *
 * A view without `throttleScope` is not throttled.
 */
export class ScopedRateThrottle extends SimpleRateThrottle {
  /** The view's attribute naming the scope. */
  scopeAttr = 'throttleScope';

  // The scope comes from the view, so the rate is resolved per view.
  override bindView(view: APIView): void {
    const scope = (view as unknown as Record<string, unknown>)[this.scopeAttr];
    if (typeof scope !== 'string' || scope === '') return;
    this.scope = scope;
    this.resolve();
  }

  override async allowRequest(req: ApiRequest, view: APIView): Promise<ThrottleDecision> {
    const scope = (view as unknown as Record<string, unknown>)[this.scopeAttr];
    if (typeof scope !== 'string' || scope === '') return { allowed: true };
    if (this.scope !== scope) this.bindView(view);
    return super.allowRequest(req, view);
  }

  getCacheKey(req: ApiRequest): string | null {
    const user = req.user as ApiRequest['user'] | null;
    const ident = user && user.isAuthenticated ? String(user.pk) : this.getIdent(req);
    return this.formatKey(this.scope!, ident);
  }
}
