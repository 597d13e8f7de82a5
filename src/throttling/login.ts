import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { UserRecord } from '../users/user-record.js';
import { Throttled } from '../exceptions.js';
import { setCookie } from '../cookies.js';
import { parseRate, throttleStore } from './simple-rate.js';
import type { ThrottleHit, ThrottleStore } from './store.js';

declare module '../context.js' {
  interface ServiceMap {
    /** Counts failed logins per username and client (LOGIN_FAILURE_RATES). */
    loginThrottle: LoginThrottle;
  }
}

// Far above any rate: recording a failure must never be refused by the store.
const RECORD_LIMIT = 1_000_000_000;

/** The defaults of LOGIN_FAILURE_RATES, for keys a configuration leaves out. */
export const LOGIN_FAILURE_RATE_DEFAULTS = { client: '10/h', username: '20/h', address: '100/h' } as const;

type RateKey = keyof typeof LOGIN_FAILURE_RATE_DEFAULTS;

/** What `check` found out about one login attempt; `failed` and `succeeded` take it back. */
export interface LoginAttempt {
  readonly username: string;
  /** sha256 of the lower-cased name: store keys never carry what a client typed. */
  readonly name: string;
  readonly address: string;
  /** The nonce of a valid device cookie for this name, else `null`. */
  readonly device: string | null;
  /** A valid device cookie, or an address this name logged in from before. */
  readonly known: boolean;
  readonly knownAddress: boolean;
}

/**
 * Failed logins, counted so that guessing is slow and nobody else can lock
 * an owner out (OWASP's "device cookies" scheme):
 *
 * - per username *and client* (`client`): the client is its signed device
 *   cookie when it sends one valid for the name, else its address. Past
 *   the rate that client alone gets 429 for that name until its oldest
 *   failure leaves the window; the owner elsewhere is not affected.
 * - per username from clients *not known* for it (`username`): a guess
 *   spread over many addresses. Past the rate, unknown clients get one
 *   attempt per delay (LOGIN_FAILURE_BACKOFF: 1 s doubling to 60 s), never
 *   a wall; known clients are not slowed down at all.
 * - per address over all names (`address`), from clients not known for the
 *   name: one address spraying many names.
 *
 * A client is *known* for a name when it sends a device cookie issued on a
 * successful login as that name, or when its address logged in as that
 * name before (LOGIN_KNOWN_ADDRESS_AGE; for API clients that keep no
 * cookie). Throttled attempts are refused before any password is hashed.
 * Counts live in the app's throttle store (memory, or Redis with
 * REDIS_URL, shared by N processes).
 */
