/**
 * What the app's own Kysely executor (the one `openDatabase` made, with no
 * plug-ins) can do beyond Kysely's API: say which executor compiled a query,
 * so a count can wrap the listing's SQL and run it there, and run several
 * reads in one round trip where the driver can (PostgreSQL pipelining).
 */
import type { CompiledQuery, Kysely, QueryExecutor, QueryResult } from 'kysely';
import type { DB } from './schema.js';

/**
 * The query the app's own executor compiled last, and that executor (see
 * `directExecutorOf`). One slot, not a map: a count asks right after
 * compiling, and a WeakMap entry per compiled query was work for every
 * young-generation collection (see docs/performance.md).
 */
let lastCompiled: CompiledQuery | null = null;
let lastCompiledBy: QueryExecutor | null = null;
let installed = false;

/**
 * The executor that compiled `query` when it is the own executor of a
 * database opened by `openDatabase` (no plug-ins) and `query` is the last
 * query it compiled, so a query derived from it at once (the same SQL
 * wrapped in a count) may run there; `null` otherwise.
 */
export function directExecutorOf(query: CompiledQuery): QueryExecutor | null {
  return query === lastCompiled ? lastCompiledBy : null;
}

/** The executors `markCompiles` was given: the own executors of databases opened by `openDatabase`. */
const ownExecutors = new WeakSet<QueryExecutor>();

/**
 * Whether `executor` is the own executor of a database opened by
 * `openDatabase` (no plug-ins; a transaction or `withPlugin` makes another).
 * Only there may a builder serve several requests: a plug-in may keep state
 * per query id between a query and its result, and a builder keeps its id.
 */
export function isOwnExecutor(executor: QueryExecutor): boolean {
  return ownExecutors.has(executor);
}

/**
 * Set on every executor `markCompiles` was given, by whichever copy of
 * Trestle's modules opened the database: a process-wide symbol, so another
 * copy can tell such an executor from one it did not open (`openedElsewhere`).
 */
const OPENED_BY_TRESTLE = Symbol.for('trestle.openDatabase.executor');

/**
 * Whether `executor` was opened by `openDatabase` of another copy of
 * Trestle's modules than this one (two installed copies, or a bundle holding
 * its own): the answers are the same, but this copy cannot use what that
 * one knows about its database, so every query is built per request.
 */
export function openedElsewhere(executor: QueryExecutor): boolean {
  return (executor as unknown as Record<symbol, unknown>)[OPENED_BY_TRESTLE] === true && !ownExecutors.has(executor);
}

/** Whether this process has opened a database through `openDatabase` (else `directExecutorOf` is always `null`). */
export function hasDirectExecutors(): boolean {
  return installed;
}

/**
 * Remembers the query the app's own executor compiled last (`directExecutorOf`),
 * so a count can wrap a listing's SQL and run it there. Returns the executor.
 */
export function markCompiles(db: Kysely<DB>): QueryExecutor {
  installed = true;
  const executor = db.getExecutor();
  ownExecutors.add(executor);
  Object.defineProperty(executor, OPENED_BY_TRESTLE, { value: true });
  const compile = executor.compileQuery.bind(executor);
  (executor as { compileQuery: QueryExecutor['compileQuery'] }).compileQuery = (node, queryId) => {
    const compiled = compile(node, queryId);
    lastCompiled = compiled;
    lastCompiledBy = executor;
    return compiled;
  };
  return executor;
}

/** Runs reads together, results in the same order; rejects with the first error once all have finished. */
export type ExecuteTogether = (queries: readonly CompiledQuery[]) => Promise<QueryResult<unknown>[]>;

const together = new WeakMap<QueryExecutor, ExecuteTogether>();

/** Declares that `executor` can send several reads in one round trip. */
export function setExecuteTogether(executor: QueryExecutor, run: ExecuteTogether): void {
  together.set(executor, run);
}

/**
 * How `executor` sends several reads in one round trip, or `null` when it
 * cannot (SQLite runs each at once anyway; an executor with plug-ins must
 * transform each query and result).
 */
export function executeTogetherOn(executor: QueryExecutor): ExecuteTogether | null {
  if (executor.plugins.length > 0) return null;
  return together.get(executor) ?? null;
}

/** Runs reading statements at once, where the driver can (SQLite's, outside a transaction). */
export interface ReadNow {
  /** The statement's rows, or `undefined` when it cannot here. */
  all(query: Pick<CompiledQuery, 'sql' | 'parameters'>): unknown[] | undefined;
  /** Its first row (`null` when none), without reading on past it; `undefined` when it cannot here. */
  first(query: Pick<CompiledQuery, 'sql' | 'parameters'>): unknown;
}

const readsNow = new WeakMap<QueryExecutor, ReadNow>();

/** Declares that `executor` can answer some reads without waiting (SQLite's, outside a transaction). */
export function setReadNow(executor: QueryExecutor, read: ReadNow): void {
  readsNow.set(executor, read);
}

/**
 * The rows of a reading query run on `executor` without waiting, where its
 * driver answers at once (better-sqlite3, while no transaction holds the
 * connection); `undefined` when the query must go through
 * `executor.executeQuery` (PostgreSQL, a transaction's or a plug-in's
 * executor, a write). Throws what the driver throws. A request that reads
 * only this way answers without a promise (see docs/performance.md).
 */
export function readNow<R>(executor: QueryExecutor, query: Pick<CompiledQuery<R>, 'sql' | 'parameters'>): R[] | undefined {
  const read = readsNow.get(executor);
  return read === undefined ? undefined : (read.all(query) as R[] | undefined);
}

/**
 * `readNow(executor, query)?.[0]` for a read whose caller wants only its
 * first row (a lookup by a unique key): `null` when there is none,
 * `undefined` when it cannot be answered at once. The driver steps to the
 * first row only and builds no array around it. Only for reads: a write
 * (`INSERT … RETURNING`) must run to its end (see `readNow`).
 */
export function readFirstNow<R>(executor: QueryExecutor, query: Pick<CompiledQuery<R>, 'sql' | 'parameters'>): R | null | undefined {
  const read = readsNow.get(executor);
  return read === undefined ? undefined : (read.first(query) as R | null | undefined);
}

/**
 * What a SQLite connection says of its foreign keys, kept between the
 * statements that could change it (see database.ts, `watchForeignKeys`).
 */
export interface ForeignKeyFacts {
  /** Whether the connection enforces foreign keys now (`PRAGMA foreign_keys`). */
  enforced(): boolean;
  /** `table`'s foreign keys, each as `column>target.key` (`target.*` when the constraint names no column: the target's primary key); the target in lower case. */
  declared(table: string): ReadonlySet<string>;
  /** A number that changes whenever the answers may have: what was concluded from them holds while it stays. */
  version(): number;
}

const foreignKeyFacts = new WeakMap<QueryExecutor, ForeignKeyFacts>();

/** Declares where `executor`'s foreign key facts are read (SQLite opened by `openDatabase`). */
export function setForeignKeyFacts(executor: QueryExecutor, facts: ForeignKeyFacts): void {
  foreignKeyFacts.set(executor, facts);
}

/** `executor`'s foreign key facts; `undefined` where they cannot be read at once (PostgreSQL, a transaction's or a plug-in's executor). */
export function foreignKeyFactsOf(executor: QueryExecutor): ForeignKeyFacts | undefined {
  return foreignKeyFacts.get(executor);
}
