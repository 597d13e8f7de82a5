/**
 * The client-side query timeout of a PostgreSQL pool, enforced by one
 * periodic sweep per pool instead of node-postgres' `query_timeout`, which
 * arms a timer and wraps the callback of every query (measured: 0.73x-0.87x
 * of the CPU per request of a hand-written app on PostgreSQL, see
 * docs/performance.md). The sweep costs nothing per query: it looks at the
 * query each pooled client is waiting on, and a client found waiting on the
 * same query for longer than the timeout has its connection destroyed, which
 * fails that query and every query queued behind it with `Query read
 * timeout` (a 503) and drops the client from the pool.
 */
import type pg from 'pg';

/** The parts of node-postgres' client and pool the sweep reads; their types do not declare them. */
interface ClientState {
  _activeQuery?: object | null;
  _sentQueryQueue?: readonly object[];
  _queryQueue?: readonly object[];
  _ending?: boolean;
  connection?: { stream?: { destroy?: (err?: Error) => void } };
}

interface PoolState {
  _clients?: readonly pg.PoolClient[];
}

/** The message node-postgres gives a query past its `query_timeout`; src/outage.ts reads it as an outage. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/** How often the sweep looks, in ms, for a timeout of `timeoutMs`: a tenth of it, between 50 ms and 1 s. */
export function sweepInterval(timeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(timeoutMs / 10)));
}

/** The query a client waits on, if any: the one being answered, else the first sent or queued. */
function waitingOn(client: ClientState): object | undefined {
  return client._activeQuery ?? client._sentQueryQueue?.[0] ?? client._queryQueue?.[0] ?? undefined;
}

/**
 * Starts the sweep of `pool` for a client-side timeout of `timeoutMs`
 * (nothing when it is 0). `paused()` true skips a sweep (a job that runs
 * without the timeout). Returns the function that stops it. The timer does
 * not keep the process alive.
 *
 * A query fails between `timeoutMs` and `timeoutMs` + one interval after it
 * was sent: the sweep notes when it first sees a client waiting on a query,
 * and times it from there.
 */
export function startQueryDeadlines(pool: pg.Pool, timeoutMs: number, paused: () => boolean): () => void {
  if (!(timeoutMs > 0)) return () => {};
  const interval = sweepInterval(timeoutMs);
  /** Per client: the query it waited on at the last sweep, and when the sweep first saw it waiting on that query. */
  const seen = new Map<pg.PoolClient, { query: object; since: number }>();
  const sweep = (): void => {
    const clients = (pool as unknown as PoolState)._clients ?? [];
    if (paused()) {
      seen.clear();
      return;
    }
    const now = Date.now();
    for (const client of seen.keys()) if (!clients.includes(client)) seen.delete(client);
    for (const client of clients) {
      const state = client as unknown as ClientState;
      const query = waitingOn(state);
      if (query === undefined) {
        seen.delete(client);
        continue;
      }
      const last = seen.get(client);
      if (last === undefined || last.query !== query) {
        seen.set(client, { query, since: now });
        continue;
      }
      if (now - last.since < timeoutMs || state._ending) continue;
      seen.delete(client);
      // Every query of the connection fails with this error (node-postgres
      // errors all its queries when the stream fails), the client is no
      // longer queryable, and the pool drops it on release.
      state.connection?.stream?.destroy?.(new Error(QUERY_READ_TIMEOUT));
    }
  };
  const timer = setInterval(sweep, interval);
  timer.unref();
  return () => {
    clearInterval(timer);
    seen.clear();
  };
}
