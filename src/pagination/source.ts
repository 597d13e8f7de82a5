/**
 * Source adapters: what a pagination style needs from "the items", for an
 * in-memory array and for a Kysely select builder. Counting is
 * `SELECT count(*) FROM (…) AS t`, slicing is LIMIT/OFFSET, seeking (cursor
 * pages) is ORDER BY plus a keyset WHERE.
 */
import { AliasNode, CompiledQuery, IdentifierNode, RawNode, SelectionNode, SelectQueryNode, sql, type Expression, type KyselyPlugin, type QueryExecutor, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Source } from './base.js';
import { directExecutorOf, executeTogetherOn, hasDirectExecutors, readNow } from '../db/direct.js';
import { deriveFrom, isReused, listingOf, markReused, ownCompile, type Derived, type Listing } from '../db/query-shapes.js';
import { EXACT_POSITION, EXACT_POSITION_PREFIX } from '../db/pg-query.js';
import { isThenable, promiseOf, thenOf } from '../utils/thenable.js';

/** A page's items with the count of the whole listing. */
export interface CountAndSlice<T> {
  count: number;
  items: T[];
}

/**
 * `qb.clearOrderBy()`, kept with a reused builder (and itself reused), so a
 * cursor page's listing is compiled once per builder rather than per request.
 */
function unorderedOf<T>(qb: AnyQuery<T>): AnyQuery<T> {
  if (!isReused(qb)) return qb.clearOrderBy();
  let unordered = unorderedOfReused.get(qb) as AnyQuery<T> | undefined;
  if (unordered === undefined) {
    unordered = qb.clearOrderBy();
    markReused(unordered);
    unorderedOfReused.set(qb, unordered);
  }
  return unordered;
}
const unorderedOfReused = new WeakMap<object, object>();

/** One column of an ordering, as the client sees the listing. */
export interface OrderTerm {
  /** Column (may be `table.column`; the row key is the last segment). */
  readonly field: string;
  readonly descending: boolean;
  /** Where NULLs appear in this listing (only meaningful when `nullable`). */
  readonly nullsFirst: boolean;
  /**
   * Whether the column may hold NULL. Non-nullable orderings (DRF's
   * requirement) sort and seek with plain SQL the database can answer from
   * an index; nullable ones spell out where NULLs go.
   */
  readonly nullable?: boolean;
  /** A unique column (the tie-breaker): its values are read as they come, not as the database's text. */
  readonly unique?: boolean;
}

/** The same ordering walked backwards (for `previous` pages). */
export function reverseTerms(terms: readonly OrderTerm[]): OrderTerm[] {
  // Frozen terms (a pagination's kept ordering) are reversed once, and the result kept frozen too.
  const frozen = Object.isFrozen(terms);
  if (frozen) {
    const kept = reversedTerms.get(terms);
    if (kept !== undefined) return kept as OrderTerm[];
  }
  const reversed = terms.map((t) => ({ field: t.field, descending: !t.descending, nullsFirst: !t.nullsFirst, nullable: t.nullable, unique: t.unique }));
  if (!frozen || !terms.every((t) => Object.isFrozen(t))) return reversed;
  const kept = Object.freeze(reversed.map((t) => Object.freeze(t)));
  reversedTerms.set(terms, kept);
  return kept as OrderTerm[];
}

/** `reverseTerms` of frozen terms. */
const reversedTerms = new WeakMap<readonly OrderTerm[], readonly OrderTerm[]>();
/** `orderKey` of frozen terms. */
const orderKeys = new WeakMap<readonly OrderTerm[], string>();

/** The row key a term reads: `b.created` → `created`. */
export function rowKey(field: string): string {
  const dot = field.lastIndexOf('.');
  return dot === -1 ? field : field.slice(dot + 1);
}

/** The value of a term's column in an item (array element or row). */
export function valueOf(item: unknown, field: string): unknown {
  if (item === null || typeof item !== 'object') return undefined;
  return (item as Record<string, unknown>)[rowKey(field)];
}

/**
 * Rows read by a cursor page on PostgreSQL carry each ordering column's value
 * as the database prints it (`created::text`), kept on the row under this
 * symbol: a `timestamptz` parsed into a `Date` would keep milliseconds and
 * drop the microseconds the column holds, and a cursor made from it would
 * repeat or skip rows. Bound back as text, PostgreSQL reads the value at
 * full precision. A symbol key is invisible to `JSON.stringify`,
 * `Object.keys` and the serializers; a `WeakMap` entry per row, and a copy
 * of each row without the text columns, cost more than the page's query
 * (see docs/performance.md).
 */
