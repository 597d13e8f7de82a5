import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { NotFound } from '../exceptions.js';
import { Response } from '../response.js';
import { withoutParam as removeQueryParam, withParam as replaceQueryParam } from './links.js';
import { BasePagination, warnOnce, type AppContext, type CountStrategy, type CountStrategyView, type OpenAPIParameter, type Source } from './base.js';
import { countWith, ESTIMATED_COUNT_THRESHOLD, sliceOf } from './count.js';
import { displayedPageNumbers, pageLinks } from './html.js';
import { positiveInt, pythonInt, PythonValueError, toSafeNumber } from './python-int.js';
import { pageSource, type CountAndSlice, type PageSource } from './source.js';
import { isThenable, thenOf } from '../utils/thenable.js';

/** What `PageNumberPagination` keeps on `req.pagination` between paginate and response. */
export interface PageNumberState {
  readonly number: number;
  readonly pageSize: number;
  /** Known page count, or `null` when the count is approximate. */
  readonly numPages: number | null;
  readonly count: number | null;
  readonly capped: boolean | undefined;
  readonly hasNext: boolean;
  readonly url: string;
}

/**
 * A simple page number based style that supports page numbers as query
 * parameters.
 *
 * ```http
 * GET /accounts/?page=4 HTTP/1.1
 * GET /accounts/?page=4&page_size=100 HTTP/1.1   (with pageSizeQueryParam = 'page_size')
 * ```
 *
 * Answers `{count, next, previous, results}`; a page that is not an integer,
 * below 1 or past the last page is `404 {"detail": "Invalid page."}`.
 *
 * @example
 * class LargeResultsSetPagination extends PageNumberPagination {
 *   override pageSize = 1000;
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 10000;
 * }
 */
export class PageNumberPagination<T = unknown> extends BasePagination<T, PageNumberState> {
  /** Items per page; `null` (no PAGE_SIZE) switches pagination off. */
  pageSize: number | null;
  pageQueryParam = 'page';
  pageQueryDescription = 'A page number within the paginated result set.';
  /** Lets the client set the page size when named; `null` = the client cannot. */
  pageSizeQueryParam: string | null = null;
  pageSizeQueryDescription = 'Number of results to return per page.';
  /** Upper bound of a requested page size (only with `pageSizeQueryParam`). */
  maxPageSize: number | null = null;
  /** Values of the page parameter that mean "the last page". */
  lastPageStrings: readonly string[] = ['last'];
  /** May use `{page_number}` and `{message}` (Django's paginator message). */
  invalidPageMessage = 'Invalid page.';
  override template: string | null = 'rest_framework/pagination/numbers.html';
  /** How the total is counted; a view's own `countStrategy` wins. */
  countStrategy: CountStrategy = 'exact';
  /** Under `'estimated'`, estimates below this are replaced by an exact count. */
  estimatedCountThreshold = ESTIMATED_COUNT_THRESHOLD;

  constructor(app: AppContext) {
    super(app);
    this.pageSize = app.settings.PAGE_SIZE;
  }

  override checkConfiguration(): void {
    if (!this.pageSize) {
      warnOnce(this.app, `page-size:${this.constructor.name}`,
        `${this.constructor.name} is set but has no page size: set PAGE_SIZE or pageSize, or list responses are not paginated.`);
    }
  }

  /** DRF's `get_page_size`: the client's size when allowed and valid, else `pageSize`. */
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

  /** The page's items; without a promise when the count and the page are read at once (SQLite). */
  paginate(source: Source<T>, req: ApiRequest, view: APIView | null): T[] | null | Promise<T[] | null> {
    const pageSize = this.getPageSize(req);
    if (!pageSize) return null;
    const src = pageSource(source);
    const raw = req.query[this.pageQueryParam] || '1';
    const wantsLast = this.lastPageStrings.includes(raw);
    let strategy = (view as CountStrategyView | null)?.countStrategy ?? this.countStrategy;
    if (wantsLast) strategy = 'exact'; // the last page needs the real count
    const url = req.buildAbsoluteUri();
    if (strategy === 'exact' && !wantsLast && src.countAndSlice) {
      // The page asked for is fetched with its count, in one round trip where
      // the source can (PostgreSQL); a number past the last page is still
      // refused once the count is known. Its query reads no further than the
      // count's does.
      const asked = askedNumber(raw, pageSize);
      const both = asked === null ? null : src.countAndSlice((asked - 1) * pageSize, pageSize);
      if (both !== null) {
        // The sync case (SQLite) without a continuation made for it: this is every page's path.
        if (isThenable(both)) return both.then((b) => this.countedPage(req, raw, pageSize, url, b));
        return this.countedPage(req, raw, pageSize, url, both);
      }
    }
    return this.paginateCounting(src, req, raw, wantsLast, strategy, pageSize, url);
  }

  /** The page of `countAndSlice`: its number checked against the count. */
  private countedPage(req: ApiRequest, raw: string, pageSize: number, url: string, { count, items }: CountAndSlice<T>): T[] {
    const numPages = Math.max(1, Math.ceil(count / pageSize));
    const number = this.validateNumber(raw, numPages);
    this.setState(req, { number, pageSize, numPages, count, capped: undefined, hasNext: number < numPages, url });
    return items;
  }

