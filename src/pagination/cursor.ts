import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { ImproperlyConfigured, NotFound } from '../exceptions.js';
import { Response } from '../response.js';
import { withParam as replaceQueryParam } from './links.js';
import { BasePagination, warnOnce, type AppContext, type OpenAPIParameter, type Source } from './base.js';
import { cursorKey, signCursor, verifyCursor } from './cursor-signing.js';
import { positiveInt, PythonValueError, toSafeNumber } from './python-int.js';
import { pageSource, positionValue, reverseTerms, rowKey, type OrderTerm, type PageSource } from './source.js';
import { isOrderingBackend, isQuery, type OrderingBackend } from '../filters/base.js';
import { OrderingFilter, qualifyKey, type OrderingView } from '../filters/ordering.js';
import { GenericAPIView } from '../views/generics.js';
import { thenOf } from '../utils/thenable.js';

export type { OrderingView };

/**
 * A decoded cursor: DRF's `Cursor(offset, reverse, position)`. It names a
 * place in the listing — a cut by `position` values, moved `offset` items in
 * the reading direction (negative: back) — and which way the page reads from
 * there. `position` holds one value per compared column, or `null` for the
 * start (or, with `before`, the end) of the listing.
 */
export interface Cursor {
  readonly offset: number;
  readonly reverse: boolean;
  readonly position: readonly unknown[] | null;
  /** The cut lies before the items equal to `position` (else after them). Default: `reverse`, as DRF. */
  readonly before?: boolean;
}

interface CursorState {
  readonly cursor: Cursor | null;
  readonly terms: readonly OrderTerm[];
  readonly keyset: boolean;
  readonly pageSize: number;
  readonly page: readonly unknown[];
  readonly next: Cursor | null;
  readonly previous: Cursor | null;
  readonly baseUrl: string;
  readonly binding: string;
}

/** What `paginate` worked out before reading its rows, for `pageOf`. */
interface PageRead<T> {
  readonly src: PageSource<T>;
  readonly terms: readonly OrderTerm[];
  readonly keyset: boolean;
  readonly binding: string;
  readonly cursor: Cursor | null;
  readonly current: Cursor;
  readonly pageSize: number;
  readonly baseUrl: string;
}

/**
 * A place between two items of the listing, in listing order: the cut
 * (after the items whose values are `position`, or before them when
 * `before`; `null` is the start, or with `before` the end) moved `shift`
 * items further down the listing (negative: up).
 */
interface Gap {
  readonly position: readonly unknown[] | null;
  readonly before: boolean;
  readonly shift: number;
}

/**
 * The cursor style: an opaque, signed cursor that only moves forward or
 * backward, so a client never sees an item twice even while rows are
 * inserted, and a deep page costs what the first page costs.
 *
 * ```http
 * GET /accounts/?cursor=eyJwIjpbIjIwMjQtMDEtMDEiLDQyXX0.6Sx… HTTP/1.1
 * ```
 *
 * Answers `{next, previous, results}`; a cursor that does not verify is
 * `404 {"detail": "Invalid cursor"}`. An ordering that ends in a unique
 * column (`uniqueOrderingFields`) pages by full keyset; any other ordering
 * uses DRF's position + offset scheme on its first column.
 *
 * @example
 * class BookCursor extends CursorPagination<Book> {
 *   override ordering = ['-created', '-id'];
 *   override pageSize = 20;
 * }
 */
/** Orderings whose terms a pagination keeps (`parseOrdering`). */
const MAX_KEPT_ORDERINGS = 100;
/** The binding text of kept (frozen) terms. */
const orderingTexts = new WeakMap<readonly OrderTerm[], string>();