const EXACT = EXACT_POSITION;

/** The value a cursor records for a term's column: the database's exact text where it was read, else the row's value. */
export function positionValue(item: unknown, field: string): unknown {
  if (item !== null && typeof item === 'object') {
    const exact = (item as { [EXACT]?: Readonly<Record<string, unknown>> })[EXACT];
    if (exact !== undefined && Object.prototype.hasOwnProperty.call(exact, field)) return exact[field];
  }
  return valueOf(item, field);
}

/** What every pagination style needs from a source. */
export interface PageSource<T> {
  readonly kind: 'array' | 'query';
  /** The exact number of items. */
  count(): Promise<number>;
  /** `min(count, max)`, reading at most `max` rows. */
  countUpTo(max: number): Promise<number>;
  /** A cheap estimate of the count, or `null` when the source cannot estimate. */
  estimatedCount(): Promise<number | null>;
  /** Items `offset … offset + limit - 1` in the source's own order. */
  slice(offset: number, limit: number): Promise<T[]>;
  /**
   * `count()` and `slice(offset, limit)` together (in one round trip where
   * the database allows), or `null` when this source cannot (then nothing
   * has run). Without a promise where the database answers at once.
   */
  countAndSlice?(offset: number, limit: number): CountAndSlice<T> | Promise<CountAndSlice<T>> | null;
  /**
   * Items in `order`, strictly after `after` (values of the first
   * `after.length` terms, compared as a tuple) — or at or after it when
   * `inclusive` — then skipping `offset`. `reversed` says `order` is the
   * listing walked backwards, so an array breaks ties by position in the
   * mirrored direction.
   */
  seek(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, reversed?: boolean, inclusive?: boolean): Promise<T[]>;
  /** `count()` without a promise where the database answers at once (SQLite, see `readNow`). */
  countNow?(): number | Promise<number>;
  /** `countUpTo(max)` without a promise where the database answers at once. */
  countUpToNow?(max: number): number | Promise<number>;
  /** `slice(offset, limit)` without a promise where the database answers at once. */
  sliceNow?(offset: number, limit: number): T[] | Promise<T[]>;
  /** `seek(…)` without a promise where the database answers at once. */
  seekNow?(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, reversed?: boolean, inclusive?: boolean): T[] | Promise<T[]>;
  /** How many items have exactly the values `at` in the first `at.length` terms of `order`. */
  countEqual(order: readonly OrderTerm[], at: readonly unknown[]): Promise<number>;
}

/** Wraps an array or a Kysely select builder. */
export function pageSource<T>(source: Source<T>): PageSource<T> {
  return Array.isArray(source) ? new ArraySource(source as readonly T[]) : new QuerySource(source as AnyQuery<T>);
}

// ---------------------------------------------------------------- arrays

