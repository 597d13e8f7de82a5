import { TrestlePostgresDialect } from './pg-introspector.js';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import BetterSqlite3 from 'better-sqlite3';
import { loadPg } from './pg-module.js';
import { markCompiles, setForeignKeyFacts, setReadNow, type ForeignKeyFacts, type ReadNow } from './direct.js';
import { registerSqliteFunctions } from './sqlite-functions.js';
import { installDirectPgQueries, type PrepareSettings } from './pg-direct.js';
import { startQueryDeadlines } from './pg-deadline.js';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryExecutor,
  type QueryResult,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import { trestlePgTypes } from './pg-types.js';
import type { DB } from './schema.js';
import type { DialectName } from './dialect.js';
import { DEFAULT_DATABASE_URL, parseDatabaseUrl, redactUrl, urlPassword } from './url.js';

/** An open connection (SQLite) or pool (PostgreSQL) and its Kysely instance. */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /** The URL it was opened with, password replaced by `***`. */
  readonly url: string;
  /** Closes the connection or pool. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The `pg.Pool` settings `openDatabase` passes on (see node-postgres' Pool
 * docs). Declared here, not taken from `@types/pg`, so the published types
 * need no development-only package.
 */
export interface PgPoolOptions {
  /** Most clients in the pool (default 10). */
  max?: number;
  /** Fewest idle clients kept. */
  min?: number;
  /** How long an idle client stays open, in ms (0: forever). */
  idleTimeoutMillis?: number;
  /** How long to wait for a pooled connection or a new one, in ms (Trestle's default 10000); past it a 503. */
  connectionTimeoutMillis?: number;
  /** Closes a client after it served this many queries. */
  maxUses?: number;
  /** Server-side statement timeout, in ms (Trestle's default 30000; 0: none). A statement past it is a 503. */
  statement_timeout?: number;
  /**
   * Client-side query timeout, in ms (Trestle's default: the statement
   * timeout + 5000; 0: none): a server that accepts connections but answers
   * nothing (stopped, hung) fails the query with a 503 instead of holding
   * the request; the connection is dropped.
   */
  query_timeout?: number;
  /** Reported to the server as `application_name`. */
  application_name?: string;
  /** TLS: `true`, or Node's `tls.connect` options. */
  ssl?: boolean | ConnectionOptions;
  /** Lets the process exit while idle clients remain. */
  allowExitOnIdle?: boolean;
  /**
   * node-postgres' pipeline mode (Trestle's default `true`): a page and its
   * count go to the server in one round trip. `false` sends them one after
   * the other on the same connection (for a pooler in transaction mode that
   * does not accept several Syncs in flight).
   */
  pipeline?: boolean;
}

/** Tuning knobs for `openDatabase`; the URL alone is enough for normal use. */
export interface OpenDatabaseOptions {
  /** Extra `pg.Pool` settings (size, timeouts). Ignored for SQLite. */
  pgPool?: PgPoolOptions;
  /**
   * How long SQLite waits for another process's write lock, in ms (default
   * 5000); past it the request is a 503. The URL may say it too:
   * `sqlite:./data/app.sqlite3?busy_timeout=10000`.
   */
  sqliteBusyTimeoutMs?: number;
  /**
   * PostgreSQL: a statement is prepared on a connection (parsed and planned
   * once, by name) after it has run there this many times, as psycopg 3
   * and pgJDBC do (default 5; 0 prepares on first use). `null` never
   * prepares: the setting for PgBouncer in transaction mode without
   * `max_prepared_statements`. The URL may say it too:
   * `?prepare_threshold=5` or `?prepare_threshold=none`.
   */
  pgPrepareThreshold?: number | null;
  /** PostgreSQL: prepared statements kept per connection (default 100); past it the least recently used is deallocated. */
  pgPreparedMax?: number;
}

/** psycopg 3's defaults. */
export const PG_PREPARE_THRESHOLD = 5;
export const PG_PREPARED_MAX = 100;

