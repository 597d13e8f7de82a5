import type { ApiRequest } from '../../request.js';
import { Response } from '../../response.js';
import { PageNumberPagination } from '../page-number.js';

/**
 * A custom style: page numbers, links in an RFC 8288 `Link` header and a
 * body of results only (as GitHub's API). No `Link` header when there is
 * neither a next nor a previous page.
 *
 * ```http
 * GET /books/?page=2 HTTP/1.1
 *
 * HTTP/1.1 200 OK
 * Link: <http://…/books/?page=3>; rel="next", <http://…/books/>; rel="prev"
 *
 * [{"id": 3, …}, …]
 * ```
 */
export class LinkHeaderPagination<T = unknown> extends PageNumberPagination<T> {
  /** No page controls: the body is a bare list. */
  override template: string | null = null;

  override paginatedResponse(data: unknown[], req: ApiRequest): Response {
    const links: string[] = [];
    const next = this.getNextLink(req);
    const previous = this.getPreviousLink(req);
    if (next !== null) links.push(`<${next}>; rel="next"`);
    if (previous !== null) links.push(`<${previous}>; rel="prev"`);
    return new Response(data, links.length > 0 ? { headers: { Link: links.join(', ') } } : {});
  }

  override paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
    return schema;
  }
}