/** Orders two non-null values: numbers and dates numerically, strings by code unit. */
export function compareValues(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : typeof a === 'boolean' ? Number(a) : a;
  const y = b instanceof Date ? b.getTime() : typeof b === 'boolean' ? Number(b) : b;
  if ((typeof x === 'number' || typeof x === 'bigint') && (typeof y === 'number' || typeof y === 'bigint')) {
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const s = typeof x === 'string' ? x : String(x);
  const t = typeof y === 'string' ? y : String(y);
  return s < t ? -1 : s > t ? 1 : 0;
}

function isNull(v: unknown): boolean {
  return v === null || v === undefined;
}

/** Compares two column values as the term orders them (NULL placement included). */
export function compareByTerm(a: unknown, b: unknown, term: OrderTerm): number {
  const an = isNull(a);
  const bn = isNull(b);
  if (an || bn) {
    if (an && bn) return 0;
    return an === term.nullsFirst ? -1 : 1;
  }
  const c = compareValues(a, b);
  return term.descending ? -c : c;
}

class ArraySource<T> implements PageSource<T> {
  readonly kind = 'array';
  constructor(private readonly items: readonly T[]) {}

  async count(): Promise<number> {
    return this.items.length;
  }
  countNow(): number {
    return this.items.length;
  }
  async countUpTo(max: number): Promise<number> {
    return this.countUpToNow(max);
  }
  countUpToNow(max: number): number {
    return Math.min(this.items.length, max);
  }
  async estimatedCount(): Promise<number | null> {
    return null;
  }
  async slice(offset: number, limit: number): Promise<T[]> {
    return this.sliceNow(offset, limit);
  }
  sliceNow(offset: number, limit: number): T[] {
    return this.items.slice(offset, offset + limit);
  }
  async seek(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, reversed = false, inclusive = false): Promise<T[]> {
    return this.seekNow(order, after, offset, limit, reversed, inclusive);
  }
  seekNow(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, reversed = false, inclusive = false): T[] {
    const index = new Map<T, number>();
    this.items.forEach((item, i) => index.set(item, i));
    // Ties keep array order forwards and the mirror of it backwards, so both walks agree.
    const cmp = (a: T, b: T): number => {
      for (const term of order) {
        const c = compareByTerm(valueOf(a, term.field), valueOf(b, term.field), term);
        if (c !== 0) return c;
      }
      const d = index.get(a)! - index.get(b)!;
      return reversed ? -d : d;
    };
    let rows = [...this.items].sort(cmp);
    if (after) {
      rows = rows.filter((item) => {
        for (let i = 0; i < after.length; i++) {
          const c = compareByTerm(valueOf(item, order[i]!.field), after[i], order[i]!);
          if (c !== 0) return c > 0;
        }
        return inclusive;
      });
    }
    return rows.slice(offset, offset + limit);
  }
  async countEqual(order: readonly OrderTerm[], at: readonly unknown[]): Promise<number> {
    return this.items.filter((item) => at.every((v, i) => compareByTerm(valueOf(item, order[i]!.field), v, order[i]!) === 0)).length;
  }
}

// ---------------------------------------------------------------- Kysely

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery<T> = SelectQueryBuilder<any, any, T>;

/** A listing that is every row of one table, as Kysely compiles `selectFrom(table).selectAll()`. */
const WHOLE_TABLE = /^select \* from ("(?:[^"]|"")+")$/;

/**
 * `SELECT count(*) AS count FROM (<compiled listing>) AS t`, on the
 * listing's own parameters; a listing of a whole table (a model view's
 * default queryset without its ORDER BY) is counted as the table itself,
 * the same number without a subquery for SQLite to flatten first (10.6 →
 * 8.1 µs on the example's 5,000 books).
 */
function wrapInCount(inner: CompiledQuery): CompiledQuery<{ count: unknown }> {
  const whole = inner.parameters.length === 0 ? WHOLE_TABLE.exec(inner.sql) : null;
  const text = whole !== null ? `select count(*) as "count" from ${whole[1]}` : `select count(*) as "count" from (${inner.sql}) as "t"`;
  return CompiledQuery.raw(text, [...inner.parameters]) as CompiledQuery<{ count: unknown }>;
}

/**
 * Runs `SELECT count(*) AS count FROM (<query>) AS t` on the builder's own
 * connection: a plugin swaps the query node for one that wraps it, since a
 * builder does not expose its Kysely instance.
 */
function countQuery(qb: AnyQuery<unknown>): Promise<{ count: unknown }[]> {
  if (hasDirectExecutors()) {
    // On the app's own executor the listing's SQL is wrapped as text: no plug-in, no second compile.
    const inner = qb.compile();
    const executor = directExecutorOf(inner);
    if (executor) {
      return executor.executeQuery<{ count: unknown }>(wrapInCount(inner)).then((result) => result.rows);
    }
  }
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (!SelectQueryNode.is(args.node)) return args.node;
      const from = SelectQueryNode.createFrom([AliasNode.create(args.node, IdentifierNode.create('t'))]);
      const count = SelectionNode.create(AliasNode.create(RawNode.createWithSql('count(*)'), IdentifierNode.create('count')));
      return SelectQueryNode.cloneWithSelections(from, [count]);
    },
    transformResult: async (args) => args.result,
  };
  return qb.withPlugin(plugin).execute() as Promise<{ count: unknown }[]>;
}

function toCount(row: { count?: unknown } | undefined): number {
  return Number(row?.count ?? 0);
}

/** The count of a count query's rows, or of their promise. */
function countOf(rows: readonly { count?: unknown }[] | Promise<readonly { count?: unknown }[]>): number | Promise<number> {
  return isThenable(rows) ? rows.then((r) => toCount(r[0])) : toCount(rows[0]);
}

/** The rows of a query compiled by the app's own executor: at once where `readNow` can (SQLite), else Kysely's promise. */
function rowsOf<R>(derived: Derived<R>): R[] | Promise<R[]> {
  const now = readNow<R>(derived.executor, derived.query);
  return now !== undefined ? now : derived.executor.executeQuery(derived.query).then((result) => result.rows as R[]);
}