/** Milliseconds SQLite waits for a lock held by another connection. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the database named by `url`, else `DATABASE_URL`, else
 * `sqlite:./data/trestle.sqlite3`. The connection is checked before this
 * resolves, so a wrong URL fails at start-up with a message naming the URL
 * (password redacted), never at the first request.
 */
export async function openDatabase(url?: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  const target = url ?? process.env['DATABASE_URL'] ?? DEFAULT_DATABASE_URL;
  const parsed = parseDatabaseUrl(target);
  if (parsed.dialect === 'sqlite') {
    const { url: fileUrl, busyTimeoutMs } = takeBusyTimeout(target);
    const file = parseDatabaseUrl(fileUrl) as { filename: string };
    return openSqlite(target, file.filename, options.sqliteBusyTimeoutMs ?? busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS);
  }
  const { url: pgUrl, threshold } = takePrepareThreshold(target);
  const prepare = {
    threshold: options.pgPrepareThreshold !== undefined ? options.pgPrepareThreshold : threshold,
    max: options.pgPreparedMax ?? PG_PREPARED_MAX,
  };
  if (prepare.threshold !== null && !(Number.isInteger(prepare.threshold) && prepare.threshold >= 0)) {
    throw new Error(`The prepare threshold must be a whole number of runs (0 or more) or none, not ${String(prepare.threshold)}.`);
  }
  if (!(Number.isInteger(prepare.max) && prepare.max >= 1)) throw new Error(`pgPreparedMax must be a positive whole number, not ${String(prepare.max)}.`);
  return openPostgres(pgUrl, options.pgPool ?? {}, prepare);
}

/**
 * `?busy_timeout=<ms>` of a SQLite URL (`sqlite:./data/app.sqlite3?busy_timeout=10000`),
 * taken out of the file name: how long a write waits for another process's lock.
 */
