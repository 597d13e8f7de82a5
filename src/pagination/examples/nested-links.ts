import type { ApiRequest } from '../../request.js';
import { Response } from '../../response.js';
import { PageNumberPagination } from '../page-number.js';

/**
 * A custom style: page numbers, with the links nested under `links`.
 *
 * ```http
 * GET /books/?page=2 HTTP/1.1
 *
 * {"links": {"next": "http://…/books/?page=3", "previous": "http://…/books/"}, "count": 42, "results": […]}
 * ```
 *
 * @example
 * class BookList extends ListAPIView { paginationClass = NestedLinksPagination; }
 */
export class NestedLinksPagination<T = unknown> extends PageNumberPagination<T> {
  override paginatedResponse(data: unknown[], req: ApiRequest): Response {
    return new Response({
      links: { next: this.getNextLink(req), previous: this.getPreviousLink(req) },
      count: this.state(req).count,
      results: data,
    });
  }

  override paginatedResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const link = { type: 'string', nullable: true, format: 'uri' };
    return {
      type: 'object',
      required: ['count', 'results'],
      properties: { links: { type: 'object', properties: { next: link, previous: link } }, count: { type: 'integer', example: 123 }, results: schema },
    };
  }
}
