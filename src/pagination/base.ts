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
}

/**
 * A pagination style. One instance serves every request of a view, so the
 * state of the page being served lives on the request (`req.pagination`),
 * never on the instance.
 */
export interface Pagination<T = unknown> {
  /** The items of the requested page, or `null` when pagination does not apply. */
  paginate(source: Source<T>, req: ApiRequest, view: APIView): Promise<T[] | null>;
  /** The response for a page: `data` is the page's items, already serialized. */
  paginatedResponse(data: unknown[], req: ApiRequest): Response;
  /** The JSON schema of a paginated response whose items follow `schema`. */
  paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown>;
  /** OpenAPI query parameters, with DRF's descriptions. */
  schemaParameters(view: APIView): OpenAPIParameter[];
  /** Context for the browsable API's page controls; `null` for none. */
  htmlContext(req: ApiRequest): Record<string, unknown> | null;
  /** Name of the page-control template; `null` switches controls off. */
  template: string | null;
}

export type PaginationClass = PluginClass<Pagination<any>>;

export type { AppContext };