function takeBusyTimeout(url: string): { url: string; busyTimeoutMs: number | null } {
  const m = /\?busy_timeout=([^&#]*)$/.exec(url);
  if (!m) return { url, busyTimeoutMs: null };
  const raw = decodeURIComponent(m[1]!).trim();
  if (!/^\d+$/.test(raw)) throw new Error(`busy_timeout in the database URL must be a whole number of milliseconds, not "${m[1]}".`);
  return { url: url.slice(0, m.index), busyTimeoutMs: Number(raw) };
}

/** `?prepare_threshold=` of a PostgreSQL URL (a number, or `none`), taken out of the URL the driver sees. */
function takePrepareThreshold(url: string): { url: string; threshold: number | null } {
  const m = /([?&])prepare_threshold=([^&#]*)(&?)/.exec(url);
  if (!m) return { url, threshold: PG_PREPARE_THRESHOLD };
  const raw = decodeURIComponent(m[2]!).trim().toLowerCase();
  const threshold = raw === 'none' || raw === 'null' ? null : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isNaN(threshold)) throw new Error(`prepare_threshold in the database URL must be a whole number or none, not "${m[2]}".`);
  const rest = url.slice(0, m.index) + (m[3] ? m[1] : '') + url.slice(m.index + m[0].length);
  return { url: rest, threshold };
}

function connectError(url: string, cause: unknown): Error {
  const password = urlPassword(url);
  const raw = cause instanceof Error ? cause : new Error(String(cause));
  const code = (raw as { code?: unknown }).code;
  let reason = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : raw.message || String(code);
  if (password) reason = reason.split(password).join('***');
  reason = reason.replace(/\s+/g, ' ').trim();
  return new Error(`Cannot connect to database ${redactUrl(url)}: ${reason}`, { cause: raw });
}

function openSqlite(url: string, filename: string, busyTimeoutMs: number): Database {
  let sqlite: BetterSqlite3.Database;
  try {
    if (filename !== ':memory:') {
      // Data files are private: a new directory 0700, a new database 0600 (SQLite gives its WAL files the same mode).
      mkdirSync(dirname(resolve(filename)), { recursive: true, mode: 0o700 });
      closeSync(openSync(filename, 'a', 0o600));
    }
    sqlite = new BetterSqlite3(filename, { timeout: busyTimeoutMs });
    if (filename !== ':memory:') sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    registerSqliteFunctions(sqlite);
  } catch (err) {
    throw connectError(url, err);
  }
  const facts = watchForeignKeys(sqlite);
  const statements = withStatementCache(sqlite);
  const db = new Kysely<DB>({ dialect: new TrestleSqliteDialect({ database: statements }) });
  installDirectReads(db, sqlite, statements);
  setForeignKeyFacts(db.getExecutor(), facts);
  return makeDatabase(db, 'sqlite', url, () => {
    if (sqlite.open) sqlite.close();
  });
}

/**
 * What the connection says of its foreign keys — enforced or not, each
 * table's keys — without a statement per question: read once, and again
 * after any statement that could change the answer ran on the connection
 * (one naming `foreign_keys`, or a `CREATE`, `ALTER` or `DROP`). Every
 * statement on the connection is prepared through `sqlite.prepare` (Kysely,
 * the statement cache, `RowReaders`) or run by `exec` or `pragma`; those
 * are wrapped here, and a prepared statement that could change the answer
 * forgets it each time it runs (a cached statement is prepared once and run
 * many times). The handle is Trestle's own: nothing else reaches it.
 */
function watchForeignKeys(sqlite: BetterSqlite3.Database): ForeignKeyFacts {
  const prepare = BetterSqlite3.prototype.prepare;
  let enforced: boolean | null = null;
  const declared = new Map<string, ReadonlySet<string>>();
  let version = 0;
  const forget = () => {
    enforced = null;
    declared.clear();
    version++;
  };
  const changes = (source: unknown) => typeof source === 'string' && /foreign_keys|^[\s;]*(?:create|alter|drop)\b/i.test(source);
  const readEnforced = prepare.call(sqlite, 'pragma foreign_keys').pluck();
  const readDeclared = prepare.call(sqlite, 'select "from", "table", "to" from pragma_foreign_key_list(?)');
  const instance = sqlite as unknown as Record<string, unknown>;
  instance['prepare'] = function watchedPrepare(this: BetterSqlite3.Database, source: string) {
    const stmt = prepare.call(this, source);
    if (!changes(source)) return stmt;
    const own = stmt as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const run = own[method]!;
      own[method] = function (this: unknown, ...args: unknown[]) {
        forget();
        try {
          return run.apply(this, args);
        } finally {
          forget();
        }
      };
    }
    return stmt;
  };
  for (const method of ['exec', 'pragma'] as const) {
    const run = BetterSqlite3.prototype[method] as (...args: unknown[]) => unknown;
    instance[method] = function (this: unknown, source: unknown, ...rest: unknown[]) {
      if (!changes(method === 'pragma' ? `pragma ${String(source)}` : source)) return run.call(this, source, ...rest);
      forget();
      try {
        return run.call(this, source, ...rest);
      } finally {
        forget();
      }
    };
  }
  return {
    enforced: () => (enforced ??= readEnforced.get() === 1),
    declared(table) {
      let keys = declared.get(table);
      if (keys === undefined) {
        const rows = readDeclared.all(table) as { from: string; table: string; to: string | null }[];
        keys = new Set(rows.map((r) => `${r.from}>${r.table.toLowerCase()}.${r.to ?? '*'}`));
        declared.set(table, keys);
      }
      return keys;
    },
    version: () => version,
  };
}

/**
 * A read on the SQLite connection runs synchronously in better-sqlite3, so
 * Kysely's way there — acquire the connection through its mutex, then half
 * a dozen awaits — costs more than many of the reads themselves (see
 * docs/performance.md). The app's own executor, which has no plug-ins,
 * runs a reading statement (an `INSERT … RETURNING` too) at once when no
 * transaction holds the connection; other writes, transactions, and
 * executors with plug-ins (`withPlugin` makes a new executor) go Kysely's
 * way. `readNow` (direct.ts) gives the same rows without a promise.
 */
function installDirectReads(db: Kysely<DB>, sqlite: BetterSqlite3.Database, statements: SqliteDatabase): void {
  const executor = markCompiles(db);
  const execute = executor.executeQuery.bind(executor);
  const own = executor as { executeQuery: QueryExecutor['executeQuery'] };
  const readers = new RowReaders(sqlite, statements);
  const direct = () => !sqlite.inTransaction && executor.plugins.length === 0;
  const now: ReadNow = {
    all: (compiled) => (direct() ? readers.read(compiled.sql, compiled.parameters) : undefined),
    first: (compiled) => (direct() ? readers.first(compiled.sql, compiled.parameters) : undefined),
  };
  setReadNow(executor, now);
  own.executeQuery = <R>(compiled: CompiledQuery<R>): Promise<QueryResult<R>> => {
    let rows: R[] | undefined;
    try {
      rows = now.all(compiled) as R[] | undefined;
    } catch (err) {
      return Promise.reject(err);
    }
    if (rows !== undefined) return Promise.resolve({ rows });
    return execute(compiled);
  };
}

/**
 * Rows of a reading statement as better-sqlite3 would answer them, made
 * faster. better-sqlite3 builds each row object through V8's C++ API, one
 * property at a time, with each column's name converted to a JavaScript
 * string again for every row: a 20-row page of 6 columns took 72 µs, 37 µs
 * when read as arrays (`raw(true)`) and made into objects by a function
 * compiled once per statement (an object literal: one hidden class, keys in
 * column order, a repeated name's last value, as better-sqlite3 gives).
 *
 * On Node before 22, better-sqlite3 builds even an array row one element at
 * a time through V8's generic element store (about 650 instructions a
 * value), while the arguments of an SQL function it calls are handed over
 * at once. So a `select` (or `with … select`), and the `returning` list of
 * an insert, update or delete, is read through a wrapper that passes each
 * row's values to a function of this connection, which keeps them (see
 * `wrappedRead`): a token lookup of 13 columns took 1.3 µs instead of 2.1, a
 * page of 25 books 18 µs instead of 27.
 *
 * Only for SQL with no `*` in it: the names of `*`'s columns are fixed when
 * SQLite prepares the statement, and a schema change (here or by another
 * process) re-prepares it with other columns; an explicit column list names
 * the same columns or fails. Other reading statements (`select *`,
 * `RETURNING *`, a `__proto__` column) are read as objects, as before.
 */
class RowReaders {
  readonly #cache = new Map<string, RowReader | null>();
  /** The rows the wrapped statement running now has handed to `ROW_FUNCTION`, in the order SQLite handed them. */
  #rows: unknown[][] = [];
  constructor(
    readonly sqlite: BetterSqlite3.Database,
    readonly statements: SqliteDatabase,
  ) {
    // Not deterministic (it keeps what it is given), and only for SQL this class writes (`directOnly`: no trigger or view calls it).
    sqlite.function(ROW_FUNCTION, { varargs: true, deterministic: false, directOnly: true }, (...values: unknown[]) => {
      this.#rows.push(values);
      return null;
    });
  }

  /** The rows of `sql`, or `undefined` when it does not read (a write goes Kysely's way). */
  read(sql: string, parameters: readonly unknown[]): unknown[] | undefined {
    const reader = this.#ready(sql);
    if (reader !== null) {
      const wrapped = reader.all === undefined ? (reader.all = this.#wrap(sql, reader.columns, false)) : reader.all;
      const rows = wrapped !== null ? this.#collect(wrapped, parameters) : (run(reader.stmt, 'all', parameters) as unknown[][]);
      const make = reader.make;
      const out: unknown[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = make(rows[i]!);
      return out;
    }
    const stmt = this.statements.prepare(sql) as unknown as BetterSqlite3.Statement;
    return stmt.reader ? stmt.all(parameters) : undefined;
  }

  /** The first row of `sql` (`null` when none), or `undefined` when it does not read. */
  first(sql: string, parameters: readonly unknown[]): unknown {
    const reader = this.#ready(sql);
    if (reader !== null) {
      const wrapped = reader.first === undefined ? (reader.first = this.#wrap(sql, reader.columns, true)) : reader.first;
      const row = wrapped !== null ? this.#collect(wrapped, parameters)[0] : (run(reader.stmt, 'get', parameters) as unknown[] | undefined);
      return row === undefined ? null : reader.make(row);
    }
    const stmt = this.statements.prepare(sql) as unknown as BetterSqlite3.Statement;
    return stmt.reader ? (stmt.get(parameters) ?? null) : undefined;
  }

  /**
   * Runs a wrapped statement and takes the rows it handed over. A read's one
   * row is the aggregate's, so `.get()` reads it all. A write is stepped to its
   * end: SQLite runs its automatic WAL checkpoint only there, and a write
   * reset after its first row would leave the log growing by every insert
   * (test/views/model-writes.test.ts).
   */
  #collect(wrapped: BetterSqlite3.Statement, parameters: readonly unknown[]): unknown[][] {
    this.#rows = [];
    try {
      run(wrapped, wrapped.readonly ? 'get' : 'all', parameters);
      return this.#rows;
    } finally {
      this.#rows = [];
    }
  }

  /** The array reader of `sql` when it has one and it is not in use (else better-sqlite3's objects). */
  #ready(sql: string): RowReader | null {
    let reader = this.#cache.get(sql);
    if (reader === undefined) reader = this.#learn(sql);
    return reader !== null && !reader.stmt.busy && !reader.all?.busy && !reader.first?.busy ? reader : null;
  }

  #learn(sql: string): RowReader | null {
    const stmt = this.statements.prepare(sql) as unknown as BetterSqlite3.Statement;
    let reader: RowReader | null = null;
    if (stmt.reader && !sql.includes('*')) {
      const names = stmt.columns().map((c) => c.name);
      const make = rowMaker(names);
      if (make !== null) reader = { stmt: this.sqlite.prepare(sql).raw(true), make, columns: names.length, all: undefined, first: undefined };
    }
    const cache = this.#cache;
    if (cache.size >= SQLITE_STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(sql, reader);
    return reader;
  }

  /** `wrappedRead(sql, …)` prepared, or `null` where it does not apply or SQLite refuses it (the array reader is used). */
  #wrap(sql: string, columns: number, first: boolean): BetterSqlite3.Statement | null {
    const text = wrappedRead(sql, columns, first);
    if (text === null) return null;
    try {
      const stmt = this.sqlite.prepare(text).pluck();
      return stmt.reader ? stmt : null;
    } catch {
      return null;
    }
  }
}

/** The function a wrapped read calls with each row's values, and the name it gives the statement it wraps. */
const ROW_FUNCTION = 'trestle_read_row';
const ROW_SOURCE = 'trestle_read_rows';
/** Beyond this many columns a read is not wrapped (a function's arguments are limited: SQLITE_MAX_FUNCTION_ARG, 1000 in better-sqlite3's build, 127 in older ones). */
const MAX_WRAPPED_COLUMNS = 100;

/**
 * `sql` (a `select`, or `with … select`, of `columns` columns) as a statement
 * that hands each of its rows to `ROW_FUNCTION`, in order, and answers one
 * row of its own:
 *
 *     with "trestle_read_rows"("c0", "c1") as (<sql>)
 *     select sum(trestle_read_row("c0", "c1")) from "trestle_read_rows"
 *
 * (with `first`, from `(select * from "trestle_read_rows" limit 1)`, so no
 * row after the first is read). The order of the rows is the statement's own:
 * SQLite does not merge a subquery that has an `ORDER BY` into a query that
 * aggregates (the query flattener's rule 16), and keeps a subquery's
 * `ORDER BY` under an aggregate other than `count()`, `min()` and `max()`,
 * so the aggregate takes the rows in the order the statement gives them
 * (test/db/row-readers.test.ts checks sorted, indexed, distinct, grouped,
 * compound, joined, windowed and limited reads against better-sqlite3's own
 * answers; SQLite 3.53's select.c, `flattenSubquery` and tag-select-0230).
 * The parameters are the statement's, in the same places. An `insert`,
 * `update` or `delete` with a `returning` list of names hands that list to
 * the function instead (`wrappedReturning`). `null` for SQL of another form,
 * with a `;` or a `--` comment, or naming the wrapper's names.
 */
export function wrappedRead(sql: string, columns: number, first: boolean): string | null {
  if (columns < 1 || columns > MAX_WRAPPED_COLUMNS || sql.includes(';') || sql.includes('--')) return null;
  if (sql.toLowerCase().includes(ROW_FUNCTION)) return null;
  if (!/^\s*(?:select|with)\b/i.test(sql)) return wrappedReturning(sql, columns);
  let names = '';
  for (let i = 0; i < columns; i++) names += i === 0 ? `"c${i}"` : `, "c${i}"`;
  const from = first ? `(select * from "${ROW_SOURCE}" limit 1)` : `"${ROW_SOURCE}"`;
  return `with "${ROW_SOURCE}"(${names}) as (${sql}) select sum(${ROW_FUNCTION}(${names})) from ${from}`;
}

/**
 * An `insert`, `update` or `delete` whose `returning` list is `columns`
 * quoted column names and nothing else (as Kysely writes `.returning([…])`),
 * with the list handed to `ROW_FUNCTION` instead: `… returning
 * trestle_read_row("id", "title")`. SQLite makes every change and works out
 * every returned row in the statement's first step, in the order it changes
 * the rows, so the first step hands all of them over. `null` for any other
 * form (an alias, an expression, `*`).
 */
function wrappedReturning(sql: string, columns: number): string | null {
  if (!/^\s*(?:insert|update|delete)\b/i.test(sql)) return null;
  const m = RETURNING_NAMES.exec(sql);
  if (m === null || m[2]!.split(', ').length !== columns) return null;
  return `${m[1]} returning ${ROW_FUNCTION}(${m[2]})`;
}

/** A statement's last ` returning ` then only quoted names (`"c"` or `"t"."c"`) separated by `, ` to its end. */
const RETURNING_NAMES = /^([^]*) returning ((?:"[^"]+"(?:\."[^"]+")?)(?:, "[^"]+"(?:\."[^"]+")?)*)$/i;

