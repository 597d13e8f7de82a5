import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import type { Throttle, ThrottleDecision } from './base.js';
import { ImproperlyConfigured } from '../exceptions.js';
import { redisClient } from '../redis.js';
import { MemoryThrottleStore, type ThrottleHit, type ThrottleStore } from './store.js';
import { isOutageError } from '../outage.js';
import { RedisThrottleStore } from './redis-store.js';

declare module '../context.js' {
  interface ServiceMap {
    /** Where throttle histories live: Redis with REDIS_URL, else process memory. */
    throttleStore: ThrottleStore;
  }
}

const PERIODS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses `'<requests>/<period>'`; only the period's first letter counts
 * (`5/min`, `100/day`), as DRF's `parse_rate`. `null` means no limit.
 */
export function parseRate(rate: string | null): [numRequests: number, duration: number] | [null, null] {
  if (rate === null) return [null, null];
  const slash = rate.indexOf('/');
  const num = rate.slice(0, slash);
  const duration = PERIODS[rate.slice(slash + 1, slash + 2)];
  if (slash === -1 || !/^\s*[+-]?\d+\s*$/.test(num) || duration === undefined) {
    throw new ImproperlyConfigured(`Invalid throttle rate "${rate}": use "<requests>/<s|m|h|d>".`);
  }
  return [Number.parseInt(num, 10), duration];
}

/** The app's throttle store: a registered `throttleStore`, else Redis with REDIS_URL, else memory. */
export function throttleStore(app: AppContext): ThrottleStore {
  const existing = app.services.tryGet('throttleStore');
  if (existing) return existing;
  const redis = redisClient(app);
  const store = redis ? new RedisThrottleStore(redis) : new MemoryThrottleStore();
  app.services.set('throttleStore', store);
  return store;
}

/**
 * DRF's `SimpleRateThrottle`: at most N requests per period per client,
 * counted over a sliding window of request timestamps kept under
 * `throttle_<scope>_<ident>`. Subclasses give `scope` (the key in
 * DEFAULT_THROTTLE_RATES) or `rate`, and `getCacheKey`.
 *
 * The rate is resolved when the view binds, so a scope without a rate fails
 * at start-up, not at the first request.
 *
 * @example
 * class BurstRateThrottle extends UserRateThrottle { scope = 'burst' }
 * // settings: DEFAULT_THROTTLE_RATES: { burst: '60/min' }
 */
export abstract class SimpleRateThrottle implements Throttle {
  /** The key in DEFAULT_THROTTLE_RATES. */
  scope: string | null = null;
  /** `'<n>/<period>'`; when unset, read from DEFAULT_THROTTLE_RATES[scope]. */
  rate?: string | null;
  /** Seconds since the epoch; replace to drive time in tests. */
  timer: () => number = () => Date.now() / 1000;
  cacheFormat = 'throttle_%(scope)s_%(ident)s';
  /** Where histories live; defaults to the app's throttle store. */
  store?: ThrottleStore;
  /**
   * While the store (Redis) is unreachable: `true` lets requests through
   * uncounted, `false` answers 503. Rate limits are about fair use, so a
   * Redis outage should not become an outage of the whole API; a throttle
   * that guards against abuse (password guessing) sets `false`.
   */
  failOpen = true;

  private parsed: { numRequests: number | null; duration: number | null } | null = null;

  constructor(protected readonly app: AppContext) {}

  /** The identity to count requests against, or `null` to not throttle this request. */
  abstract getCacheKey(req: ApiRequest, view: APIView): string | null;

  /** The rate for `scope`; throws ImproperlyConfigured when the scope has none. */
  getRate(): string | null {
    if (!this.scope) {
      throw new ImproperlyConfigured(`You must set either \`.scope\` or \`.rate\` for '${this.constructor.name}' throttle`);
    }
    const rates = this.app.settings.DEFAULT_THROTTLE_RATES;
    if (!Object.hasOwn(rates, this.scope)) {
      throw new ImproperlyConfigured(`No default throttle rate set for '${this.scope}' scope`);
    }
    return rates[this.scope] ?? null;
  }

  /** Resolves the rate once per route (called by the view when it binds). */
  bindView(_view: APIView): void {
    this.resolve();
  }

  protected resolve(): { numRequests: number | null; duration: number | null } {
    if (this.parsed) return this.parsed;
    if (!this.rate) this.rate = this.getRate();
    const [numRequests, duration] = parseRate(this.rate);
    this.parsed = { numRequests, duration };
    return this.parsed;
  }

  /** DRF's `get_ident`: the client address (X-Forwarded-For only through TRUSTED_PROXIES). */
  getIdent(req: ApiRequest): string {
    return req.clientIp;
  }

  protected formatKey(scope: string, ident: string): string {
    return this.cacheFormat.replace('%(scope)s', scope).replace('%(ident)s', ident);
  }

  async allowRequest(req: ApiRequest, view: APIView): Promise<ThrottleDecision> {
    const { numRequests, duration } = this.resolve();
    if (numRequests === null || duration === null) return { allowed: true };
    const key = this.getCacheKey(req, view);
    if (key === null) return { allowed: true };
    const now = this.timer();
    let hit: ThrottleHit;
    try {
      hit = await (this.store ?? throttleStore(this.app)).hit(key, now, duration, numRequests);
    } catch (err) {
      if (!this.failOpen || !isOutageError(err)) throw err;
      this.warnUncounted(err, now);
      return { allowed: true };
    }
    if (hit.allowed) return { allowed: true };
    return { allowed: false, wait: this.wait(now, duration, numRequests, hit.count, hit.oldest) };
  }

  private warnedAt = -Infinity;

  // One warning a minute per throttle while its store is away, not one per request.
  private warnUncounted(err: unknown, now: number): void {
    if (now - this.warnedAt < 60) return;
    this.warnedAt = now;
    this.app.log.warn({ err }, `throttle store unreachable: ${this.constructor.name} lets requests through uncounted`);
  }

  /** Seconds until the next request fits: DRF 3.15's `wait()`. */
  wait(now: number, duration: number, numRequests: number, count: number, oldest: number | null): number | null {
    const remaining = count > 0 && oldest !== null ? duration - (now - oldest) : duration;
    const available = numRequests - count + 1;
    if (available <= 0) return null;
    return remaining / available;
  }
}