const NO_VALUES: readonly unknown[] = [];

class QuerySource<T> implements PageSource<T> {
  readonly kind = 'query';
  constructor(private readonly qb: AnyQuery<T>) {}

  // ORDER BY never changes how many rows there are (with or without LIMIT/OFFSET),
  // and keeping it made SQLite materialise and sort the whole listing to count it.
  count(): Promise<number> {
    return promiseOf(() => this.countNow());
  }

  countNow(): number | Promise<number> {
    const derived = this.derivedCount('count', NO_VALUES, () => this.qb.clearOrderBy());
    if (derived !== null) return countOf(rowsOf(derived));
    return countOf(countQuery(this.qb.clearOrderBy() as AnyQuery<unknown>));
  }

  countUpTo(max: number): Promise<number> {
    return promiseOf(() => this.countUpToNow(max));
  }

  countUpToNow(max: number): number | Promise<number> {
    const derived = this.derivedCount('countUpTo', [max], ([m]) => this.qb.clearOrderBy().limit(m as number));
    if (derived !== null) return countOf(rowsOf(derived));
    return countOf(countQuery(this.qb.clearOrderBy().limit(max) as AnyQuery<unknown>));
  }

  /**
   * `count(*)` of what `build(values)` selects, compiled by shape from the
   * unordered listing (once per reused builder); `null` off the app's own
   * executor.
   */
  private derivedCount(kind: string, values: readonly unknown[], build: (values: readonly unknown[]) => AnyQuery<T>): Derived<{ count: unknown }> | null {
    const listing = listingOf(unorderedOf(this.qb));
    if (listing === null) return null;
    const executor = listing.executor;
    return deriveFrom(listing, kind, values, (v) => this.countOn(executor, build(v)));
  }

  async estimatedCount(): Promise<number | null> {
    if (!isPostgres(this.qb)) return null;
    const rows = (await this.qb.explain('json')) as Record<string, unknown>[];
    // The app's connections read json as its text (src/db/pg-types.ts), so the plan may arrive unparsed.
    const raw = rows[0]?.['QUERY PLAN'];
    const plan = ((typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan?: { 'Plan Rows'?: number } }[] | undefined)?.[0]?.Plan;
    const estimate = plan?.['Plan Rows'];
    return typeof estimate === 'number' && Number.isFinite(estimate) ? Math.max(0, Math.round(estimate)) : null;
  }

  slice(offset: number, limit: number): Promise<T[]> {
    return promiseOf(() => this.sliceNow(offset, limit));
  }

  sliceNow(offset: number, limit: number): T[] | Promise<T[]> {
    const page = this.page(offset, limit);
    if (page !== null) return rowsOf(page);
    return this.qb.limit(limit).offset(offset).execute() as Promise<T[]>;
  }

  /**
   * The page's query compiled by shape (see query-shapes.ts), from the
   * listing (`listingOf`: kept with a reused builder, else compiled now);
   * `null` off the app's own executor.
   */
  private page(offset: number, limit: number, listing: Listing | null = listingOf(this.qb)): Derived<T> | null {
    if (listing === null) return null;
    const executor = listing.executor;
    return deriveFrom(listing, 'slice', [limit, offset], ([l, o]) => ownCompile(executor, this.qb.limit(l as number).offset(o as number).compile()));
  }

  // On the app's own executor the listing is compiled once (once per builder for a
  // reused one): the count (the listing without ORDER BY, wrapped) and the page are
  // derived from it by shape. On PostgreSQL both go out in one write and come back
  // in one round trip; on SQLite one after the other. A builder with plug-ins gives `null`.
  countAndSlice(offset: number, limit: number): CountAndSlice<T> | Promise<CountAndSlice<T>> | null {
    const listing = listingOf(this.qb);
    if (listing === null) return null;
    const executor = listing.executor;
    const count = deriveFrom(listing, 'count', NO_VALUES, () => this.countOn(executor));
    const page = count && this.page(offset, limit, listing);
    if (!count || !page) return null;
    const run = executeTogetherOn(executor);
    if (run === null) {
      // No round trip to save (SQLite answers at once): the count, then the page, without a promise where `readNow` can.
      const counted = readNow<{ count: unknown }>(executor, count.query);
      const items = counted === undefined ? undefined : readNow<T>(executor, page.query);
      if (counted !== undefined && items !== undefined) return { count: toCount(counted[0]), items };
      return executor.executeQuery(count.query).then(async (counted) => ({
        count: toCount(counted.rows[0]),
        items: (await executor.executeQuery(page.query)).rows,
      }));
    }
    return run([count.query, page.query]).then(([counted, rows]) => ({ count: toCount(counted!.rows[0] as { count?: unknown }), items: rows!.rows as T[] }));
  }