/**
 * `stmt[method](parameters)`, the parameters passed as arguments where
 * there are few and none is an object: better-sqlite3 binds an array's
 * elements through V8's generic element lookup (`Object::Get(index)`, about
 * 200 instructions each), arguments as they are. An object (a Buffer) keeps
 * the array form, where better-sqlite3 does not read it as named parameters.
 */
function run(stmt: BetterSqlite3.Statement, method: 'all' | 'get', p: readonly unknown[]): unknown {
  for (let i = 0; i < p.length; i++) {
    const v = p[i];
    if (typeof v === 'object' && v !== null) return stmt[method](p);
  }
  switch (p.length) {
    case 0:
      return stmt[method]();
    case 1:
      return stmt[method](p[0]);
    case 2:
      return stmt[method](p[0], p[1]);
    case 3:
      return stmt[method](p[0], p[1], p[2]);
    case 4:
      return stmt[method](p[0], p[1], p[2], p[3]);
    case 5:
      return stmt[method](p[0], p[1], p[2], p[3], p[4]);
    case 6:
      return stmt[method](p[0], p[1], p[2], p[3], p[4], p[5]);
    default:
      return stmt[method](p);
  }
}

interface RowReader {
  /** The statement in raw mode: each row an array of its columns. */
  readonly stmt: BetterSqlite3.Statement;
  readonly make: (values: unknown[]) => unknown;
  readonly columns: number;
  /** The statement wrapped to hand its rows over (`wrappedRead`), for all rows and for the first: prepared when first needed, `null` where it does not apply. */
  all: BetterSqlite3.Statement | null | undefined;
  first: BetterSqlite3.Statement | null | undefined;
}

