import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { freshSqliteUrl } from '../helpers/databases.js';
import {
  APIView,
  IsAuthenticatedOrReadOnly,
  ListCreateAPIView,
  RetrieveUpdateDestroyAPIView,
  ListAPIView,
  createApp,
  serializer,
  SearchFilter,
  OrderingFilter,
  string,
  integer,
  boolean,
  path,
  type ApiRequest,
  type CreateAppOptions,
  type RouteEntry,
  type SettingsInput,
  type TrestleApp,
} from '../../src/index.js';
import { SessionAuthentication } from '../../src/authentication/session.js';
import { TokenAuthentication } from '../../src/authentication/token.js';
import { authRoutes } from '../../src/sessions/views.js';
import { obtainAuthToken } from '../../src/authtoken/obtain-auth-token.js';
import { CursorPagination, PageNumberPagination } from '../../src/pagination/index.js';
import { QueryParameterVersioning } from '../../src/versioning/query-parameter.js';
import type { UserRecord } from '../../src/users/user-record.js';
import { browsableRoutes } from '../../example/browsable.js';

export const XSS = '<script>window.__xss = 1</script>';

export interface Item {
  id: number;
  title: string;
  created: number;
}

/** Twelve items; the fifth one's title is a script tag. */
export function makeItems(): Item[] {
  return Array.from({ length: 12 }, (_, i) => ({ id: i + 1, title: i === 4 ? XSS : `Item ${i + 1}`, created: i + 1 }));
}

class ItemPages extends PageNumberPagination<Item> {
  override pageSize = 2;
}
class ItemCursor extends CursorPagination<Item> {
  override pageSize = 3;
  override ordering = '-created';
}

/** The routes of a small API over `items`, as the browser tests drive it. */
export function apiRoutes(items: Item[]): RouteEntry[] {
  // What POST and PUT accept: the browsable API builds its HTML form from it.
  const ItemSerializer = serializer({
    id: integer({ readOnly: true }),
    title: string({ maxLength: 100 }),
    rank: integer({ required: false, minValue: 0 }),
    featured: boolean({ required: false }),
  });
  class ItemList extends ListCreateAPIView<Item> {
    override serializer = ItemSerializer;
    static override description = 'Items of the test API.\n\nTitles are <b>escaped</b>.';
    override authenticationClasses = [SessionAuthentication, TokenAuthentication];
    override permissionClasses = [IsAuthenticatedOrReadOnly];
    override paginationClass = ItemPages;
    override filterBackends = [SearchFilter, OrderingFilter];
    searchFields = ['title'];
    orderingFields = ['id', 'title'];
    override getQueryset() {
      return items;
    }
    override serialize(item: Item, ctx: { request: ApiRequest }) {
      return { ...item, url: ctx.request.buildAbsoluteUri(`/items/${item.id}/`) };
    }
    override performCreate(_req: ApiRequest, data: Record<string, unknown>) {
      const item = { id: items.length + 1, title: String(data['title'] ?? ''), created: items.length + 1 };
      items.push(item);
      return item;
    }
  }
  class ItemDetail extends RetrieveUpdateDestroyAPIView<Item> {
    override serializer = ItemSerializer;
    // The item as stored (the tests read `created` back).
    override serialize(item: Item) {
      return item;
    }
    override authenticationClasses = [SessionAuthentication, TokenAuthentication];
    override permissionClasses = [IsAuthenticatedOrReadOnly];
    override getQueryset() {
      return items;
    }
    override performUpdate(_req: ApiRequest, item: Item, data: Record<string, unknown>) {
      if (typeof data['title'] === 'string') item.title = data['title'];
      return item;
    }
    override performDestroy(_req: ApiRequest, item: Item) {
      items.splice(items.indexOf(item), 1);
    }
  }
  class EventList extends ListAPIView<Item> {
    override authenticationClasses = [SessionAuthentication];
    override paginationClass = ItemCursor;
    override getQueryset() {
      return items;
    }
  }
  class Versioned extends APIView {
    override versioningClass = QueryParameterVersioning;
    override defaultVersion = '1.0';
    override allowedVersions = ['1.0', '2.0'];
    get(req: ApiRequest) {
      return { version: req.version };
    }
  }
  return [
    path('items/', ItemList, { name: 'item-list' }),
    path('items/<int:pk>/', ItemDetail, { name: 'item-detail' }),
    path('events/', EventList, { name: 'event-list' }),
    path('versioned/', Versioned, { name: 'versioned' }),
    path('api-token-auth/', obtainAuthToken, { name: 'api-token-auth' }),
    authRoutes(),
    ...browsableRoutes(),
  ];
}

export interface Harness {
  app: TrestleApp;
  database: Database;
  items: Item[];
  staff: UserRecord;
  alice: UserRecord;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery staple';

/** A migrated SQLite database, a staff user `admin` and a plain user `alice`, and the app. */
export async function startHarness(settings: SettingsInput = {}, logger: CreateAppOptions['logger'] = false): Promise<Harness> {
  const target = freshSqliteUrl();
  const database = await openDatabase(target.url);
  await migrate(database);
  const items = makeItems();
  const app = await createApp({
    settings: { SECRET_KEY: 'test-secret-key-for-browsable-tests-0123456789', ...settings },
    routes: apiRoutes(items),
    database,
    logger,
  });
  const users = app.trestle.services.get('users');
  const staff = await users.createUser({ username: 'admin', password: PASSWORD, isStaff: true, email: 'admin@example.com' });
  const alice = await users.createUser({ username: 'alice', password: PASSWORD, email: 'alice@example.com' });
  return {
    app,
    database,
    items,
    staff,
    alice,
    async close() {
      await app.close();
      await database.close();
      await target.cleanup();
    },
  };
}
