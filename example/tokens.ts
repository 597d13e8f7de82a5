// Token pieces of the example service: the obtain-token routes, a variant
// that also returns the user's id and email, and one throttled against
// password guessing. Wired into the example's routes by example/main.ts.
import {
  ObtainAuthToken,
  obtainAuthToken,
  path,
  type ApiRequest,
  type APIView,
  type RouteEntry,
  type Throttle,
  type ThrottleDecision,
  type Token,
} from '../src/index.js';
import type { UserRecord } from '../src/users/user-record.js';

/**
 * `POST /api-token-auth/custom/` → `{"token": "…", "user_id": 1, "email": "alice@example.com"}`
 * (DRF's documented `CustomAuthToken`).
 */
export class CustomAuthToken extends ObtainAuthToken {
  override responseData(token: Token, user: UserRecord): Record<string, unknown> {
    return { token: token.key, user_id: user.pk, email: user.email };
  }
}

/**
 * Limits login attempts twice over: per client address (one machine trying
 * many usernames) and per username (many machines trying one account).
 * In-process fixed windows, enough for one process; with several processes
 * use a shared-store throttle instead.
 */
export class LoginRateThrottle implements Throttle {
  /** Attempts allowed per window, per address and per username. */
  attempts = 5;
  windowSeconds = 60;
  private readonly hits = new Map<string, { start: number; count: number }>();

  allowRequest(req: ApiRequest, _view: APIView): ThrottleDecision {
    const now = Date.now();
    let wait: number | null = null;
    for (const key of this.keys(req)) {
      const entry = this.hits.get(key);
      if (!entry || now - entry.start >= this.windowSeconds * 1000) {
        this.hits.set(key, { start: now, count: 1 });
        continue;
      }
      entry.count++;
      if (entry.count > this.attempts) {
        const left = (entry.start + this.windowSeconds * 1000 - now) / 1000;
        wait = Math.max(wait ?? 0, left);
      }
    }
    if (this.hits.size > 10_000) this.sweep(now);
    return wait === null ? { allowed: true } : { allowed: false, wait };
  }

  private keys(req: ApiRequest): string[] {
    const keys = [`addr:${req.clientIp}`];
    let username: unknown;
    try {
      username = (req.data as Record<string, unknown> | null)?.['username'];
    } catch {
      // A body that does not parse is refused by the view itself with a 400.
    }
    if (typeof username === 'string' && username.trim() !== '') keys.push(`user:${username.trim().toLowerCase()}`);
    return keys;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.hits) {
      if (now - entry.start >= this.windowSeconds * 1000) this.hits.delete(key);
    }
  }
}

/** The obtain-token view with login throttling: DRF's way is a subclass listing throttle classes. */
export class ThrottledObtainAuthToken extends ObtainAuthToken {
  override throttleClasses = [LoginRateThrottle];
}

/** Routes to add to the example service. */
export const tokenRoutes: RouteEntry[] = [
  path('api-token-auth/', obtainAuthToken, { name: 'api-token-auth' }),
  path('api-token-auth/custom/', CustomAuthToken, { name: 'api-token-auth-custom' }),
  path('api-token-auth/throttled/', ThrottledObtainAuthToken, { name: 'api-token-auth-throttled' }),
];