/** `(values) => ({ name: values[i], … })` for these column names; `null` when an object literal cannot give what better-sqlite3 gives. */
export function rowMaker(names: readonly string[]): ((values: unknown[]) => unknown) | null {
  const last = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    // better-sqlite3 sets `__proto__` (the prototype, for an object value); a literal key would do otherwise.
    if (names[i] === '__proto__') return null;
    last.set(names[i]!, i);
  }
  let body = '';
  for (const [name, i] of last) body += `${JSON.stringify(name)}: v[${i}], `;
  return new Function('v', `return { ${body}};`) as (values: unknown[]) => unknown;
}

/**
 * Parameters are compiled as `+?` instead of `?`. SQLite compiled with STAT4
 * (better-sqlite3 is) marks a statement "expired" whenever a parameter the
 * planner looked at is bound again — an indexed `col = ?`, `LIMIT ?` — once
 * the database has statistics (ANALYZE, `PRAGMA optimize`), and every run
 * then prepares it afresh: the token lookup took 17 µs instead of 5. A unary
 * plus leaves the value, its type and affinity as they are and indexes still
 * apply to `col = +?`; the planner just no longer re-plans per value. See
 * docs/decisions.md.
 */
export const SQLITE_PARAMETER = '+?';

class TrestleSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return SQLITE_PARAMETER;
  }
}

