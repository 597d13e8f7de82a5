import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import type { PluginClass } from '../context.js';

/**
 * A throttle. `allowRequest` decides; when it says no, `wait` gives the
 * seconds until the next request would be allowed (for `Retry-After`), or
 * `null` when unknown. Per-request state must not live on the instance: one
 * instance serves every request of a view.
 */
export interface Throttle {
  allowRequest(req: ApiRequest, view: APIView): Promise<ThrottleDecision> | ThrottleDecision;
  /**
   * Called once when the view that owns this instance binds to an app, so
   * configuration errors (a scope without a rate) surface at start-up.
   */
  bindView?(view: APIView): void;
}

/** `wait` is in seconds; `null` when the throttle cannot tell. */
export type ThrottleDecision = { allowed: true } | { allowed: false; wait: number | null };

export type ThrottleClass = PluginClass<Throttle>;
