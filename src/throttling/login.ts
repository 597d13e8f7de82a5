import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { UserRecord } from '../users/user-record.js';
import { Throttled } from '../exceptions.js';
import { parseRate, throttleStore } from './simple-rate.js';
import type { ThrottleStore } from './store.js';

declare module '../context.js' {
  interface ServiceMap {
    /** Counts failed logins per username and per client address (LOGIN_FAILURE_RATES). */
    loginThrottle: LoginThrottle;
  }
}

// Far above any rate: recording a failure must never be refused by the store.
const RECORD_LIMIT = 1_000_000_000;

/**
 * Failed logins, counted per username and per client address over a sliding
 * window in the app's throttle store (memory, or Redis with REDIS_URL, so N
 * processes share one count). Once either count reaches its rate, every
 * further attempt for that name or from that address is a 429 with
 * `Retry-After` *before* the password is hashed, right or wrong, until the
 * oldest failure leaves the window. Successful logins are not counted.
 *
 * DRF throttles nothing here by default; Trestle does, on every login path:
 * obtain-token, the session login, the admin login and Basic authentication.
 */
export class LoginThrottle {
  /** The 429's message; the expected wait is appended, as for every throttle. */
  message = 'Too many failed login attempts.';
  /** Seconds since the epoch; replace to drive time in tests. */
  timer: () => number = () => Date.now() / 1000;
  private readonly rates: { key: 'username' | 'address'; limit: number; duration: number }[] = [];

  constructor(
    private readonly app: AppContext,
    private readonly store: ThrottleStore = throttleStore(app),
  ) {
    const rates = app.settings.LOGIN_FAILURE_RATES;
    for (const key of ['username', 'address'] as const) {
      const [limit, duration] = parseRate(rates[key] ?? null);
      if (limit !== null && duration !== null) this.rates.push({ key, limit, duration });
    }
  }

  private keys(req: ApiRequest, username: string) {
    // The name is hashed: store keys never carry what a client typed.
    const name = createHash('sha256').update(username.toLowerCase()).digest('hex').slice(0, 32);
    return this.rates.map((r) => ({ ...r, id: r.key === 'username' ? `login_failures_username_${name}` : `login_failures_address_${req.clientIp}` }));
  }

  /** Throws `Throttled` (429, `Retry-After`) when this name or address has failed too often. */
  async check(req: ApiRequest, username: string): Promise<void> {
    const now = this.timer();
    let wait: number | null = null;
    for (const { id, limit, duration } of this.keys(req, username)) {
      // A limit of 0 only reads the window: the store records nothing.
      const hit = await this.store.hit(id, now, duration, 0);
      if (hit.count >= limit) {
        const until = hit.oldest === null ? duration : hit.oldest + duration - now;
        wait = Math.max(wait ?? 0, until, 1);
      }
    }
    if (wait !== null) throw new Throttled(wait, this.message);
  }

  /** Counts one failed login for this name and this address. */
  async failed(req: ApiRequest, username: string): Promise<void> {
    const now = this.timer();
    for (const { id, duration } of this.keys(req, username)) await this.store.hit(id, now, duration, RECORD_LIMIT);
  }
}

/** The app's login throttle (built once, from LOGIN_FAILURE_RATES). */
export function loginThrottle(app: AppContext): LoginThrottle {
  const existing = app.services.tryGet('loginThrottle');
  if (existing) return existing;
  const created = new LoginThrottle(app);
  app.services.set('loginThrottle', created);
  return created;
}

/**
 * `users.authenticate(username, password)` behind the login throttle: a
 * throttled name or address is refused before any hash runs, and a wrong
 * password (or unknown name) counts as one failure. Every built-in login
 * path goes through here.
 */
export async function authenticateLogin(req: ApiRequest, username: string, password: string): Promise<UserRecord | null> {
  const throttle = loginThrottle(req.app);
  await throttle.check(req, username);
  // NUL cannot be stored in a username (PostgreSQL rejects it): such a name is simply unknown.
  const user = username.includes('\0') ? null : await req.app.services.get('users').authenticate(username, password);
  if (!user) await throttle.failed(req, username);
  return user;
}
