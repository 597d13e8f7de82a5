import type { SelectQueryBuilder } from 'kysely';
import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { APIView } from '../views/api-view.js';
import type { AppContext, PluginClass } from '../context.js';

/** What a list view pages: an in-memory array or a Kysely select builder. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Source<T = unknown> = readonly T[] | SelectQueryBuilder<any, any, T>;

export interface OpenAPIParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
  /** `form` with `explode: false`: a comma-separated list (`?ordering=a,-b`). */
  style?: 'form';
  explode?: boolean;
}

/**
 * A pagination style. One instance serves every request of a view, so the
 * state of the page being served lives on the request (`req.pagination`),
 * never on the instance.
 */
export interface Pagination<T = unknown> {
  /** The items of the requested page, or `null` when pagination does not apply; a value or a promise of it. */
  paginate(source: Source<T>, req: ApiRequest, view: APIView | null): T[] | null | Promise<T[] | null>;
  /** The response for a page: `data` is the page's items, already serialized. */
  paginatedResponse(data: unknown[], req: ApiRequest): Response;
  /** The JSON schema of a paginated response whose items follow `schema`. */
  paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown>;
  /** OpenAPI query parameters, with DRF's descriptions. */
  schemaParameters(view: APIView | null): OpenAPIParameter[];
  /** Context for the browsable API's page controls; `null` for none. */
  htmlContext(req: ApiRequest): Record<string, unknown> | null;
  /** Name of the page-control template; `null` switches controls off. */
  template: string | null;
  /** Start-up checks, called once when the view binds; throwing rejects `createApp`. */
  checkConfiguration?(): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PaginationClass = PluginClass<Pagination<any>>;

/**
 * How page-number and limit/offset styles count:
 * - `'exact'` — `SELECT count(*) FROM (…) AS t` (DRF's behaviour);
 * - `'estimated'` — PostgreSQL's planner estimate (`EXPLAIN (FORMAT JSON)`),
 *   exact below `estimatedCountThreshold` and on SQLite or arrays;
 * - `{ capped: N }` — counts at most N + 1 rows; past N the body says `count: N, count_capped: true`;
 * - `'none'` — no count query; `count` is `null` and `next` is decided by fetching one extra row.
 */
export type CountStrategy = 'exact' | 'estimated' | 'none' | { readonly capped: number };

/** A view may choose its own count strategy, overriding the pagination class's. */
export interface CountStrategyView {
  countStrategy?: CountStrategy;
}

const warned = new WeakMap<AppContext, Set<string>>();

/**
 * Logs `message` once per app and key (start-up warnings such as "no page
 * size"); repeated binds of views sharing a pagination class stay quiet.
 */
export function warnOnce(app: AppContext, key: string, message: string): void {
  let seen = warned.get(app);
  if (!seen) warned.set(app, (seen = new Set()));
  if (seen.has(key)) return;
  seen.add(key);
  app.log.warn(message);
}

/**
 * Shared plumbing of the built-in styles: the app context, `template` and
 * per-request state on `req.pagination`. Subclasses are configured by class
 * fields, which is why checks on them run after construction (a subclass's
 * `pageSize = 10` is assigned only once the base constructor has returned).
 */
export abstract class BasePagination<T = unknown, State = unknown> implements Pagination<T> {
  template: string | null = null;
  protected readonly app: AppContext;

  constructor(app: AppContext) {
    this.app = app;
  }

  /**
   * Start-up checks, run by the view when it binds (inside `createApp`), once
   * the subclass's fields are set; a failure rejects `createApp`.
   */
  checkConfiguration(): void {}

  abstract paginate(source: Source<T>, req: ApiRequest, view: APIView | null): T[] | null | Promise<T[] | null>;
  abstract paginatedResponse(data: unknown[], req: ApiRequest): Response;
  abstract paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown>;
  abstract schemaParameters(view: APIView | null): OpenAPIParameter[];

  htmlContext(_req: ApiRequest): Record<string, unknown> | null {
    return null;
  }

  /** This style's state for the page `req` is serving (set by `paginate`). */
  protected state(req: ApiRequest): State {
    const s = req.pagination as { owner?: unknown; state?: State } | null;
    if (!s || s.owner !== this) throw new Error(`${this.constructor.name}.paginatedResponse() called before paginate() for this request.`);
    return s.state as State;
  }

  protected setState(req: ApiRequest, state: State): void {
    req.pagination = { owner: this, state };
  }
}

export type { AppContext };
