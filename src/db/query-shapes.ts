/**
 * Queries Trestle derives from a listing (a cursor page's seek, a numbered
 * page's slice) compiled once per shape, then only bound.
 *
 * The listing is the user's Kysely builder, built afresh by every request,
 * so it is compiled every time (that also says which executor it runs on).
 * What a pagination style adds to it — ORDER BY, a keyset WHERE, LIMIT and
 * OFFSET — was built with Kysely and compiled again with the listing inside,
 * about 9 µs per cursor page. Here the derived query is built and compiled
 * once per (listing SQL, what the style adds), with a stand-in object for
 * each value that varies; the stand-ins are found again among the compiled
 * parameters, so each later request only fills the parameter list: the
 * listing's own parameters where they were, its values at the stand-ins'.
 *
 * Sound because the derived query only appends clauses: Kysely emits the
 * listing's parameters in their order around the added ones, and anything
 * else about the listing that could change the SQL is in its SQL text, which
 * is the key. A null value is SQL text (`IS NULL`), not a parameter, so
 * which values are null is part of the key too. A numbered page's count is
 * derived the same way from the ordered listing: the listing without its
 * ORDER BY, wrapped in `count(*)`; it is reused only when it carries every
 * parameter of the listing in order (an ORDER BY with parameters is built
 * each time). When the stand-ins do not
 * come back as expected (a listing with plug-ins, a value inspected while
 * building), the shape is marked unusable and that query is built each time
 * as before.
 */
import { createQueryId, type CompiledQuery, type Kysely, type QueryExecutor, type RootOperationNode, type SelectQueryBuilder } from 'kysely';
import { directExecutorOf, hasDirectExecutors, isOwnExecutor } from './direct.js';

/** `query` when `executor` compiled it just now (so a query derived from it may run there), else `null`. */
export function ownCompile<Q extends CompiledQuery>(executor: QueryExecutor, query: Q): Q | null {
  return directExecutorOf(query) === executor ? query : null;
}

/** A value's place while a shape is learnt. */
class StandIn {
  constructor(readonly index: number) {}
}

export interface Shape {
  readonly sql: string;
  readonly node: RootOperationNode;
  /** Per compiled parameter: `i >= 0` the listing's parameter i, `~i` the derived query's value i. */
  readonly slots: readonly number[];
}

/**
 * Shapes per executor (one SQL text may compile differently on SQLite and
 * PostgreSQL), then per listing SQL, then per what is added; `null` = build
 * each time. The listing's SQL text is looked up as it came from the
 * compiler, not concatenated into a longer key on every request.
 */
const shapesByExecutor = new WeakMap<QueryExecutor, Map<string, Map<string, Shape | null>>>();
/** Listings kept per executor, and shapes kept per listing. */
const MAX_SHAPES = 500;

/** The derived query, ready to run on the executor that compiled the listing. */
export interface Derived<R> {
  readonly executor: QueryExecutor;
  readonly query: CompiledQuery<R>;
}

/**
 * `build(values)` compiled, for a listing compiled by the app's own executor
 * (`listing`, just compiled); `null` when another executor compiled it
 * (plug-ins: the caller goes Kysely's way). `kind` names what `build` adds
 * beyond the listing and `values` (the ordering, which comparison); `build`
 * must pass each value to Kysely as a parameter and not look at it.
 */
export function compileDerived<R>(listing: CompiledQuery, kind: string, values: readonly unknown[], build: (values: readonly unknown[]) => CompiledQuery<R>): Derived<R> | null {
  const executor = directExecutorOf(listing);
  return executor === null ? null : deriveOn(executor, listing, kind, values, (v) => ownCompile(executor, build(v)));
}

/**
 * `compileDerived` for a listing already known to be compiled by `executor`
 * (so several queries can be derived from one compile of it). `build`
 * answers `null` when what it compiled is not the executor's own
 * (`ownCompile`); it may wrap the SQL it compiled. `null` when the derived
 * query cannot run on `executor`.
 */
export function deriveOn<R>(
  executor: QueryExecutor,
  listing: CompiledQuery,
  kind: string,
  values: readonly unknown[],
  build: (values: readonly unknown[]) => CompiledQuery<R> | null,
): Derived<R> | null {
  let bySql = shapesByExecutor.get(executor);
  if (bySql === undefined) shapesByExecutor.set(executor, (bySql = new Map()));
  let shapes = bySql.get(listing.sql);
  if (shapes === undefined) {
    if (bySql.size >= MAX_SHAPES) bySql.clear();
    bySql.set(listing.sql, (shapes = new Map()));
  }
  return deriveIn(shapes, shapeKey(kind, values), executor, listing, values, build);
}

/**
 * `prefix + part + suffix`, the same string each time for the same `part` (remembered in
 * `cache`, at most `limit` of them): V8 keeps a string's hash, so a key that is the same string
 * is not hashed again by every lookup, as one made per request is.
 */
export function joinedOnce(cache: Map<string, string>, prefix: string, part: string, suffix: string, limit: number): string {
  let joined = cache.get(part);
  if (joined === undefined) {
    if (cache.size >= limit) cache.clear();
    cache.set(part, (joined = prefix + part + suffix));
  }
  return joined;
}

const oneValueKeys = new Map<string, string>();

/** What a shape depends on besides the listing: what is added, and which values are null. */
function shapeKey(kind: string, values: readonly unknown[]): string {
  // One value (a detail's lookup): the same key for the same kind.
  if (values.length === 1 && values[0] !== null && values[0] !== undefined) return joinedOnce(oneValueKeys, '', kind, '\u0000v', MAX_SHAPES);
  let key = kind;
  for (const v of values) key += v === null || v === undefined ? '\u0000n' : '\u0000v';
  return key;
}