export class CursorPagination<T = unknown> extends BasePagination<T, CursorState> {
  cursorQueryParam = 'cursor';
  cursorQueryDescription = 'The pagination cursor value.';
  pageSize: number | null;
  invalidCursorMessage = 'Invalid cursor';
  /** Set once, unchanging, unique or nearly, not null, not a float, indexed. */
  ordering: string | readonly string[] = '-created';
  override template: string | null = 'rest_framework/pagination/previous_and_next.html';
  pageSizeQueryParam: string | null = null;
  pageSizeQueryDescription = 'Number of results to return per page.';
  maxPageSize: number | null = null;
  /** Largest offset a (non-keyset) cursor may carry, as DRF. */
  offsetCutoff = 1000;
  /** Columns whose values are unique: an ordering ending in one pages by full keyset, without offsets. */
  uniqueOrderingFields: readonly string[] = ['id', 'pk'];
  /**
   * Where NULLs sort. `'default'`: last ascending, first descending
   * (PostgreSQL's and Django's placement, on every database); `'first'` /
   * `'last'`: first / last whatever the direction. Either way no row with a
   * NULL is lost, and a page is still read from a plain index. `null`
   * declares the ordering columns NOT NULL (DRF's rule): no NULL branch is
   * read, and a NULL met is logged once. Columns in `uniqueOrderingFields`
   * (the tie-breaker) are taken to be NOT NULL.
   */
  nulls: 'default' | 'first' | 'last' | null = 'default';
  /** The query parameter of a client-chosen ordering (views with `orderingFields` but no ordering filter backend). */
  orderingParam: string;
  /** The unique column appended to client-chosen orderings (default: see `getTieBreaker`); list it in `uniqueOrderingFields` too. */
  tieBreaker: string | null = null;
  private _implicitOrdering: OrderingFilter | null = null;
  private readonly _terms = new Map<string, { nulls: CursorPagination['nulls']; unique: readonly string[]; terms: readonly OrderTerm[] }>();

  constructor(app: AppContext) {
    super(app);
    this.pageSize = app.settings.PAGE_SIZE;
    this.orderingParam = app.settings.ORDERING_PARAM;
  }

  override checkConfiguration(): void {
    if (!this.pageSize) {
      warnOnce(this.app, `page-size:${this.constructor.name}`,
        `${this.constructor.name} is set but has no page size: set PAGE_SIZE or pageSize, or list responses are not paginated.`);
    }
    this.parseOrdering(this.ordering);
  }

  getPageSize(req: ApiRequest): number | null {
    if (this.pageSizeQueryParam) {
      const raw = req.query[this.pageSizeQueryParam];
      if (raw !== undefined) {
        try {
          return toSafeNumber(positiveInt(raw, true, this.maxPageSize));
        } catch (err) {
          if (!(err instanceof PythonValueError)) throw err;
        }
      }
    }
    return this.pageSize;
  }

  /**
   * The ordering in force (DRF's `get_ordering`): the view's ordering filter
   * decides (the client's `?ordering=` among `orderingFields`, else the
   * view's `ordering`), else this class's `ordering`. An ordering that does
   * not contain a unique column gets the tie-breaker (`getTieBreaker`)
   * appended in the direction of its last term, so the cursor is unique and
   * pages by keyset; names after a unique column are dropped. With no
   * `uniqueOrderingFields` (DRF's value-only positions) or a view whose
   * `primaryKey` is `null`, the ordering is used as given.
   */
  getOrdering(req: ApiRequest, view: APIView | null, source: Source<T> | null = null): readonly string[] {
    const backend = this.orderingBackend(view);
    // With joins a bare `id` is ambiguous: it is qualified by the builder's FROM table.
    const qualify = (column: string) => (source !== null && isQuery(source) ? qualifyKey(column, source) : column);
    if (backend && view) {
      const chosen = backend.getOrdering(req, view, source as Source<unknown> | null);
      if (chosen && chosen.length > 0) {
        const terms = chosen.map((t) => (t.startsWith('-') ? `-${backend.columnFor(t.slice(1), view)}` : backend.columnFor(t, view)));
        return this.endInUnique(terms, view, (bare) => qualify(backend.columnFor(bare, view)));
      }
    }
    const own = typeof this.ordering === 'string' ? [this.ordering] : this.ordering;
    return this.endInUnique(own, view, qualify);
  }

  /** `terms` up to their first unique column, or with the tie-breaker appended. */
  protected endInUnique(terms: readonly string[], view: APIView | null, columnFor: (name: string) => string): readonly string[] {
    if (this.uniqueOrderingFields.length === 0 && this.tieBreaker === null) return terms;
    const tie = this.getTieBreaker(view);
    if (tie === null) return terms;
    const bare = tie.startsWith('-') ? tie.slice(1) : tie;
    // A bare tie-breaker (`id`) goes through the filter's names, so `{ id: 'b.id' }` qualifies it.
    const tieField = bare.includes('.') ? bare : columnFor(bare);
    const fieldOf = (t: string) => (t.startsWith('-') ? t.slice(1) : t);
    // Nothing after a unique column changes the order: stop there.
    const unique = terms.findIndex((t) => fieldOf(t) === tieField || this.isUnique(fieldOf(t)));
    if (unique !== -1) return terms.slice(0, unique + 1);
    if (terms.length === 0) return terms;
    const last = terms[terms.length - 1]!;
    return [...terms, `${last.startsWith('-') ? '-' : ''}${tieField}`];
  }