/**
 * Transactions start `BEGIN IMMEDIATE`: the write lock is taken (waiting up
 * to `busy_timeout` for another process to finish) before the first read.
 * A plain `BEGIN` reads a snapshot first; when another process commits
 * before this one's first write, that write cannot upgrade its snapshot and
 * fails at once with SQLITE_BUSY_SNAPSHOT, without waiting (two processes
 * on one file answered 26 of 60 read-then-write requests with a 500). A
 * transaction declared read-only (`db.transaction().setAccessMode('read
 * only')`) still starts deferred: it never writes, so it never needs the
 * lock, and readers do not queue behind writers in WAL mode.
 */
class TrestleSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(settings?.accessMode === 'read only' ? 'begin deferred' : 'begin immediate'));
  }
}

class TrestleSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new TrestleSqliteDriver(this.#config);
  }

  override createQueryCompiler(): QueryCompiler {
    return new TrestleSqliteQueryCompiler();
  }
}

/** Distinct SQL texts whose prepared statements are kept per SQLite connection. */
export const SQLITE_STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls `prepare()` for every query it runs; compiling
 * the same SQL again on every request cost more than running it (see
 * docs/performance.md). This keeps the prepared statement per SQL text
 * (oldest dropped first past the limit) and prepares a fresh one only when
 * the cached one is still busy (an unfinished `iterate()`).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, size = SQLITE_STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached !== undefined && !cached.busy) return cached;
      const stmt = sqlite.prepare(sql);
      if (cached === undefined) {
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

async function openPostgres(url: string, poolConfig: PgPoolOptions, prepare: PrepareSettings): Promise<Database> {
  const settings = pgPoolDefaults(poolConfig, url);
  // The client-side query timeout is the pool's sweep (src/db/pg-deadline.ts), not node-postgres' timer per query.
  const { query_timeout: queryTimeout = 0, ...config } = settings.config;
  // Dates as 'YYYY-MM-DD' and JSON as text on every connection (src/db/pg-types.ts).
  const pool = new (loadPg().Pool)({ ...config, connectionString: settings.url, types: trestlePgTypes() });
  // A client that loses its server emits 'error'; unheard, that kills the
  // process. pg-pool listens only while a client is idle, so every client
  // gets its own listener for the time it is checked out by a query. The
  // query itself fails (503), the pool drops the client on release, and the
  // next checkout connects afresh once the server is back.
  pool.on('error', ignoreLostConnection);
  pool.on('connect', (client) => {
    client.on('error', ignoreLostConnection);
  });
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw connectError(url, err);
  }
  const stopDeadlines = startQueryDeadlines(pool, queryTimeout, () => untimedJobs > 0);
  const db = new Kysely<DB>({ dialect: new TrestlePostgresDialect({ pool }) });
  installDirectPgQueries(db, pool, prepare);
  return makeDatabase(db, 'postgres', url, async () => {
    stopDeadlines();
    if (!(pool as { ending?: boolean }).ending) await pool.end();
  });
}