function deriveIn<R>(
  shapes: Map<string, Shape | null>,
  key: string,
  executor: QueryExecutor,
  listing: CompiledQuery,
  values: readonly unknown[],
  build: (values: readonly unknown[]) => CompiledQuery<R> | null,
): Derived<R> | null {
  let shape = shapes.get(key);
  if (shape === undefined) {
    shape = learn(listing, values, build);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  if (shape === null) {
    const query = build(values);
    return query === null ? null : { executor, query };
  }
  const slots = shape.slots;
  const parameters: unknown[] = new Array(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i]!;
    parameters[i] = s >= 0 ? listing.parameters[s] : values[~s];
  }
  return { executor, query: { sql: shape.sql, query: shape.node, parameters, queryId: createQueryId() } as CompiledQuery<R> };
}

// ------------------------------------------------------------ reused listings

/**
 * A listing compiled on the app's own executor, and the shapes derived from
 * it. For a builder that serves many requests (`markReused`) this is
 * learnt once and kept: such a builder is immutable, so its SQL, its
 * parameters and the executor it runs on never change.
 */
export interface Listing {
  readonly executor: QueryExecutor;
  readonly compiled: CompiledQuery;
  /** Shapes derived from this very builder, by what is added (`null` for a listing compiled just now: shapes go by SQL text). */
  readonly shapes: Map<string, Shape | null> | null;
}

/** Reused builders: their listing once compiled (`null`: not on the app's own executor), `undefined` until then. */
const reused = new WeakMap<object, { listing: Listing | null | undefined }>();

/**
 * Declares that the Kysely builder `qb` is kept and answers many requests
 * (a model view's default queryset, an ordering of it), so what is compiled
 * from it may be kept with it (`listingOf`). Builders made per request are
 * not marked: an entry each would be work for every young-generation
 * collection.
 */
export function markReused(qb: object): void {
  if (!reused.has(qb)) reused.set(qb, { listing: undefined });
}

/** Whether `qb` was declared reused (`markReused`). */
export function isReused(qb: object): boolean {
  return reused.has(qb);
}

/**
 * `qb` compiled, with the app's own executor that compiled it: kept with a
 * reused builder, else compiled now. `null` when that executor is not the
 * app's own one (plug-ins, a transaction): the caller goes Kysely's way.
 */
export function listingOf(qb: { compile(): CompiledQuery }): Listing | null {
  if (!hasDirectExecutors()) return null;
  const entry = reused.get(qb);
  if (entry === undefined) {
    const compiled = qb.compile();
    const executor = directExecutorOf(compiled);
    return executor === null ? null : { executor, compiled, shapes: null };
  }
  if (entry.listing === undefined) {
    const compiled = qb.compile();
    const executor = directExecutorOf(compiled);
    entry.listing = executor === null ? null : { executor, compiled, shapes: new Map() };
  }
  return entry.listing;
}

/**
 * `deriveOn` for a `listingOf`: a reused listing keeps its shapes by what is
 * added (no SQL text to look up); `build` answers `null` when what it
 * compiled is not the executor's own (`ownCompile`).
 */
export function deriveFrom<R>(listing: Listing, kind: string, values: readonly unknown[], build: (values: readonly unknown[]) => CompiledQuery<R> | null): Derived<R> | null {
  if (listing.shapes === null) return deriveOn(listing.executor, listing.compiled, kind, values, build);
  return deriveIn(listing.shapes, shapeKey(kind, values), listing.executor, listing.compiled, values, build);
}

function learn(listing: CompiledQuery, values: readonly unknown[], build: (values: readonly unknown[]) => CompiledQuery | null): Shape | null {
  const compiled = build(values.map((v, i) => (v === null || v === undefined ? v : new StandIn(i))));
  if (compiled === null) return null;
  const slots: number[] = [];
  const own = listing.parameters;
  let next = 0;
  for (const p of compiled.parameters) {
    if (p instanceof StandIn) slots.push(~p.index);
    else if (next < own.length && p === own[next]) slots.push(next++);
    else return null;
  }
  if (next !== own.length) return null;
  return { sql: compiled.sql, node: compiled.query, slots };
}

/**
 * `db.selectFrom(table)` selecting `columns` by name, qualified by the table
 * (a join added later leaves them unambiguous); SQL without `*`, whose rows
 * SQLite reads faster (src/db/database.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function selectColumns(db: Kysely<any>, table: string, columns: readonly string[]): SelectQueryBuilder<any, any, any> {
  return db.selectFrom(table).select(columns.map((c) => `${table}.${c}`));
}

/** `allRowsOf`'s builders, per database and table (or the very list of columns asked for). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const allRows = new WeakMap<Kysely<any>, Map<string | readonly string[], SelectQueryBuilder<any, any, any>>>();

/**
 * `db.selectFrom(table).selectAll()` — or, given a model's `columns`, those
 * columns by name, as Django reads a row — the same builder each time on
 * the app's own executor, declared reused (`markReused`): a related field's
 * queryset, looked up by key on every write that names a row, is then
 * compiled once per key column. A database with plug-ins or a transaction
 * gets a new builder each time.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function allRowsOf(db: Kysely<any>, table: string, columns?: readonly string[]): SelectQueryBuilder<any, any, any> {
  const build = () => (columns === undefined ? db.selectFrom(table).selectAll() : selectColumns(db, table, columns));
  if (!isOwnExecutor(db.getExecutor())) return build();
  let byTable = allRows.get(db);
  if (byTable === undefined) allRows.set(db, (byTable = new Map()));
  // Kept per table, or per list of columns (the caller keeps its list: no key is built per request).
  const key = columns ?? table;
  let qb = byTable.get(key);
  if (qb === undefined) {
    qb = build();
    markReused(qb);
    byTable.set(key, qb);
  }
  return qb;
}