  /** Whether a column (`id`, `b.id`) is one of `uniqueOrderingFields`: unique and NOT NULL. */
  protected isUnique(field: string): boolean {
    return this.uniqueOrderingFields.includes(rowKey(field));
  }

  /**
   * The unique column appended to an ordering: `tieBreaker`, else the view's
   * `primaryKey` (`null` there: none), else the last column of `ordering`
   * when unique, else the first of `uniqueOrderingFields`.
   */
  getTieBreaker(view: APIView | null = null): string | null {
    if (this.tieBreaker) return this.tieBreaker;
    const key = view ? (view as OrderingView).primaryKey : undefined;
    if (key === null) return null;
    if (key !== undefined && this.isUnique(key)) return key;
    const list = typeof this.ordering === 'string' ? [this.ordering] : this.ordering;
    const last = list[list.length - 1];
    const field = last?.startsWith('-') ? last.slice(1) : last;
    if (field && this.isUnique(field)) return field;
    return this.uniqueOrderingFields[0] ?? 'id';
  }

  /** The view's first filter backend that orders (DRF), or an `OrderingFilter` for a view that only sets `orderingFields`. */
  protected orderingBackend(view: APIView | null): OrderingBackend | null {
    if (!view) return null;
    if (view instanceof GenericAPIView) {
      const found = view.filterBackendInstances.find(isOrderingBackend);
      if (found) return found;
    }
    if ((view as OrderingView).orderingFields === undefined) return null;
    this._implicitOrdering ??= Object.assign(new OrderingFilter(this.app), { orderingParam: this.orderingParam });
    return this._implicitOrdering;
  }

  /**
   * The terms of an ordering. They depend only on the names, `nulls` and
   * `uniqueOrderingFields`, so they are kept per ordering (frozen: every
   * request of the ordering shares them) instead of parsed per request.
   */
  protected parseOrdering(ordering: string | readonly string[]): OrderTerm[] {
    const list = typeof ordering === 'string' ? [ordering] : ordering;
    const key = list.length === 1 ? list[0]! : list.join('\u0000');
    const kept = this._terms.get(key);
    if (kept !== undefined && kept.nulls === this.nulls && kept.unique === this.uniqueOrderingFields) return kept.terms as OrderTerm[];
    const terms = Object.freeze(this.readOrdering(list).map((t) => Object.freeze(t)));
    if (this._terms.size >= MAX_KEPT_ORDERINGS) this._terms.clear();
    this._terms.set(key, { nulls: this.nulls, unique: this.uniqueOrderingFields, terms });
    return terms as OrderTerm[];
  }

