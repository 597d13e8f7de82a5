import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { ImproperlyConfigured, NotFound } from '../exceptions.js';
import { Response } from '../response.js';
import { replaceQueryParam } from '../utils/urls.js';
import { BasePagination, warnOnce, type AppContext, type OpenAPIParameter, type Source } from './base.js';
import { cursorKey, signCursor, verifyCursor } from './cursor-signing.js';
import { positiveInt, PythonValueError, toSafeNumber } from './python-int.js';
import { pageSource, reverseTerms, valueOf, type OrderTerm } from './source.js';

/** A decoded cursor: DRF's `Cursor(offset, reverse, position)`; `position` holds one value per compared column. */
export interface Cursor {
  readonly offset: number;
  readonly reverse: boolean;
  readonly position: readonly unknown[] | null;
}

/** A view that lets clients choose the ordering (DRF's `OrderingFilter` with `ordering_fields`). */
export interface OrderingView {
  /** Columns a client may order by with `?ordering=`; unknown names are ignored. */
  orderingFields?: readonly string[];
  /** The view's default ordering when the client sends none. */
  ordering?: string | readonly string[];
}

interface CursorState {
  readonly cursor: Cursor | null;
  readonly terms: readonly OrderTerm[];
  readonly keyset: boolean;
  readonly pageSize: number;
  readonly page: readonly unknown[];
  readonly hasNext: boolean;
  readonly hasPrevious: boolean;
  readonly nextPosition: readonly unknown[] | null;
  readonly previousPosition: readonly unknown[] | null;
  readonly baseUrl: string;
  readonly binding: string;
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
   * `null` (the default): the ordering columns are NOT NULL, as DRF requires,
   * and pages are read with index-friendly SQL. `'first'` / `'last'`: a
   * column may hold NULL, and NULL rows come first / last, none lost.
   */
  nulls: 'first' | 'last' | null = null;
  /** The query parameter of a client-chosen ordering (views with `orderingFields`). */
  orderingParam: string;

  constructor(app: AppContext) {
    super(app);
    this.pageSize = app.settings.PAGE_SIZE;
    this.orderingParam = app.settings.ORDERING_PARAM;
  }

  protected override checkConfiguration(): void {
    if (!this.pageSize) {
      warnOnce(this.app, `page-size:${this.constructor.name}`,
        `${this.constructor.name} is set but has no page size: set PAGE_SIZE or pageSize, or list responses are not paginated.`);
    }
    this.parseOrdering(this.ordering);
    cursorKey(this.app);
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

  /** The ordering in force: the client's (filtered by `orderingFields`) or the default. */
  getOrdering(req: ApiRequest, view: APIView | null): readonly string[] {
    const v = view as OrderingView | null;
    if (v && Array.isArray(v.orderingFields)) {
      const allowed = new Set(v.orderingFields);
      const raw = req.query[this.orderingParam];
      if (raw) {
        const chosen = raw.split(',').map((t) => t.trim()).filter((t) => allowed.has(t.startsWith('-') ? t.slice(1) : t));
        if (chosen.length > 0) return chosen;
      }
      if (v.ordering !== undefined) return typeof v.ordering === 'string' ? [v.ordering] : v.ordering;
    }
    return typeof this.ordering === 'string' ? [this.ordering] : this.ordering;
  }

  protected parseOrdering(ordering: string | readonly string[]): OrderTerm[] {
    const list = typeof ordering === 'string' ? [ordering] : ordering;
    if (list.length === 0) throw new ImproperlyConfigured(`${this.constructor.name}.ordering must name at least one column.`);
    return list.map((term) => {
      const descending = term.startsWith('-');
      const field = descending ? term.slice(1) : term;
      if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(field)) {
        throw new ImproperlyConfigured(`Invalid cursor ordering term "${term}": use "column", "-column" or "table.column".`);
      }
      return { field, descending, nullsFirst: this.nulls === 'first', nullable: this.nulls !== null };
    });
  }

  async paginate(source: Source<T>, req: ApiRequest, view: APIView | null): Promise<T[] | null> {
    const pageSize = this.getPageSize(req);
    if (!pageSize) return null;
    const baseUrl = req.buildAbsoluteUri();
    const terms = this.parseOrdering(this.getOrdering(req, view));
    const last = terms[terms.length - 1]!.field;
    const keyset = this.uniqueOrderingFields.includes(last.slice(last.lastIndexOf('.') + 1));
    const binding = this.binding(req, terms);
    const cursor = this.decodeCursor(req, binding, keyset ? terms.length : 1);
    const { offset, reverse, position } = cursor ?? { offset: 0, reverse: false, position: null };

    const rows = await pageSource(source).seek(reverse ? reverseTerms(terms) : terms, position, offset, pageSize + 1, reverse);
    const page = rows.slice(0, pageSize);
    const following = rows.length > page.length ? this.positionOf(rows[rows.length - 1], terms, keyset) : null;
    const hasCurrent = position !== null || offset > 0;
    if (reverse) page.reverse();
    this.setState(req, {
      cursor, terms, keyset, pageSize, page, baseUrl, binding,
      hasNext: reverse ? hasCurrent : following !== null,
      hasPrevious: reverse ? following !== null : hasCurrent,
      nextPosition: reverse ? position : following,
      previousPosition: reverse ? following : position,
    });
    return page;
  }

