/** What a store reports for one throttled request. */
export interface ThrottleHit {
  /** Whether the request was recorded (it fits in the window). */
  allowed: boolean;
  /** Requests in the window before this one (after dropping expired ones). */
  count: number;
  /** Timestamp (seconds) of the oldest request still in the window, when any. */
  oldest: number | null;
}

/**
 * Where request histories live. `hit` is atomic: drop timestamps at or
 * before `now - duration`, refuse when `limit` remain, else record `now`.
 * DRF keeps the same history in its cache under `throttle_<scope>_<ident>`.
 */
export interface ThrottleStore {
  hit(key: string, now: number, duration: number, limit: number): Promise<ThrottleHit>;
}

/**
 * Histories in process memory, newest first as in DRF. Correct for one
 * process; with REDIS_URL set, throttles use `RedisThrottleStore` instead.
 */
export class MemoryThrottleStore implements ThrottleStore {
  private readonly histories = new Map<string, { history: number[]; expires: number }>();
  /** Sweep expired keys when the map grows past this many entries. */
  maxKeys = 10_000;

  async hit(key: string, now: number, duration: number, limit: number): Promise<ThrottleHit> {
    const entry = this.histories.get(key);
    const history = entry && entry.expires > now ? entry.history : [];
    while (history.length > 0 && history[history.length - 1]! <= now - duration) history.pop();
    const count = history.length;
    if (count >= limit) return { allowed: false, count, oldest: count > 0 ? history[count - 1]! : null };
    history.unshift(now);
    this.histories.set(key, { history, expires: now + duration });
    if (this.histories.size > this.maxKeys) this.sweep(now);
    return { allowed: true, count, oldest: history[history.length - 1]! };
  }

  private sweep(now: number): void {
    for (const [k, v] of this.histories) if (v.expires <= now) this.histories.delete(k);
  }
}
