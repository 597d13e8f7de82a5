/**
 * The app's own PostgreSQL executor: queries sent on pooled clients directly
 * (not through Kysely's connection provider), prepared per connection once
 * they have run often enough, and several reads of one request sent in one
 * round trip on a pipelined connection.
 */
import type pg from 'pg';
import type { CompiledQuery, Kysely, QueryExecutor, QueryResult } from 'kysely';
import type { DB } from './schema.js';
import { markCompiles, setExecuteTogether } from './direct.js';
import { createQuery, RowShapes } from './pg-query.js';

export interface PrepareSettings {
  /** Runs on a connection before a statement is prepared there; `null` never. */
  readonly threshold: number | null;
  /** Prepared statements kept per connection. */
  readonly max: number;
}

/** The parts of a node-postgres client this module reads that its types do not declare. */
interface ClientInternals {
  readyForQuery?: boolean;
  _queryable?: boolean;
  pipeline?: boolean;
  connection?: { parsedStatements?: Record<string, string>; stream?: { cork?: () => void; uncork?: () => void } };
}

type Done = (err: Error | null, result?: pg.QueryResult) => void;

let statementNames = 0;

/**
 * Which statements run prepared on one connection: a statement is named once
 * it has run `threshold` times there; at most `max` names are kept, the least
 * recently used one deallocated to make room (psycopg 3's scheme).
 */
class PreparedStatements {
  private readonly runs = new Map<string, number>();
  /**
   * SQL → its name and when it last ran (a counter). Using a statement only
   * writes that number: re-inserting the key to keep the map in LRU order
   * put a fresh string into a long-lived map on every query, work for every
   * young-generation collection. The least recently used is found by a scan,
   * only when a new name needs room.
   */
  private readonly names = new Map<string, { readonly name: string; used: number }>();
  private clock = 0;
  /** Names to DEALLOCATE before the next query on this connection. */
  private readonly unwanted: string[] = [];
  /** How rows of each statement are built on this connection (see pg-query.ts). */
  readonly rows: RowShapes;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly settings: PrepareSettings,
  ) {
    this.rows = new RowShapes(client);
  }

  /** The name to run `sql` under, or `undefined` to run it unnamed. */
  nameFor(sql: string): string | undefined {
    const threshold = this.settings.threshold;
    if (threshold === null) return undefined;
    const known = this.names.get(sql);
    if (known !== undefined) {
      known.used = ++this.clock;
      return known.name;
    }
    const runs = (this.runs.get(sql) ?? 0) + 1;
    if (runs <= threshold) {
      if (this.runs.size >= 10 * this.settings.max) this.runs.clear();
      this.runs.set(sql, runs);
      return undefined;
    }
    this.runs.delete(sql);
    if (this.names.size >= this.settings.max) this.drop(this.leastRecentlyUsed()!);
    const name = `trestle_${++statementNames}`;
    this.names.set(sql, { name, used: ++this.clock });
    return name;
  }

  /** Forgets the statement of `sql`; it is deallocated on the server before the next query here. */
  drop(sql: string): void {
    const name = this.names.get(sql)?.name;
    if (name === undefined) return;
    this.names.delete(sql);
    const parsed = (this.client as unknown as ClientInternals).connection?.parsedStatements;
    if (parsed) delete parsed[name];
    this.unwanted.push(name);
  }

  /** A name waiting to be deallocated, taken off the list. */
  takeUnwanted(): string | undefined {
    return this.unwanted.pop();
  }

  private leastRecentlyUsed(): string | undefined {
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [sql, { used }] of this.names) {
      if (used < oldestUse) {
        oldest = sql;
        oldestUse = used;
      }
    }
    return oldest;
  }
}

const preparedByClient = new WeakMap<pg.PoolClient, PreparedStatements>();

/** PostgreSQL's "cached plan must not change result type": the table changed under a prepared statement. */
function isStalePlan(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '0A000' && /cached plan/i.test(String((err as Error).message));
}

/**
 * Runs `fn` once the client has answered everything sent to it, or has lost
 * its connection. An error reaches a query's callback when the server reports
 * it, before the server says it is ready again; sending the next query (or
 * releasing the client to the next request) before then would queue it
 * behind the failed one, which node-postgres deprecates.
 */
function whenIdle(client: pg.PoolClient, fn: () => void): void {
  const state = client as unknown as ClientInternals;
  if (state.readyForQuery !== false || state._queryable === false) {
    fn();
    return;
  }
  const go = (): void => {
    client.removeListener('drain', go);
    client.removeListener('end', go);
    client.removeListener('error', go);
    fn();
  };
  client.on('drain', go);
  client.on('end', go);
  client.on('error', go);
}

/**
 * Sends one compiled query on a checked-out client: the query (after any
 * statement waiting to be deallocated), prepared once it has run
 * `threshold` times on that connection; a plan made stale by a migration is
 * planned afresh once. Callbacks, not the driver's promises: its promise per
 * query (with a `.catch` to fix the stack) kept every query in flight, and
 * the request around it, alive across young-generation collections, which
 * then promoted them (see docs/performance.md).
 */