  /** The count first (exact, capped or estimated), then the page; without a promise where both are read at once. */
  private paginateCounting(src: PageSource<T>, req: ApiRequest, raw: string, wantsLast: boolean, strategy: CountStrategy, pageSize: number, url: string): T[] | Promise<T[]> {
    return thenOf(countWith(src, strategy, this.estimatedCountThreshold), (counted) => {
      if (counted.exact) {
        const count = counted.count!;
        const numPages = Math.max(1, Math.ceil(count / pageSize));
        const number = wantsLast ? numPages : this.validateNumber(raw, numPages);
        return thenOf(sliceOf(src, (number - 1) * pageSize, pageSize), (items) => {
          this.setState(req, { number, pageSize, numPages, count, capped: counted.capped, hasNext: number < numPages, url });
          return items;
        });
      }
      // Approximate or no count: probe one row past the page to know whether a next page exists.
      const number = this.validateNumber(raw, Math.floor(Number.MAX_SAFE_INTEGER / pageSize));
      return thenOf(sliceOf(src, (number - 1) * pageSize, pageSize + 1), (rows) => {
        if (number > 1 && rows.length === 0) throw this.invalidPage(String(number), 'That page contains no results');
        this.setState(req, { number, pageSize, numPages: null, count: counted.count, capped: counted.capped, hasNext: rows.length > pageSize, url });
        return rows.slice(0, pageSize);
      });
    });
  }

  /** Django's `Paginator.validate_number`. */
  protected validateNumber(raw: string, numPages: number): number {
    if (PLAIN_NUMBER.test(raw)) {
      // Exact as a number: no bigint needed to accept it (a refusal still goes below, for its message).
      const plain = Number(raw);
      if (plain >= 1 && plain <= numPages) return plain;
    }
    let n: bigint;
    try {
      n = pythonInt(raw);
    } catch {
      throw this.invalidPage(raw, 'That page number is not an integer');
    }
    if (n < 1n) throw this.invalidPage(raw, 'That page number is less than 1');
    if (n > BigInt(numPages)) throw this.invalidPage(raw, 'That page contains no results');
    return Number(n);
  }

  protected invalidPage(pageNumber: string, message: string): NotFound {
    return new NotFound(this.invalidPageMessage.replaceAll('{page_number}', pageNumber).replaceAll('{message}', message));
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
    return s.hasNext ? replaceQueryParam(s.url, this.pageQueryParam, s.number + 1) : null;
  }

  getPreviousLink(req: ApiRequest): string | null {
    const s = this.state(req);
    if (s.number <= 1) return null;
    if (s.number - 1 === 1) return removeQueryParam(s.url, this.pageQueryParam);
    return replaceQueryParam(s.url, this.pageQueryParam, s.number - 1);
  }

  paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
    return {
      type: 'object',
      required: ['count', 'results'],
      properties: {
        count: { type: 'integer', example: 123 },
        next: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${this.pageQueryParam}=4` },
        previous: { type: 'string', nullable: true, format: 'uri', example: `http://api.example.org/accounts/?${this.pageQueryParam}=2` },
        results: schema,
      },
    };
  }

  schemaParameters(_view: APIView | null): OpenAPIParameter[] {
    const params: OpenAPIParameter[] = [
      { name: this.pageQueryParam, required: false, in: 'query', description: this.pageQueryDescription, schema: { type: 'integer' } },
    ];
    if (this.pageSizeQueryParam !== null) {
      params.push({ name: this.pageSizeQueryParam, required: false, in: 'query', description: this.pageSizeQueryDescription, schema: { type: 'integer' } });
    }
    return params;
  }

  /** DRF's page-number controls; `null` when there is one page or no template. */
  override htmlContext(req: ApiRequest): Record<string, unknown> | null {
    const s = this.state(req);
    const final = s.numPages ?? (s.hasNext ? s.number + 1 : s.number);
    if (this.template === null || final <= 1) return null;
    const urlFor = (n: number) => (n === 1 ? removeQueryParam(s.url, this.pageQueryParam) : replaceQueryParam(s.url, this.pageQueryParam, n));
    return {
      previous_url: this.getPreviousLink(req),
      next_url: this.getNextLink(req),
      page_links: pageLinks(displayedPageNumbers(s.number, final), s.number, urlFor),
    };
  }
}

/** ASCII digits few enough to be exact as a number, which Python's `int()` reads as the same value. */
const PLAIN_NUMBER = /^[0-9]{1,15}$/;

/** The page `raw` names when `validateNumber` could accept it (a whole number ≥ 1 whose offset is a safe integer), else `null`. */
function askedNumber(raw: string, pageSize: number): number | null {
  if (PLAIN_NUMBER.test(raw)) {
    const plain = Number(raw);
    return plain >= 1 && plain <= Math.floor(Number.MAX_SAFE_INTEGER / pageSize) ? plain : null;
  }
  let n: bigint;
  try {
    n = pythonInt(raw);
  } catch {
    return null;
  }
  return n >= 1n && n <= BigInt(Math.floor(Number.MAX_SAFE_INTEGER / pageSize)) ? Number(n) : null;
}
