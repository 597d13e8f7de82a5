import {
  APIView,
  IsAuthenticated,
  ListAPIView,
  ListCreateAPIView,
  RetrieveUpdateDestroyAPIView,
  createApp,
  include,
  path,
  type ApiRequest,
  type RouteEntry,
} from '../../src/index.js';
import { BasicAuthentication } from '../../src/authentication/basic.js';
import { SessionAuthentication } from '../../src/authentication/session.js';
import { TokenAuthentication } from '../../src/authentication/token.js';
import { obtainAuthToken } from '../../src/authtoken/obtain-auth-token.js';
import { CursorPagination, LimitOffsetPagination, PageNumberPagination } from '../../src/pagination/index.js';
import { AcceptHeaderVersioning } from '../../src/versioning/accept-header.js';
import { QueryParameterVersioning } from '../../src/versioning/query-parameter.js';
import { URLPathVersioning } from '../../src/versioning/url-path.js';
import { SchemaView } from '../../src/schema/schema-view.js';
import type { ViewOpenAPI } from '../../src/schema/types.js';

export interface Item {
  id: number;
  title: string;
  created: number;
}

export const ITEMS: Item[] = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, title: `Item ${i + 1}`, created: i + 1 }));
const itemSchema = { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } }, required: ['id', 'title'] };

class ItemPages extends PageNumberPagination<Item> {
  override pageSize = 2;
  override pageSizeQueryParam = 'page_size';
}
class ItemLimits extends LimitOffsetPagination<Item> {
  override defaultLimit = 2;
}
class ItemCursor extends CursorPagination<Item> {
  override pageSize = 2;
  override ordering = '-created';
}

/** Items, paged by page number; Basic, Token and session authentication. */
export class ItemList extends ListCreateAPIView<Item> {
  static override description = 'Every item.';
  override authenticationClasses = [BasicAuthentication, TokenAuthentication, SessionAuthentication];
  override paginationClass = ItemPages;
  openapi: ViewOpenAPI = { itemSchema };
  override getQueryset() {
    return ITEMS;
  }
}
export class ItemDetail extends RetrieveUpdateDestroyAPIView<Item> {
  override authenticationClasses = [TokenAuthentication];
  override permissionClasses = [IsAuthenticated];
  openapi: ViewOpenAPI = { itemSchema };
  override getQueryset() {
    return ITEMS;
  }
}
export class LogList extends ListAPIView<Item> {
  override paginationClass = ItemLimits;
  override getQueryset() {
    return ITEMS;
  }
}
export class EventList extends ListAPIView<Item> {
  override paginationClass = ItemCursor;
  override getQueryset() {
    return ITEMS;
  }
}
export class PathVersioned extends APIView {
  override versioningClass = URLPathVersioning;
  override allowedVersions = ['v1', 'v2'];
  get(req: ApiRequest) {
    return { version: req.version };
  }
}
export class QueryVersioned extends APIView {
  override versioningClass = QueryParameterVersioning;
  override allowedVersions = ['1.0', '2.0'];
  override defaultVersion = '1.0';
  get(req: ApiRequest) {
    return { version: req.version };
  }
}
export class AcceptVersioned extends APIView {
  override versioningClass = AcceptHeaderVersioning;
  override allowedVersions = ['1.0', '2.0'];
  get(req: ApiRequest) {
    return { version: req.version };
  }
}

export const routes: RouteEntry[] = [
  path('items/', ItemList, { name: 'item-list' }),
  path('items/<int:pk>/', ItemDetail, { name: 'item-detail' }),
  path('logs/', LogList, { name: 'log-list' }),
  path('events/', EventList, { name: 'event-list' }),
  include('<version>/', [path('things/', PathVersioned, { name: 'things' })]),
  path('query-versioned/', QueryVersioned),
  path('accept-versioned/', AcceptVersioned),
  path('uuids/<uuid:key>/<slug:name>/', ItemDetail),
  path('api-token-auth/', obtainAuthToken, { name: 'api-token-auth' }),
  path('openapi.json', new SchemaView({ title: 'Test API', version: '3.2.1' }), { name: 'openapi-schema' }),
];

export function schemaApp() {
  return createApp({ logger: false, routes });
}