  /** The count of `qb` (the listing without its ORDER BY), when the app's own executor compiles it. */
  private countOn(executor: QueryExecutor, qb: AnyQuery<T> = this.qb.clearOrderBy()): CompiledQuery<{ count: unknown }> | null {
    const inner = ownCompile(executor, qb.compile());
    return inner && wrapInCount(inner);
  }

  seek(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, reversed = false, inclusive = false): Promise<T[]> {
    return promiseOf(() => this.seekNow(order, after, offset, limit, reversed, inclusive));
  }

  /**
   * Reads the pieces of the listing after `after` in turn (see `seekPieces`),
   * each with its own index-friendly WHERE, until `limit` rows are read;
   * without a promise where every piece is read at once (SQLite). On
   * PostgreSQL each row also brings its ordering columns as text, until
   * the listing's rows have shown that their values are that text already
   * (see `plainPositions`).
   */
  seekNow(order: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, limit: number, _reversed = false, inclusive = false): T[] | Promise<T[]> {
    const base = unorderedOf(this.qb);
    // Compiled once for a reused builder (kept with it), else now; `null` off the app's own executor.
    const kept = listingOf(base);
    const executor = kept === null ? null : kept.executor;
    const wanted = needsExact(order) && (executor !== null ? executorIsPostgres(executor, base) : isPostgres(base));
    const ordering = orderKey(order);
    // What the listing's rows have shown of this ordering on this database (only on the app's own executor).
    const known = wanted && kept !== null && executor !== null ? plainPositions(executor, kept.compiled.sql, ordering) : null;
    const exact = wanted && (known === null || known.plain !== true);
    // Built only when a shape is learnt or cannot be derived: a derived page needs only the compile above.
    let listing: AnyQuery<T> | null = null;
    const selected = (): AnyQuery<T> => (listing ??= exact ? withExactColumns(base, order) : base);
    const pieces = seekPieces(order, after, inclusive, offset);
    const rows: T[] = [];
    const readPiece = (piece: SeekPiece): T[] | Promise<T[]> => {
      const want = limit - rows.length;
      const kind = `seek\u0002${ordering}\u0002${piece.kind}${exact ? '\u0002x' : ''}`;
      const n = piece.values.length;
      const build = (values: readonly unknown[]) => seekQuery(selected(), order, piece.where(values.slice(0, n)), values[n] as number, values[n + 1] as number);
      // The executor is known from the listing's compile: later compiles (another piece, a first
      // dialect probe) must not hide it, so the shape is derived on it directly.
      const derived = kept !== null && executor !== null ? deriveFrom(kept, kind, [...piece.values, want, offset], (v) => ownCompile(executor, build(v).compile())) : null;
      return derived !== null ? rowsOf(derived) : (build([...piece.values, want, offset]).execute() as Promise<T[]>);
    };
    /** Adds a piece's rows; whether the page is full. */
    const take = (got: readonly T[]): boolean => {
      for (const row of got) rows.push(exact ? takeExact(row, order) : row);
      if (known === null) return rows.length >= limit;
      if (exact) {
        if (known.plain === undefined) learnPlain(known, got, order);
      } else if (!stillPlain(got, order)) {
        known.plain = false; // The column's type changed under the process (a migration): text columns again from the next page on.
      }
      return rows.length >= limit;
    };
    // Piece `i` onwards: at once while each piece is, else from the first that waits.
    const readFrom = (i: number): T[] | Promise<T[]> => {
      for (; i < pieces.length; i++) {
        const got = readPiece(pieces[i]!);
        if (isThenable(got)) {
          const next = i + 1;
          return got.then((r) => (take(r) ? rows : readFrom(next)));
        }
        if (take(got)) break;
      }
      return rows;
    };
    return readFrom(0);
  }

  async countEqual(order: readonly OrderTerm[], at: readonly unknown[]): Promise<number> {
    const same = sql<SqlBool>`${sql.join(at.map((v, i) => equals(order[i]!, v)), sql` and `)}`;
    const rows = await countQuery(this.qb.clearOrderBy().where(same) as AnyQuery<unknown>);
    return toCount(rows[0]);
  }
}