function sendQuery(client: pg.PoolClient, compiled: CompiledQuery, settings: PrepareSettings, done: Done, retried = false): void {
  let statements = preparedByClient.get(client);
  if (statements === undefined) {
    statements = new PreparedStatements(client, settings);
    preparedByClient.set(client, statements);
  }
  const text = compiled.sql;
  const values = compiled.parameters as unknown[];
  const name = statements.nameFor(text);
  const prepared = statements;
  const answered = (err: Error | null, result?: pg.QueryResult): void => {
    if (err === null) {
      done(null, result);
    } else if (name !== undefined && !retried && isStalePlan(err)) {
      // A migration changed the table: plan it afresh.
      prepared.drop(text);
      whenIdle(client, () => sendQuery(client, compiled, settings, done, true));
    } else {
      whenIdle(client, () => done(err));
    }
  };
  afterDeallocating(client, statements, () => {
    const query = createQuery(text, values, name, prepared.rows, answered);
    if (query !== null) client.query(query);
    else client.query(name === undefined ? { text, values } : { name, text, values }, answered);
  });
}

/** Deallocates the statements `statements` no longer wants (one query each), then calls `send`. */
function afterDeallocating(client: pg.PoolClient, statements: PreparedStatements, send: () => void): void {
  const unwanted = statements.takeUnwanted();
  if (unwanted === undefined) {
    send();
    return;
  }
  client.query(`DEALLOCATE ${unwanted}`, () => whenIdle(client, () => afterDeallocating(client, statements, send)));
}

/**
 * Sends `queries` on one client without waiting for each answer (the client
 * must be in node-postgres' pipeline mode) and in one write to the socket;
 * each keeps its own Sync, so one failing leaves the others as they are.
 * Calls `done` once all have answered, with the first error if any failed.
 */
function sendTogether(client: pg.PoolClient, queries: readonly CompiledQuery[], settings: PrepareSettings, done: (err: Error | null, results?: pg.QueryResult[]) => void): void {
  const results: pg.QueryResult[] = new Array(queries.length);
  let pending = queries.length;
  let failure: Error | null = null;
  const stream = (client as unknown as ClientInternals).connection?.stream;
  stream?.cork?.();
  try {
    queries.forEach((query, i) => {
      sendQuery(client, query, settings, (err, result) => {
        if (err !== null) failure ??= err;
        else results[i] = result!;
        if (--pending === 0) done(failure, results);
      });
    });
  } finally {
    stream?.uncork?.();
  }
}

/**
 * Sends `queries` on one client one after the other, each once the previous
 * has answered: the way for a client not in pipeline mode (the pool was
 * configured so). Stops at the first error.
 */
function sendInTurn(client: pg.PoolClient, queries: readonly CompiledQuery[], settings: PrepareSettings, done: (err: Error | null, results?: pg.QueryResult[]) => void): void {
  const results: pg.QueryResult[] = [];
  const next = (i: number): void => {
    if (i === queries.length) {
      done(null, results);
      return;
    }
    sendQuery(client, queries[i]!, settings, (err, result) => {
      if (err) done(err);
      else {
        results.push(result!);
        next(i + 1);
      }
    });
  };
  next(0);
}

/** Kysely's shape of a driver result. */
function toQueryResult<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  return {
    numAffectedRows: command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE' ? BigInt(rowCount ?? 0) : undefined,
    rows: (rows ?? []) as R[],
  };
}

/** Checks a client out, hands it to `use`, releases it when `use` says it is done; a throw in `use` rejects. */
function withClient<T>(pool: pg.Pool, use: (client: pg.PoolClient, finish: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    pool.connect((checkoutError, client) => {
      if (checkoutError || client === undefined) {
        reject(checkoutError ?? new Error('The pool gave no client.'));
        return;
      }
      let finished = false;
      const finish = (err: Error | null, value?: T): void => {
        if (finished) return;
        finished = true;
        client.release();
        if (err) reject(err);
        else resolve(value as T);
      };
      try {
        use(client, finish);
      } catch (err) {
        whenIdle(client, () => finish(err instanceof Error ? err : new Error(String(err))));
      }
    });
  });
}

/**
 * The app's own executor (no plug-ins; transactions run on executors of
 * their own) sends a query on a pooled client itself: check out, query,
 * release, with the result in the shape Kysely's PostgreSQL driver gives,
 * without Kysely's connection provider and its chain of awaits around it.
 * Several reads of one request (a page and its count) can go together in
 * one round trip on a pipelined client.
 */
export function installDirectPgQueries(db: Kysely<DB>, pool: pg.Pool, settings: PrepareSettings): void {
  const executor = markCompiles(db);
  const execute = executor.executeQuery.bind(executor);
  (executor as { executeQuery: QueryExecutor['executeQuery'] }).executeQuery = <R>(compiled: CompiledQuery<R>): Promise<QueryResult<R>> => {
    if (executor.plugins.length > 0) return execute(compiled);
    return withClient<QueryResult<R>>(pool, (client, finish) => {
      sendQuery(client, compiled, settings, (err, result) => finish(err, err ? undefined : toQueryResult<R>(result!)));
    });
  };
  setExecuteTogether(executor, (queries) =>
    withClient<QueryResult<unknown>[]>(pool, (client, finish) => {
      const sendAll = (client as unknown as ClientInternals).pipeline === true ? sendTogether : sendInTurn;
      sendAll(client, queries, settings, (err, results) => finish(err, err ? undefined : results!.map((r) => toQueryResult<unknown>(r))));
    }),
  );
}