  /** The values a cursor records for an item: every column (keyset) or the first (DRF). */
  protected positionOf(item: unknown, terms: readonly OrderTerm[], keyset: boolean): unknown[] {
    return (keyset ? terms : terms.slice(0, 1)).map((t) => {
      const value = normalize(valueOf(item, t.field));
      if ((value === null || value === undefined) && t.nullable === false) {
        warnOnce(this.app, `null-ordering:${this.constructor.name}:${t.field}`,
          `${this.constructor.name}: ordering column "${t.field}" holds NULL; set nulls = 'first' or 'last' so no row is skipped.`);
      }
      return value;
    });
  }

  protected binding(req: ApiRequest, terms: readonly OrderTerm[]): string {
    const ordering = terms.map((t) => `${t.descending ? '-' : ''}${t.field}${t.nullable === false ? '' : t.nullsFirst ? ':nf' : ':nl'}`).join(',');
    return `${req.path}|${ordering}`;
  }

  /** The request's cursor, or `null` when none was sent; anything that does not verify is a 404. */
  decodeCursor(req: ApiRequest, binding: string, width: number): Cursor | null {
    const token = req.query[this.cursorQueryParam];
    if (token === undefined || token === '') return null;
    const payload = verifyCursor(cursorKey(this.app), binding, token) as { o?: unknown; r?: unknown; p?: unknown } | undefined;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new NotFound(this.invalidCursorMessage);
    const { o = 0, r = 0, p = null } = payload;
    if (!Number.isSafeInteger(o) || (o as number) < 0 || (r !== 0 && r !== 1)) throw new NotFound(this.invalidCursorMessage);
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
    return { offset: Math.min(o as number, this.offsetCutoff), reverse: r === 1, position };
  }

  encodeCursor(s: CursorState, cursor: Cursor): string {
    const payload: Record<string, unknown> = {};
    if (cursor.offset !== 0) payload['o'] = cursor.offset;
    if (cursor.reverse) payload['r'] = 1;
    if (cursor.position !== null) payload['p'] = cursor.position.map(encodeValue);
    return replaceQueryParam(s.baseUrl, this.cursorQueryParam, signCursor(cursorKey(this.app), s.binding, payload));
  }

  getNextLink(req: ApiRequest): string | null {
    const s = this.state(req);
    if (!s.hasNext) return null;
    if (s.keyset) {
      const position = s.page.length > 0 ? this.positionOf(s.page[s.page.length - 1], s.terms, true) : s.nextPosition;
      return this.encodeCursor(s, { offset: 0, reverse: false, position });
    }
    // DRF's get_next_link, step for step.
    const pos = (item: unknown) => this.positionOf(item, s.terms, false);
    let compare = s.page.length > 0 && s.cursor?.reverse && s.cursor.offset ? key(pos(s.page[s.page.length - 1])) : key(s.nextPosition);
    let offset = 0;
    let position: readonly unknown[] | null = null;
    let unique = false;
    for (let i = s.page.length - 1; i >= 0; i--) {
      position = pos(s.page[i]);
      if (key(position) !== compare) {
        unique = true;
        break;
      }
      compare = key(position);
      offset += 1;
    }
    if (s.page.length > 0 && !unique) {
      if (!s.hasPrevious) {
        offset = s.page.length;
        position = null;
      } else if (s.cursor!.reverse) {
        offset = 0;
        position = s.previousPosition;
      } else {
        offset = s.cursor!.offset + s.pageSize;
        position = s.previousPosition;
      }
    }
    if (s.page.length === 0) position = s.nextPosition;
    return this.encodeCursor(s, { offset, reverse: false, position });
  }

  getPreviousLink(req: ApiRequest): string | null {
    const s = this.state(req);
    if (!s.hasPrevious) return null;
    if (s.keyset) {
      const position = s.page.length > 0 ? this.positionOf(s.page[0], s.terms, true) : s.previousPosition;
      return this.encodeCursor(s, { offset: 0, reverse: true, position });
    }
    // DRF's get_previous_link, step for step.
    const pos = (item: unknown) => this.positionOf(item, s.terms, false);
    let compare = s.page.length > 0 && s.cursor && !s.cursor.reverse && s.cursor.offset ? key(pos(s.page[0])) : key(s.previousPosition);
    let offset = 0;
    let position: readonly unknown[] | null = null;
    let unique = false;
    for (const item of s.page) {
      position = pos(item);
      if (key(position) !== compare) {
        unique = true;
        break;
      }
      compare = key(position);
      offset += 1;
    }
    if (s.page.length > 0 && !unique) {
      if (!s.hasNext) {
        // DRF uses page_size here, which skips items when the final page is short.
        offset = s.page.length;
        position = null;
      } else if (s.cursor!.reverse) {
        offset = s.cursor!.offset + s.pageSize;
        position = s.nextPosition;
      } else {
        offset = 0;
        position = s.nextPosition;
      }
    }
    if (s.page.length === 0) position = s.previousPosition;
    return this.encodeCursor(s, { offset, reverse: true, position });
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
    if (this.template === null || !(s.hasNext || s.hasPrevious)) return null;
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

/** Positions compare as DRF compares `str(value)`: by their encoded form. */
function key(position: readonly unknown[] | null): string {
  return position === null ? 'null' : JSON.stringify(position.map(encodeValue));
}