// SQL fragments hold no values and never change: built once per ordering and column, not per request.
const orderByCache = new Map<string, RawBuilder<unknown>>();
const refCache = new Map<string, RawBuilder<unknown>>();
const FRAGMENT_CACHE_SIZE = 500;

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= FRAGMENT_CACHE_SIZE) cache.clear();
    cache.set(key, value);
  }
  return value;
}

const rowComparisonCache = new Map<string, { fragments: TemplateStringsArray; columns: RawBuilder<unknown> }>();

/** The parts of `(c1, c2) op (?, ?)` that do not depend on the values: the fragments around them and the column list. */
function rowComparison(terms: readonly OrderTerm[], op: string): { fragments: TemplateStringsArray; columns: RawBuilder<unknown> } {
  const parts = ['(', `) ${op} (`, ...terms.slice(1).map(() => ', '), ')'];
  return {
    fragments: Object.assign(parts, { raw: [...parts] }) as unknown as TemplateStringsArray,
    columns: sql.join(terms.map((t) => columnRef(t.field))),
  };
}

function columnRef(field: string): RawBuilder<unknown> {
  return remember(refCache, field, () => sql.ref(field));
}

/**
 * The ORDER BY of an ordering as one expression (`"created" desc, "id" desc`).
 * A NULLS clause only where NULLs can exist: it keeps PostgreSQL on a plain index.
 */
function orderByExpression(order: readonly OrderTerm[]): RawBuilder<unknown> {
  return remember(orderByCache, orderKey(order), () =>
    sql.join(
      order.map((term) => {
        const direction = sql.raw(term.descending ? 'desc' : 'asc');
        return term.nullable === false
          ? sql`${columnRef(term.field)} ${direction}`
          : sql`${columnRef(term.field)} ${direction} ${sql.raw(term.nullsFirst ? 'nulls first' : 'nulls last')}`;
      }),
    ),
  );
}

/** Everything about an ordering that its SQL depends on, as a string. */
function orderKey(order: readonly OrderTerm[]): string {
  const kept = orderKeys.get(order);
  if (kept !== undefined) return kept;
  const key = readOrderKey(order);
  if (Object.isFrozen(order) && order.every((t) => Object.isFrozen(t))) orderKeys.set(order, key);
  return key;
}

function readOrderKey(order: readonly OrderTerm[]): string {
  return order.map((t) => `${t.field}\u0000${t.descending ? 'd' : 'a'}${t.nullable === false ? '' : t.nullsFirst ? 'F' : 'L'}${t.unique === true ? 'u' : ''}`).join('\u0001');
}

/** The listing (without its own ORDER BY) in `order`, narrowed by `where` when given, then LIMIT and OFFSET. */
function seekQuery<T>(listing: AnyQuery<T>, order: readonly OrderTerm[], where: Expression<SqlBool> | null, limit: number, offset: number): AnyQuery<T> {
  let q = listing.orderBy(orderByExpression(order));
  if (where) q = q.where(where);
  return q.limit(limit).offset(offset);
}

/** A part of the listing past a cursor: its WHERE from `values`, and what its SQL depends on besides them. */
interface SeekPiece {
  readonly kind: string;
  readonly values: readonly unknown[];
  readonly where: (values: readonly unknown[]) => Expression<SqlBool> | null;
}

/**
 * The listing in `order` past `after`, as pieces that follow each other in
 * that order, each answered by an index range scan.
 *
 * `(c, id) > (c0, id0)` is what an index on `(c, id)` answers directly, and
 * it never matches a row whose `c` is NULL. When NULLs come after the other
 * values in the reading direction, `… OR c IS NULL` would turn the range
 * into a filtered scan of the whole index; instead the NULL rows are a
 * second piece (`c IS NULL`, the same index), read only when the first runs
 * out. Starting inside the NULL rows, the first piece is `c IS NULL AND id
 * > id0` and, when NULLs come first, the second `c IS NOT NULL`.
 *
 * This split applies to the common shape: one column that may hold NULL,
 * then NOT NULL unique columns, all one direction, a full keyset position
 * and no offset. Anything else is one piece with the expanded predicate
 * (`keysetPredicate`), correct for any NULLs and directions.
 */
