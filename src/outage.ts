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
const PG_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

// Messages of node-postgres, pg-pool and ioredis for a lost or absent connection.
const MESSAGES = [
  /^Connection terminated/, // pg: "Connection terminated unexpectedly", "... due to connection timeout"
  /^timeout exceeded when trying to connect$/, // pg-pool connectionTimeoutMillis
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
