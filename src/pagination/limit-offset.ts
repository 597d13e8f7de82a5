import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { Response } from '../response.js';
import { removeQueryParam, replaceQueryParam } from '../utils/urls.js';
import { BasePagination, warnOnce, type AppContext, type CountStrategy, type CountStrategyView, type OpenAPIParameter, type Source } from './base.js';
import { countWith, ESTIMATED_COUNT_THRESHOLD, sliceOf } from './count.js';
import { displayedPageNumbers, pageLinks } from './html.js';
import { positiveInt, PythonValueError, toSafeNumber } from './python-int.js';
import { pageSource, type CountAndSlice, type PageSource } from './source.js';
import { thenOf } from '../utils/thenable.js';

/** What `LimitOffsetPagination` keeps on `req.pagination`. Exact integers, as Python's. */
export interface LimitOffsetState {
  readonly limit: bigint;
  readonly offset: bigint;
  readonly count: number | null;
  readonly capped: boolean | undefined;
  /** Decided from the count when exact, else by fetching one extra row. */
  readonly hasNext: boolean;
  readonly url: string;
}

/**
 * A limit/offset based style, as for looking up database rows.
 *
 * ```http
 * GET /accounts/?limit=100 HTTP/1.1
 * GET /accounts/?offset=400&limit=100 HTTP/1.1
 * ```
 *
 * Answers `{count, next, previous, results}`. A bad `limit` falls back to
 * `defaultLimit`, a bad `offset` to 0 — never an error.
 *
 * @example
 * class CappedLimitOffset extends LimitOffsetPagination {
 *   override maxLimit = 100;
 * }
 */
export class LimitOffsetPagination<T = unknown> extends BasePagination<T, LimitOffsetState> {
  /** Used when the client sends no (valid) limit; `null` switches pagination off. */
  defaultLimit: number | null;
  limitQueryParam = 'limit';
  limitQueryDescription = 'Number of results to return per page.';
  offsetQueryParam = 'offset';
  offsetQueryDescription = 'The initial index from which to return the results.';
  /** Upper bound of a requested limit; `null` = no cap. */
  maxLimit: number | null = null;
  override template: string | null = 'rest_framework/pagination/numbers.html';
  countStrategy: CountStrategy = 'exact';
  estimatedCountThreshold = ESTIMATED_COUNT_THRESHOLD;

  constructor(app: AppContext) {
    super(app);
    this.defaultLimit = app.settings.PAGE_SIZE;
  }

  override checkConfiguration(): void {
    if (!this.defaultLimit) {
      warnOnce(this.app, `page-size:${this.constructor.name}`,
        `${this.constructor.name} is set but has no default limit: set PAGE_SIZE or defaultLimit, or responses are paginated only when the client sends "${this.limitQueryParam}".`);
    }
  }

  getLimit(req: ApiRequest): bigint | null {
    if (this.limitQueryParam) {
      const raw = req.query[this.limitQueryParam];
      if (raw !== undefined) {
        try {
          return positiveInt(raw, true, this.maxLimit);
        } catch (err) {
          if (!(err instanceof PythonValueError)) throw err;
        }
      }
    }
    return this.defaultLimit ? BigInt(this.defaultLimit) : null;
  }

  getOffset(req: ApiRequest): bigint {
    const raw = req.query[this.offsetQueryParam];
    if (raw === undefined) return 0n;
    try {
      return positiveInt(raw);
    } catch (err) {
      if (err instanceof PythonValueError) return 0n;
      throw err;
    }
  }

  /** The slice's items; without a promise when the count and the slice are read at once (SQLite). */
  paginate(source: Source<T>, req: ApiRequest, view: APIView | null): T[] | null | Promise<T[] | null> {
    const limit = this.getLimit(req);
    if (limit === null) return null;
    const src = pageSource(source);
    const strategy = (view as CountStrategyView | null)?.countStrategy ?? this.countStrategy;
    const offset = this.getOffset(req);
    const url = req.buildAbsoluteUri();
    const n = toSafeNumber(limit);
    if (strategy === 'exact' && src.countAndSlice && offset <= BigInt(Number.MAX_SAFE_INTEGER)) {
      // The slice is fetched with its count, in one round trip where the source
      // can (PostgreSQL); past the end it is empty either way.
      const both = src.countAndSlice(Number(offset), n);
      if (both !== null) {
        const counted = (b: CountAndSlice<T>): T[] => {
          this.setState(req, { limit, offset, count: b.count, capped: undefined, hasNext: offset + limit < BigInt(b.count), url });
          return b.items;
        };
        return thenOf(both, counted);
      }
    }
    return this.paginateCounting(src, req, limit, offset, strategy, url);
  }