export function seekPieces(order: readonly OrderTerm[], after: readonly unknown[] | null, inclusive: boolean, offset: number): SeekPiece[] {
  if (after === null) return [{ kind: '-', values: NO_VALUES, where: () => null }];
  const first = order[0]!;
  const rest = order.slice(1);
  const split =
    offset === 0 &&
    after.length === order.length &&
    first.nullable !== false &&
    rest.every((t) => t.nullable === false && t.descending === first.descending) &&
    !after.slice(1).some(isNull);
  const incl = inclusive ? '=' : '';
  if (!split) return [{ kind: `${after.length}${incl}`, values: after, where: (v) => keysetPredicate(order, v, inclusive) }];
  const col = columnRef(first.field);
  const op = `${first.descending ? '<' : '>'}${incl}`;
  if (!isNull(after[0])) {
    const range: SeekPiece = { kind: `r${incl}`, values: after, where: (v) => rowCompare(order, op, v) };
    if (first.nullsFirst) return [range];
    return [range, { kind: 'n', values: NO_VALUES, where: () => sql<SqlBool>`${col} is null` }];
  }
  const pieces: SeekPiece[] = [];
  if (rest.length > 0) {
    pieces.push({ kind: `nr${incl}`, values: after.slice(1), where: (v) => sql<SqlBool>`${col} is null and ${rowCompare(rest, op, v)}` });
  } else if (inclusive) {
    pieces.push({ kind: 'n', values: NO_VALUES, where: () => sql<SqlBool>`${col} is null` });
  }
  if (first.nullsFirst) pieces.push({ kind: 'nn', values: NO_VALUES, where: () => sql<SqlBool>`${col} is not null` });
  return pieces;
}

/** `(c1, c2, …) op (v1, v2, …)`, its fragments and column list built once per shape. */
function rowCompare(terms: readonly OrderTerm[], op: string, values: readonly unknown[]): Expression<SqlBool> {
  const shape = remember(rowComparisonCache, `${terms.map((t) => t.field).join('\u0000')}\u0001${op}`, () => rowComparison(terms, op));
  return sql<SqlBool>(shape.fragments, shape.columns, ...values);
}

/** The name a row carries the exact text of ordering term `i` under. */
function exactKey(i: number): string {
  return `${EXACT_POSITION_PREFIX}${i}`;
}

/** Whether any ordering column is read as text (all but the unique ones, whose integers or strings are exact). */
function needsExact(order: readonly OrderTerm[]): boolean {
  return order.some((t) => t.unique !== true);
}

/** The listing with each ordering column (but the unique ones) also selected as text (`"created"::text`). */
function withExactColumns<T>(listing: AnyQuery<T>, order: readonly OrderTerm[]): AnyQuery<T> {
  const columns = [];
  for (let i = 0; i < order.length; i++) if (order[i]!.unique !== true) columns.push(sql`${columnRef(order[i]!.field)}::text`.as(exactKey(i)));
  return listing.select(columns) as AnyQuery<T>;
}

/**
 * The row without its exact-text columns, which go under `EXACT` by field
 * for `positionValue`. The app's own PostgreSQL executor has already put
 * them there by column name (src/db/pg-query.ts); a row node-postgres built
 * holds them among its keys, and they are removed newest first (they were
 * selected last), which V8 undoes without turning the row into a dictionary.
 */
function takeExact<T>(row: T, order: readonly OrderTerm[]): T {
  const source = row as Record<string | symbol, unknown>;
  const carried = source[EXACT] as Record<string, unknown> | undefined;
  const exact: Record<string, unknown> = {};
  for (let i = order.length - 1; i >= 0; i--) {
    const term = order[i]!;
    if (term.unique === true) continue;
    const key = exactKey(i);
    if (carried !== undefined) {
      exact[term.field] = carried[key];
    } else {
      exact[term.field] = source[key];
      delete source[key];
    }
  }
  source[EXACT] = exact;
  return row;
}

/**
 * Whether a listing's ordering columns come back from PostgreSQL as the very
 * text `column::text` gives (`text`, `varchar`, `numeric`, `bigint`, `uuid`
 * … with node-postgres' own parsers): then the extra text columns are dropped
 * from its cursor pages and the cursor records the row's value. `plain` is
 * learnt from the first rows read with both: `true` once every non-NULL
 * value of each such column was a string equal to its text (and each column
 * had one), `false` for good at the first that was not (a `timestamptz`
 * parsed into a `Date`, a `char(n)` whose text drops its padding, a parser
 * of the app's own), `undefined` while no row has told.
 */
interface PlainPositions {
  plain: boolean | undefined;
}
const plainByExecutor = new WeakMap<QueryExecutor, Map<string, Map<string, PlainPositions>>>();