  private readOrdering(list: readonly string[]): OrderTerm[] {
    if (list.length === 0) throw new ImproperlyConfigured(`${this.constructor.name}.ordering must name at least one column.`);
    return list.map((term) => {
      const descending = term.startsWith('-');
      const field = descending ? term.slice(1) : term;
      if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(field)) {
        throw new ImproperlyConfigured(`Invalid cursor ordering term "${term}": use "column", "-column" or "table.column".`);
      }
      const nullsFirst = this.nulls === 'first' || (this.nulls !== 'last' && descending);
      const unique = this.isUnique(field);
      return { field, descending, nullsFirst, nullable: this.nulls !== null && !unique, unique };
    });
  }

  /** The page's items; without a promise when its rows are read at once (SQLite, reading forwards). */
  paginate(source: Source<T>, req: ApiRequest, view: APIView | null): T[] | null | Promise<T[] | null> {
    const pageSize = this.getPageSize(req);
    if (!pageSize) return null;
    const baseUrl = req.buildAbsoluteUri();
    const terms = this.parseOrdering(this.getOrdering(req, view, source));
    const keyset = this.isUnique(terms[terms.length - 1]!.field);
    const binding = this.binding(req, terms);
    const cursor = this.decodeCursor(req, binding, keyset ? terms.length : 1);
    const current = cursor ?? { offset: 0, reverse: false, position: null };
    const src = pageSource(source);
    const rows = this.read(src, terms, current, pageSize + 1);
    const read: PageRead<T> = { src, terms, keyset, binding, cursor, current, pageSize, baseUrl };
    return thenOf(rows, (r) => this.pageOf(req, read, r));
  }

  /** The page of `rows` (read one past it), its links' places kept for the response. */
  private pageOf(req: ApiRequest, read: PageRead<T>, rows: T[]): T[] | Promise<T[]> {
    const { src, terms, keyset, current, pageSize } = read;
    const page = rows.slice(0, pageSize);
    if (current.reverse) page.reverse();
    const gap = gapOf(current);
    const pos = (item: unknown) => this.positionOf(item, terms, keyset);
    // The link back reads the other way from this very place, so a change of
    // direction never skips or repeats an item.
    const before = current.before ?? current.reverse;
    const atStart = current.position === null && before === current.reverse && current.offset <= 0;
    let back: Cursor | null = atStart ? null : cursorOf(gap, !current.reverse);
    if (back && keyset && page.length > 0) {
      // Unique positions: the page's own edge names the same place, as DRF writes it.
      back = current.reverse
        ? { position: pos(page[page.length - 1]), before: false, reverse: false, offset: 0 }
        : { position: pos(page[0]), before: true, reverse: true, offset: 0 };
    }
    const done = (onward: Cursor | null): T[] => {
      this.setState(req, {
        cursor: read.cursor, terms, keyset, pageSize, page, baseUrl: read.baseUrl, binding: read.binding,
        next: current.reverse ? back : onward,
        previous: current.reverse ? onward : back,
      });
      return page;
    };
    if (rows.length <= pageSize) return done(null);
    const beyond = rows[pageSize];
    if (!current.reverse) return done(cursorOf(this.gapAfter(gap, page, beyond, pos), false));
    return this.gapBefore(src, terms, keyset ? terms.length : 1, gap, page, beyond, pos).then((place) => done(cursorOf(place, true)));
  }

  /**
   * Up to `limit` items from the cursor's place, in its reading order. A
   * negative offset starts behind the cut: those items are read towards the
   * cut, then the rest past it. Without a promise where the source reads at
   * once.
   */
  protected read(src: PageSource<T>, terms: readonly OrderTerm[], c: Cursor, limit: number): T[] | Promise<T[]> {
    const order = c.reverse ? reverseTerms(terms) : terms;
    const opposite = c.reverse ? terms : reverseTerms(terms);
    const before = c.before ?? c.reverse;
    const inclusive = before !== c.reverse;
    const seek = (o: readonly OrderTerm[], after: readonly unknown[] | null, offset: number, n: number, reversed: boolean, incl?: boolean): T[] | Promise<T[]> =>
      src.seekNow ? src.seekNow(o, after, offset, n, reversed, incl) : src.seek(o, after, offset, n, reversed, incl);
    // A null position is the start of the reading (or, with `inclusive`, its end).
    const past = (offset: number, n: number): T[] | Promise<T[]> =>
      c.position === null
        ? inclusive ? [] : seek(order, null, offset, n, c.reverse)
        : seek(order, c.position, offset, n, c.reverse, inclusive);
    const behind = (offset: number, n: number): T[] | Promise<T[]> =>
      c.position === null
        ? inclusive ? seek(opposite, null, offset, n, !c.reverse) : []
        : seek(opposite, c.position, offset, n, !c.reverse, !inclusive);
    if (c.offset >= 0) return past(c.offset, limit);
    const back = -c.offset;
    if (back >= limit) return thenOf(behind(back - limit, limit), (rows) => rows.reverse());
    return thenOf(behind(0, back), (rows) => {
      const first = rows.reverse();
      return thenOf(past(0, limit - first.length), (rest) => first.concat(rest));
    });
  }

  /**
   * The place after a page read forwards (`beyond` follows it), anchored on
   * the nearest cut: after the last item's values when the next item differs,
   * else so many items into the run of equal values. Offsets count from the
   * start of a run, so rows added at the end of the run never move it.
   */
  protected gapAfter(gap: Gap, page: readonly unknown[], beyond: unknown, pos: (item: unknown) => unknown[]): Gap {
    const n = page.length;
    const last = pos(page[n - 1]);
    if (!samePlace(pos(beyond), last)) return { position: last, before: false, shift: 0 };
    let run = 0;
    while (run < n && samePlace(pos(page[n - 1 - run]), last)) run++;
    if (run < n) return { position: last, before: true, shift: run };
    // The whole page is one run: it started at the page's place or before it.
    if (gap.position !== null && gap.before && samePlace(gap.position, last) && gap.shift >= 0) return { position: last, before: true, shift: gap.shift + n };
    if (gap.shift === 0 && !(gap.position === null && gap.before)) return { position: last, before: true, shift: n };
    return { ...gap, shift: gap.shift + n };
  }

  /**
   * The place before a page read backwards (`beyond` precedes it). When the
   * item before the page ties with the first, the offset into their run is
   * counted from the run's start (one `count(*)` of the run when the run ends
   * inside this page), as `gapAfter` counts it.
   */
  protected async gapBefore(src: PageSource<T>, terms: readonly OrderTerm[], width: number, gap: Gap, page: readonly unknown[], beyond: unknown, pos: (item: unknown) => unknown[]): Promise<Gap> {
    const n = page.length;
    const first = pos(page[0]);
    if (!samePlace(pos(beyond), first)) return { position: first, before: true, shift: 0 };
    let run = 0;
    while (run < n && samePlace(pos(page[run]), first)) run++;
    if (run === n && gap.position !== null && gap.before && samePlace(gap.position, first) && gap.shift >= n) return { position: first, before: true, shift: gap.shift - n };
    if (run < n || (gap.shift === 0 && !(gap.position === null && !gap.before))) {
      // The run ends inside this page (or where it ends): count the rest of it.
      const total = await src.countEqual(terms.slice(0, width), first);
      return { position: first, before: true, shift: Math.max(0, total - run) };
    }
    return { ...gap, shift: gap.shift - n };
  }

  /** The values a cursor records for an item: every column (keyset) or the first (DRF). */
  protected positionOf(item: unknown, terms: readonly OrderTerm[], keyset: boolean): unknown[] {
    return (keyset ? terms : terms.slice(0, 1)).map((t) => {
      const value = normalize(positionValue(item, t.field));
      if ((value === null || value === undefined) && t.nullable === false) {
        warnOnce(this.app, `null-ordering:${this.constructor.name}:${t.field}`,
          `${this.constructor.name}: ordering column "${t.field}" holds NULL; set nulls = 'first' or 'last' so no row is skipped.`);
      }
      return value;
    });
  }

  /**
   * What a cursor is signed for: the path and the ordering as read. The
   * leading `2` is the position format (exact database values); cursors
   * signed before it (whose timestamps held milliseconds) are `Invalid cursor`.
   */
  protected binding(req: ApiRequest, terms: readonly OrderTerm[]): string {
    let ordering = orderingTexts.get(terms);
    if (ordering === undefined) {
      ordering = terms.map((t) => `${t.descending ? '-' : ''}${t.field}${t.nullable === false ? '' : t.nullsFirst ? ':nf' : ':nl'}`).join(',');
      // Kept only for the frozen terms `parseOrdering` shares; other arrays may change.
      if (Object.isFrozen(terms) && terms.every((t) => Object.isFrozen(t))) orderingTexts.set(terms, ordering);
    }
    return `2|${req.path}|${ordering}`;
  }

  /** The request's cursor, or `null` when none was sent; anything that does not verify is a 404. */
  decodeCursor(req: ApiRequest, binding: string, width: number): Cursor | null {
    const token = req.query[this.cursorQueryParam];
    if (token === undefined || token === '') return null;
    const payload = verifyCursor(cursorKey(this.app), binding, token) as { o?: unknown; r?: unknown; p?: unknown; b?: unknown } | undefined;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new NotFound(this.invalidCursorMessage);
    const { o = 0, r = 0, p = null, b } = payload;
    if (!Number.isSafeInteger(o) || (r !== 0 && r !== 1) || (b !== undefined && b !== 0 && b !== 1)) throw new NotFound(this.invalidCursorMessage);
    if (p !== null && (!Array.isArray(p) || p.length !== width)) throw new NotFound(this.invalidCursorMessage);
    let position: unknown[] | null = null;
    if (p !== null) {
      position = [];
      for (const v of p as unknown[]) {
        const decoded = decodeValue(v);
        if (decoded === INVALID) throw new NotFound(this.invalidCursorMessage);
        position.push(decoded);
      }
    }
    const offset = Math.max(-this.offsetCutoff, Math.min(o as number, this.offsetCutoff));
    return { offset, reverse: r === 1, position, before: b === undefined ? r === 1 : b === 1 };
  }

  encodeCursor(s: CursorState, cursor: Cursor): string {
    const payload: Record<string, unknown> = {};
    if (cursor.offset !== 0) payload['o'] = cursor.offset;
    if (cursor.reverse) payload['r'] = 1;
    if (cursor.position !== null) payload['p'] = cursor.position.map(encodeValue);
    const before = cursor.before ?? cursor.reverse;
    if (before !== cursor.reverse) payload['b'] = before ? 1 : 0;
    return replaceQueryParam(s.baseUrl, this.cursorQueryParam, signCursor(cursorKey(this.app), s.binding, payload));
  }

  getNextLink(req: ApiRequest): string | null {
    const s = this.state(req);
    return s.next === null ? null : this.encodeCursor(s, s.next);
  }

  getPreviousLink(req: ApiRequest): string | null {
    const s = this.state(req);
    return s.previous === null ? null : this.encodeCursor(s, s.previous);
  }

  paginatedResponse(data: unknown[], req: ApiRequest): Response {
    return new Response({ next: this.getNextLink(req), previous: this.getPreviousLink(req), results: data });
  }

  paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const c = this.cursorQueryParam;
    return {
      type: 'object',
      required: ['results'],
      properties: {
        next: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${c}=cD00ODY%3D"` },
        previous: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${c}=cj0xJnA9NDg3` },
        results: schema,
      },
    };
  }

  schemaParameters(_view: APIView | null): OpenAPIParameter[] {
    const params: OpenAPIParameter[] = [
      { name: this.cursorQueryParam, required: false, in: 'query', description: this.cursorQueryDescription, schema: { type: 'string' } },
    ];
    if (this.pageSizeQueryParam !== null) {
      params.push({ name: this.pageSizeQueryParam, required: false, in: 'query', description: this.pageSizeQueryDescription, schema: { type: 'integer' } });
    }
    return params;
  }

  /** Previous/next controls, when there is more than one page. */
  override htmlContext(req: ApiRequest): Record<string, unknown> | null {
    const s = this.state(req);
    if (this.template === null || (s.next === null && s.previous === null)) return null;
    return { previous_url: this.getPreviousLink(req), next_url: this.getNextLink(req) };
  }
}

// ------------------------------------------------- position values in cursors

const INVALID = Symbol('invalid');

/** Values a cursor can carry: JSON scalars, and dates/bigints tagged so they come back typed. */
function normalize(v: unknown): unknown {
  if (v === undefined) return null;
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v instanceof Date) return v;
  return String(v);
}

function encodeValue(v: unknown): unknown {
  if (v instanceof Date) return { d: v.toISOString() };
  if (typeof v === 'bigint') return { n: v.toString() };
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

function decodeValue(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o['d'] === 'string' && Object.keys(o).length === 1) {
      const d = new Date(o['d']);
      return Number.isNaN(d.getTime()) ? INVALID : d;
    }
    if (typeof o['n'] === 'string' && /^-?\d+$/.test(o['n']) && Object.keys(o).length === 1) return BigInt(o['n']);
  }
  return INVALID;
}

/** The place a cursor names, in listing order. */
function gapOf(c: Cursor): Gap {
  return { position: c.position, before: c.before ?? c.reverse, shift: c.reverse ? -c.offset : c.offset };
}

/** A cursor reading from `gap` forwards or (`reverse`) backwards. */
function cursorOf(gap: Gap, reverse: boolean): Cursor {
  return { position: gap.position, before: gap.before, reverse, offset: reverse ? -gap.shift : gap.shift };
}

/** Positions compare as DRF compares `str(value)`: by their encoded form. */
/** Whether two positions are the same place: their values equal as the cursor would encode them. */
function samePlace(a: readonly unknown[] | null, b: readonly unknown[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  // A missing column encodes as null, as JSON writes it.
  if ((a ?? null) === (b ?? null)) return true;
  const x = encodeValue(a ?? null);
  const y = encodeValue(b ?? null);
  if (x === y) return true;
  return x !== null && y !== null && typeof x === 'object' && typeof y === 'object' && JSON.stringify(x) === JSON.stringify(y);
}
