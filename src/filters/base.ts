import type { SelectQueryBuilder } from 'kysely';
import type { AppContext, PluginClass } from '../context.js';
import type { OpenAPIParameter, Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';

/**
 * A filter backend, as DRF's `BaseFilterBackend`: narrows or orders a list
 * view's source (an array or a Kysely select builder) from the request's
 * query parameters. One instance serves every request of a view; it holds
 * configuration only.
 */
export interface FilterBackend {
  /**
   * The source narrowed/ordered for this request; throws (or rejects with)
   * `ValidationError` on bad input. A promise when the backend must ask the
   * database before it can answer (`FilterSetBackend` checking that a related
   * key exists).
   */
  filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> | Promise<Source<T>>;
  /** OpenAPI query parameters this backend reads (DRF's `get_schema_operation_parameters`). */
  schemaParameters(view: APIView): OpenAPIParameter[];
  /**
   * What the browsable API needs to draw this backend's control (DRF's
   * `to_html`, as data): `null` when the view does not use the backend.
   */
  htmlContext(req: ApiRequest, view: APIView): FilterControl | null;
  /** Start-up check of the view's configuration (`searchFields`, …); throws `ImproperlyConfigured`. */
  checkView?(view: APIView): void;
}

/** An ordering backend also says which ordering is in force (DRF's `get_ordering`); cursor pagination reads it. */
export interface OrderingBackend extends FilterBackend {
  getOrdering(req: ApiRequest, view: APIView, source?: Source<unknown> | null): readonly string[] | null;
  /** The column a client-facing ordering name stands for (`created` → `b.created`). */
  columnFor(name: string, view: APIView): string;
}

export type FilterBackendClass = PluginClass<FilterBackend>;

/** The data of one browsable-API control; the page renders it. */
export type FilterControl =
  | { readonly kind: 'search'; readonly param: string; readonly term: string }
  | {
      readonly kind: 'ordering';
      readonly param: string;
      readonly current: string | null;
      readonly options: readonly { readonly value: string; readonly label: string }[];
    }
  | {
      readonly kind: 'filters';
      readonly fields: readonly {
        readonly param: string;
        readonly label: string;
        readonly type: string;
        readonly value: string;
        readonly choices?: readonly string[];
      }[];
    };

export function isOrderingBackend(backend: FilterBackend): backend is OrderingBackend {
  return typeof (backend as Partial<OrderingBackend>).getOrdering === 'function';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyQuery<T = any> = SelectQueryBuilder<any, any, T>;

/** True for a Kysely select builder (as opposed to an array). */
export function isQuery<T>(source: Source<T>): source is AnyQuery<T> {
  return !Array.isArray(source) && typeof (source as { execute?: unknown }).execute === 'function';
}

/** Kysely compiles LIMIT as a parameter: `$n` on PostgreSQL, `?` on SQLite. */
export function isPostgresQuery(qb: AnyQuery): boolean {
  return /limit \$\d+$/i.test(qb.limit(1).compile().sql);
}

/** A column reference a backend may put into SQL: `name` or `table.name`. */
export const COLUMN_RE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * The value at `path` in an array item: `author.name` walks nested objects,
 * and falls back to the flat key (`name`) when the item has no `author`
 * object (a joined row).
 */
export function valueAt(item: unknown, path: string): unknown {
  if (item === null || typeof item !== 'object') return undefined;
  const rec = item as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(rec, path)) return rec[path];
  const parts = path.split('.');
  let cur: unknown = rec;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, p)) {
      cur = undefined;
      break;
    }
    cur = (cur as Record<string, unknown>)[p];
  }
  if (cur !== undefined || parts.length === 1) return cur;
  return rec[parts[parts.length - 1]!];
}

/** Configuration a backend reads from settings at construction. */
export abstract class BaseFilterBackend implements FilterBackend {
  protected readonly app: AppContext;
  constructor(app: AppContext) {
    this.app = app;
  }
  abstract filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> | Promise<Source<T>>;
  schemaParameters(_view: APIView): OpenAPIParameter[] {
    return [];
  }
  htmlContext(_req: ApiRequest, _view: APIView): FilterControl | null {
    return null;
  }
  /**
   * Whether the system check `id` is silenced (SILENCED_SYSTEM_CHECKS): a
   * problem that check would report at start-up is then raised when the
   * view is bound instead, so no request meets it.
   */
  protected checkSilenced(id: string): boolean {
    return (this.app.settings.SILENCED_SYSTEM_CHECKS ?? []).includes(id);
  }
}
export type { AppContext };