  /** The count first (exact, capped or estimated), then the slice; without a promise where both are read at once. */
  private paginateCounting(src: PageSource<T>, req: ApiRequest, limit: bigint, offset: bigint, strategy: CountStrategy, url: string): T[] | Promise<T[]> {
    const n = toSafeNumber(limit);
    return thenOf(countWith(src, strategy, this.estimatedCountThreshold), (counted) => {
      if (counted.exact) {
        const count = BigInt(counted.count!);
        const hasNext = offset + limit < count;
        this.setState(req, { limit, offset, count: counted.count, capped: counted.capped, hasNext, url });
        if (count === 0n || offset > count) return [];
        return sliceOf(src, Number(offset), n);
      }
      const max = BigInt(Number.MAX_SAFE_INTEGER);
      return thenOf(offset > max ? [] : sliceOf(src, Number(offset), n === Number.MAX_SAFE_INTEGER ? n : n + 1), (rows) => {
        this.setState(req, { limit, offset, count: counted.count, capped: counted.capped, hasNext: rows.length > n, url });
        return rows.slice(0, n);
      });
    });
  }

  paginatedResponse(data: unknown[], req: ApiRequest): Response {
    const s = this.state(req);
    const body: Record<string, unknown> = { count: s.count };
    if (s.capped !== undefined) body['count_capped'] = s.capped;
    body['next'] = this.getNextLink(req);
    body['previous'] = this.getPreviousLink(req);
    body['results'] = data;
    return new Response(body);
  }

  getNextLink(req: ApiRequest): string | null {
    const s = this.state(req);
    if (!s.hasNext) return null;
    const url = replaceQueryParam(s.url, this.limitQueryParam, String(s.limit));
    return replaceQueryParam(url, this.offsetQueryParam, String(s.offset + s.limit));
  }

  getPreviousLink(req: ApiRequest): string | null {
    const s = this.state(req);
    if (s.offset <= 0n) return null;
    const url = replaceQueryParam(s.url, this.limitQueryParam, String(s.limit));
    if (s.offset - s.limit <= 0n) return removeQueryParam(url, this.offsetQueryParam);
    return replaceQueryParam(url, this.offsetQueryParam, String(s.offset - s.limit));
  }

  paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const o = this.offsetQueryParam;
    const l = this.limitQueryParam;
    return {
      type: 'object',
      required: ['count', 'results'],
      properties: {
        count: { type: 'integer', example: 123 },
        next: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${o}=400&${l}=100` },
        previous: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${o}=200&${l}=100` },
        results: schema,
      },
    };
  }

  schemaParameters(_view: APIView | null): OpenAPIParameter[] {
    return [
      { name: this.limitQueryParam, required: false, in: 'query', description: this.limitQueryDescription, schema: { type: 'integer' } },
      { name: this.offsetQueryParam, required: false, in: 'query', description: this.offsetQueryDescription, schema: { type: 'integer' } },
    ];
  }

  /** DRF's numbered controls for limit/offset; `null` when everything fits one page. */
  override htmlContext(req: ApiRequest): Record<string, unknown> | null {
    const s = this.state(req);
    if (this.template === null || s.count === null || BigInt(s.count) <= s.limit) return null;
    const count = BigInt(s.count);
    // Python's `_divide_with_ceil`: floor division, plus one when there is a remainder.
    const floorDiv = (a: bigint, b: bigint) => a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n);
    const ceil = (a: bigint, b: bigint) => floorDiv(a, b) + (a % b !== 0n ? 1n : 0n);
    let current = ceil(s.offset, s.limit) + 1n;
    let final = ceil(count - s.offset, s.limit) + ceil(s.offset, s.limit);
    if (final < 1n) final = 1n;
    if (current > final) current = final;
    const cur = Number(current);
    const urlFor = (page: number) =>
      page === 1
        ? removeQueryParam(s.url, this.offsetQueryParam)
        : replaceQueryParam(s.url, this.offsetQueryParam, String(s.offset + BigInt(page - cur) * s.limit));
    return {
      previous_url: this.getPreviousLink(req),
      next_url: this.getNextLink(req),
      page_links: pageLinks(displayedPageNumbers(cur, Number(final)), cur, urlFor),
    };
  }
}