/**
 * How many `withoutQueryTimeout` jobs are running. A process-wide count, not
 * an `AsyncLocalStorage`: on Node 20 the first `AsyncLocalStorage.run` turns
 * on V8's promise hooks for the rest of the process, and every process that
 * migrates at start-up would serve with them (docs/decisions.md).
 */
let untimedJobs = 0;

/**
 * Runs `fn` with no client-side query timeout (migrations: waiting for the
 * migration lock, building an index). While it runs, no query of the process
 * has one: such jobs run before a process serves, or in a process of their
 * own. The server-side statement timeout is the session's: `SET
 * statement_timeout = 0` on the connection lifts it.
 */
export async function withoutQueryTimeout<T>(fn: () => Promise<T>): Promise<T> {
  untimedJobs++;
  try {
    return await fn();
  } finally {
    untimedJobs--;
  }
}

/** PostgreSQL statement timeout Trestle sets unless told otherwise, in ms. */
export const PG_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The pool settings with Trestle's defaults: a bounded wait for a connection,
 * pipeline mode, a statement timeout, and a client-side query timeout a
 * little longer (for a server that answers nothing at all). `0` switches a
 * timeout off. The URL's own `?statement_timeout=` / `?query_timeout=`
 * (milliseconds) win; they are taken out of the URL the driver sees.
 */
