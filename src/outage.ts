/**
 * Telling "the database or Redis is unreachable" apart from every other
 * error, so that an outage is a 503 with `Retry-After`, not a 500 and never
 * a crash.
 */

// Node socket errors while connecting to or talking with a server.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

// PostgreSQL SQLSTATEs meaning the server is going away or refusing
// connections for now: admin_shutdown, crash_shutdown, cannot_connect_now,
// too_many_connections, and the whole class 08 (connection exception).
// query_canceled (57014) is what the statement timeout raises: the database
// is too slow to answer now, which a client can only wait out.
const PG_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

// Messages of node-postgres, pg-pool and ioredis for a lost or absent connection.
const MESSAGES = [
  /^Connection terminated/, // pg: "Connection terminated unexpectedly", "... due to connection timeout"
  /^timeout exceeded when trying to connect$/, // pg-pool connectionTimeoutMillis
  /^Query read timeout$/, // pg query_timeout: the server answered nothing in time
  /is not queryable$/, // pg: a client whose connection already failed
  /^Stream isn't writeable and enableOfflineQueue options is false$/, // ioredis, offline
  /^Connection is closed\.$/, // ioredis
  /^Command timed out$/, // ioredis commandTimeout
  /^(LOADING|MASTERDOWN|TRYAGAIN) /, // Redis still starting or failing over
];

// ioredis: commands caught by a dropped connection after the allowed reconnects.
const ERROR_NAMES = new Set(['MaxRetriesPerRequestError']);

/**
 * SQLite: another process held the write lock past `busy_timeout`
 * (SQLITE_BUSY, "database is locked"), or a snapshot could not become a
 * write (SQLITE_BUSY_SNAPSHOT). The request may be retried; it is not a bug.
 */
function isSqliteBusy(code: string): boolean {
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
}

/**
 * Whether `err` (or an error in its `cause` chain) says a database or Redis
 * server is unreachable: connection refused or reset, the server shutting
 * down or starting up (57P01, 57P02, 57P03, SQLSTATE class 08), a pool or
 * client whose connection is gone, or ioredis refusing a command while
 * offline, or an SQLite lock held by another process past `busy_timeout`.
 * Errors of the query itself (a syntax error, a constraint) are not.
 */
export function isOutageError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || PG_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || isSqliteBusy(code))) {
      return true;
    }
    if (ERROR_NAMES.has(e.name)) return true;
    const message = e.message;
    if (MESSAGES.some((re) => re.test(message))) return true;
    // AggregateError (several addresses refused, as Node's happy eyeballs reports).
    if (e instanceof AggregateError && e.errors.some((inner) => isOutageError(inner))) return true;
  }
  return false;
}

/** What an outage is, for grouping log lines: the error code, else the message. */
export function outageKind(err: unknown): string {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (ERROR_NAMES.has(e.name)) return e.name;
    if (MESSAGES.some((re) => re.test(e.message))) return e.message.slice(0, 80);
    if (e instanceof AggregateError && e.errors.length > 0) return outageKind(e.errors[0]);
  }
  return err instanceof Error ? err.message.slice(0, 80) : String(err).slice(0, 80);
}

interface OutageLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Outage warnings, rate-limited: the first error of a kind is logged at
 * once (with its stack), further ones of that kind within `intervalMs` are
 * only counted, and the count is logged as one line when the interval
 * ends. A database down under load thus writes a line per kind every
 * interval, not one per request.
 */
export class OutageLog {
  private readonly kinds = new Map<string, { since: number; suppressed: number; timer: NodeJS.Timeout | null }>();

  constructor(
    private readonly log: OutageLogger,
    readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  report(err: unknown, message = 'service unavailable'): void {
    const kind = outageKind(err);
    const now = this.now();
    const entry = this.kinds.get(kind);
    if (entry && now - entry.since < this.intervalMs) {
      entry.suppressed++;
      entry.timer ??= setTimeout(() => this.flush(kind, message), entry.since + this.intervalMs - now).unref();
      return;
    }
    this.kinds.set(kind, { since: now, suppressed: 0, timer: null });
    this.log.warn({ err, kind }, `${message} (${kind})`);
  }

  private flush(kind: string, message: string): void {
    const entry = this.kinds.get(kind);
    if (!entry) return;
    entry.timer = null;
    const { suppressed } = entry;
    if (suppressed === 0) return;
    // The count opens a new interval: what follows within it is counted again.
    this.kinds.set(kind, { since: this.now(), suppressed: 0, timer: null });
    this.log.warn({ kind, count: suppressed }, `${message} (${kind}): ${suppressed} more in the last ${this.intervalMs / 1000} s`);
  }
}

const outageLogs = new WeakMap<object, OutageLog>();

/**
 * Logs an outage error on the app's logger: the first of a kind at once,
 * the rest counted into one line per OUTAGE_LOG_INTERVAL.
 */
export function reportOutage(app: { log: OutageLogger; settings: { OUTAGE_LOG_INTERVAL: number } }, err: unknown, message?: string): void {
  let outages = outageLogs.get(app);
  if (!outages) {
    outages = new OutageLog(app.log, app.settings.OUTAGE_LOG_INTERVAL * 1000);
    outageLogs.set(app, outages);
  }
  outages.report(err, message);
}