export class LoginThrottle {
  /** The 429's message; the expected wait is appended, as for every throttle. */
  message = 'Too many failed login attempts.';
  /** Seconds since the epoch; replace to drive time in tests. */
  timer: () => number = () => Date.now() / 1000;
  private readonly rates: Partial<Record<RateKey, { limit: number; duration: number }>> = {};
  private deviceKey: Buffer | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly store: ThrottleStore = throttleStore(app),
  ) {
    const rates = app.settings.LOGIN_FAILURE_RATES;
    for (const key of ['client', 'username', 'address'] as const) {
      const [limit, duration] = parseRate(rates[key] === undefined ? LOGIN_FAILURE_RATE_DEFAULTS[key] : rates[key]);
      if (limit !== null && duration !== null) this.rates[key] = { limit, duration };
    }
  }

  /** Throws `Throttled` (429, `Retry-After`) when this attempt must wait; else what `failed`/`succeeded` need. */
  async check(req: ApiRequest, username: string): Promise<LoginAttempt> {
    const now = this.timer();
    const name = createHash('sha256').update(username.toLowerCase()).digest('hex').slice(0, 32);
    const address = req.clientIp;
    const device = this.validDevice(req, name);
    const { client, username: perName, address: perAddress } = this.rates;
    const knownAge = this.app.settings.LOGIN_KNOWN_ADDRESS_AGE;
    // A limit of 0 only reads a window: the store records nothing.
    const [clientHit, knownHit, nameHit, addressHit] = await Promise.all([
      client ? this.store.hit(this.clientKey(name, device, address), now, client.duration, 0) : null,
      device === null && knownAge > 0 ? this.store.hit(`login_known_${name}_${address}`, now, knownAge, 0) : null,
      device === null && perName ? this.store.hit(`login_failures_username_${name}`, now, perName.duration, 0) : null,
      device === null && perAddress ? this.store.hit(`login_failures_address_${address}`, now, perAddress.duration, 0) : null,
    ]);
    const knownAddress = knownHit !== null && knownHit.count > 0;
    const attempt: LoginAttempt = { username, name, address, device, known: device !== null || knownAddress, knownAddress };

    // The address count never applies to a client known for the name.
    const walls = [wallFor(clientHit, client, now), attempt.known ? null : wallFor(addressHit, perAddress, now)].filter((w) => w !== null);
    if (walls.length > 0) throw new Throttled(Math.max(...walls), this.message);

    if (!attempt.known && nameHit && perName && nameHit.count >= perName.limit) {
      // Backing off: one attempt per delay for this name from any unknown client,
      // the slot taken atomically, so parallel guesses do not share it.
      const { initial, max } = this.app.settings.LOGIN_FAILURE_BACKOFF;
      const delay = Math.min(initial * 2 ** Math.min(nameHit.count - perName.limit, 60), max);
      const slot = await this.store.hit(`login_backoff_${name}`, now, delay, 1);
      if (!slot.allowed) throw new Throttled(Math.max((slot.oldest ?? now) + delay - now, 1), this.message);
      // The store keeps a key as long as the window it was written with: keep this
      // one for the longest delay, as the next attempt may wait longer than this one.
      await this.store.hit(`login_backoff_${name}`, now, max, RECORD_LIMIT);
    }
    return attempt;
  }

  /** Counts one failed login: for this client and name; from an unknown client, also for the name and the address. */
  async failed(attempt: LoginAttempt): Promise<void> {
    const now = this.timer();
    const { client, username: perName, address: perAddress } = this.rates;
    const writes: Promise<unknown>[] = [];
    if (client) writes.push(this.store.hit(this.clientKey(attempt.name, attempt.device, attempt.address), now, client.duration, RECORD_LIMIT));
    if (!attempt.known && perName) writes.push(this.store.hit(`login_failures_username_${attempt.name}`, now, perName.duration, RECORD_LIMIT));
    if (!attempt.known && perAddress) writes.push(this.store.hit(`login_failures_address_${attempt.address}`, now, perAddress.duration, RECORD_LIMIT));
    await Promise.all(writes);
  }

  /**
   * A correct password: the address becomes known for the name, and (unless
   * `issueDevice` is false) the client gets a device cookie for it when it
   * did not send one.
   */
  async succeeded(req: ApiRequest, attempt: LoginAttempt, issueDevice = true): Promise<void> {
    const knownAge = this.app.settings.LOGIN_KNOWN_ADDRESS_AGE;
    // A limit of 1 records the first success only; the entry lives knownAge seconds.
    if (!attempt.knownAddress && knownAge > 0) await this.store.hit(`login_known_${attempt.name}_${attempt.address}`, this.timer(), knownAge, 1);
    const cookie = this.app.settings.LOGIN_DEVICE_COOKIE_NAME;
    if (issueDevice && cookie !== null && attempt.device === null) {
      const age = this.app.settings.LOGIN_DEVICE_COOKIE_AGE;
      setCookie(req.reply, cookie, this.deviceToken(attempt.name), {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: this.app.settings.SESSION_COOKIE_SECURE || req.isSecure(),
        maxAge: age,
        expires: new Date(Date.now() + age * 1000),
      });
    }
  }

  /** A new device token for the (hashed) name: `<nonce>.<HMAC of name and nonce>`. */
  deviceToken(name: string): string {
    const nonce = randomBytes(12).toString('base64url');
    return `${nonce}.${this.sign(name, nonce)}`;
  }

  private clientKey(name: string, device: string | null, address: string): string {
    return device !== null ? `login_failures_client_${name}_device_${device}` : `login_failures_client_${name}_address_${address}`;
  }

  /** The nonce of the request's device cookie when it was issued for this name, else `null`. */
  private validDevice(req: ApiRequest, name: string): string | null {
    const cookie = this.app.settings.LOGIN_DEVICE_COOKIE_NAME;
    const value = cookie === null ? undefined : req.cookies[cookie];
    if (value === undefined || value.length > 100) return null;
    const dot = value.indexOf('.');
    if (dot <= 0) return null;
    const nonce = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.sign(name, nonce));
    return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : null;
  }

  private sign(name: string, nonce: string): string {
    this.deviceKey ??= createHmac('sha256', this.app.secretKey()).update('trestle.login.device').digest();
    return createHmac('sha256', this.deviceKey).update(`${name}.${nonce}`).digest('base64url');
  }
}

/** Seconds until a window past its limit has room again, or `null` when it has room now. */
function wallFor(hit: ThrottleHit | null, rate: { limit: number; duration: number } | undefined, now: number): number | null {
  if (!hit || !rate || hit.count < rate.limit) return null;
  return Math.max(hit.oldest === null ? rate.duration : hit.oldest + rate.duration - now, 1);
}

/** The app's login throttle (built once, from LOGIN_FAILURE_RATES). */
export function loginThrottle(app: AppContext): LoginThrottle {
  const existing = app.services.tryGet('loginThrottle');
  if (existing) return existing;
  const created = new LoginThrottle(app);
  app.services.set('loginThrottle', created);
  return created;
}

export interface AuthenticateLoginOptions {
  /** Set the device cookie on success (default `true`; Basic passes `false`: it answers every request). */
  issueDevice?: boolean;
}

/**
 * `users.authenticate(username, password)` behind the login throttle: a
 * throttled attempt is refused before any hash runs, a wrong password (or
 * unknown name) counts as one failure, a right one makes the client known
 * for the name. Every built-in login path goes through here.
 */
export async function authenticateLogin(
  req: ApiRequest,
  username: string,
  password: string,
  options: AuthenticateLoginOptions = {},
): Promise<UserRecord | null> {
  const throttle = loginThrottle(req.app);
  const attempt = await throttle.check(req, username);
  // NUL cannot be stored in a username (PostgreSQL rejects it): such a name is simply unknown.
  const user = username.includes('\0') ? null : await req.app.services.get('users').authenticate(username, password);
  if (!user) await throttle.failed(attempt);
  else await throttle.succeeded(req, attempt, options.issueDevice ?? true);
  return user;
}