export function pgPoolDefaults(config: PgPoolOptions, url = ''): { config: PgPoolOptions; url: string } {
  // Taken out of the URL: node-postgres would read `query_timeout=0` as the string "0", a timeout of 0 ms.
  const taken = takeMilliseconds(url, 'statement_timeout');
  const query = takeMilliseconds(taken.url, 'query_timeout');
  const statement = taken.value ?? config.statement_timeout ?? PG_STATEMENT_TIMEOUT_MS;
  return {
    url: query.url,
    config: {
      connectionTimeoutMillis: 10_000,
      pipeline: true,
      ...config,
      statement_timeout: statement,
      query_timeout: query.value ?? config.query_timeout ?? (statement > 0 ? statement + 5_000 : 0),
    },
  };
}

/** `?<name>=<ms>` of a PostgreSQL URL, taken out of the URL the driver sees. */
function takeMilliseconds(url: string, name: string): { url: string; value: number | undefined } {
  const m = new RegExp(`([?&])${name}=([^&#]*)(&?)`).exec(url);
  if (!m) return { url, value: undefined };
  const raw = decodeURIComponent(m[2]!).trim();
  if (!/^\d+$/.test(raw)) throw new Error(`${name} in the database URL must be a whole number of milliseconds (0: none), not "${m[2]}".`);
  return { url: url.slice(0, m.index) + (m[3] ? m[1] : '') + url.slice(m.index + m[0].length), value: Number(raw) };
}

// The failing query or checkout already reports the error to its caller.
function ignoreLostConnection(): void {}

/**
 * `release` closes the connection or pool after Kysely is destroyed: queries
 * may never have gone through Kysely's driver (see the direct paths above),
 * and it closes only what it opened itself.
 */
function makeDatabase(db: Kysely<DB>, dialect: DialectName, url: string, release: () => void | Promise<void>): Database {
  let closing: Promise<void> | null = null;
  return {
    db,
    dialect,
    url: redactUrl(url),
    close() {
      closing ??= db.destroy().then(release);
      return closing;
    },
  };
}