/** What is known of an ordering (`orderKey`) over the listing `listingSql` on `executor` (kept per executor: two databases may type a column differently). */
function plainPositions(executor: QueryExecutor, listingSql: string, ordering: string): PlainPositions {
  let byListing = plainByExecutor.get(executor);
  if (byListing === undefined) plainByExecutor.set(executor, (byListing = new Map()));
  const byOrdering = remember(byListing, listingSql, () => new Map<string, PlainPositions>());
  return remember(byOrdering, ordering, () => ({ plain: undefined }));
}

/** Reads `rows` (taken with their exact text, see `takeExact`) for what they show of `known`. */
function learnPlain(known: PlainPositions, rows: readonly unknown[], order: readonly OrderTerm[]): void {
  let untold = 0;
  for (const term of order) {
    if (term.unique === true) continue;
    let seen = false;
    for (const row of rows) {
      const text = positionValue(row, term.field);
      const value = valueOf(row, term.field);
      if (text === null && value === null) continue;
      if (typeof value !== 'string' || value !== text) {
        known.plain = false;
        return;
      }
      seen = true;
    }
    if (!seen) untold++;
  }
  if (untold === 0) known.plain = true;
}

/** Whether each non-unique ordering column of `rows` (read without text columns) is still a string or NULL. */
function stillPlain(rows: readonly unknown[], order: readonly OrderTerm[]): boolean {
  for (const term of order) {
    if (term.unique === true) continue;
    for (const row of rows) {
      const value = valueOf(row, term.field);
      if (value !== null && typeof value !== 'string') return false;
    }
  }
  return true;
}

const postgresByExecutor = new WeakMap<QueryExecutor, boolean>();

/** Whether `executor` (which compiled `qb`) speaks PostgreSQL, learnt once per executor. */
function executorIsPostgres(executor: QueryExecutor, qb: AnyQuery<unknown>): boolean {
  let pg = postgresByExecutor.get(executor);
  if (pg === undefined) postgresByExecutor.set(executor, (pg = isPostgres(qb)));
  return pg;
}

/** Kysely compiles LIMIT as a parameter: `$n` on PostgreSQL, `?` on SQLite. */
function isPostgres(qb: AnyQuery<unknown>): boolean {
  return /limit \$\d+$/i.test(qb.limit(1).compile().sql);
}

/**
 * `row > after` (`row >= after` when `inclusive`) in `order`, as SQL, NULLs
 * included explicitly: `(c1 after p1) OR (c1 = p1 AND c2 after p2) OR …`
 * (`… OR (c1 = p1 AND … AND cn = pn)` when inclusive), where "after" for a
 * column sorted NULLS LAST also admits `c IS NULL`, and equality with a NULL
 * position is `c IS NULL`.
 */
export function keysetPredicate(order: readonly OrderTerm[], after: readonly unknown[], inclusive = false): Expression<SqlBool> {
  const terms = order.slice(0, after.length);
  if (terms.every((t) => t.nullable === false) && !after.some(isNull)) {
    // NOT NULL columns in one direction: a row-value comparison, which SQLite
    // and PostgreSQL answer with an index range scan.
    if (terms.every((t) => t.descending === terms[0]!.descending)) {
      const op = `${terms[0]!.descending ? '<' : '>'}${inclusive ? '=' : ''}`;
      const shape = remember(rowComparisonCache, `${terms.map((t) => t.field).join('\u0000')}\u0001${op}`, () => rowComparison(terms, op));
      // `(cols) op ($1, $2, …)`: the columns and fragments are built once per shape, the values bound here.
      return sql<SqlBool>(shape.fragments, shape.columns, ...after);
    }
  }
  const branches = [];
  for (let i = 0; i < after.length; i++) {
    const parts = [];
    for (let j = 0; j < i; j++) parts.push(equals(order[j]!, after[j]));
    const beyond = strictlyAfter(order[i]!, after[i]);
    if (beyond === null) continue;
    parts.push(beyond);
    branches.push(sql`(${sql.join(parts, sql` and `)})`);
  }
  if (inclusive) branches.push(sql`(${sql.join(terms.map((t, j) => equals(t, after[j])), sql` and `)})`);
  if (branches.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

function equals(term: OrderTerm, value: unknown) {
  return isNull(value) ? sql`${columnRef(term.field)} is null` : sql`${columnRef(term.field)} = ${value}`;
}

function strictlyAfter(term: OrderTerm, value: unknown) {
  const col = columnRef(term.field);
  if (isNull(value)) return term.nullsFirst ? sql`${col} is not null` : null;
  const cmp = term.descending ? sql`${col} < ${value}` : sql`${col} > ${value}`;
  return term.nullsFirst || term.nullable === false ? cmp : sql`(${cmp} or ${col} is null)`;
}
