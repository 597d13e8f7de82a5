/**
 * The Trestle side of the benchmark: the workloads' routes written as a user
 * of the framework would write them, nothing tuned for the bench.
 */
import type { Kysely } from 'kysely';
import {
  APIView,
  AllowAny,
  CursorPagination,
  IsAuthenticated,
  LimitOffsetPagination,
  ListAPIView,
  PageNumberPagination,
  TokenAuthentication,
  createApp,
  obtainAuthToken,
  path,
  type CountStrategy,
  type SettingsInput,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { BENCH_SECRET, COUNT_CAP, LARGE_TABLE, PAGE_SIZE, SMALL_TABLE } from '../lib/constants.js';

/** One row of an item table. */
export interface Item {
  id: number;
  name: string;
  created: string;
}

/** The bench tables, as Kysely sees them. */
export interface BenchTables {
  bench_item_small: Item;
  bench_item_large: Item;
}

type ItemTable = typeof SMALL_TABLE | typeof LARGE_TABLE;

/**
 * An item table's rows, declared once per view as DRF's
 * `queryset = Item.objects.all()`: the view builds it once per database
 * (GenericAPIView.queryset), not per request.
 */
function items(table: ItemTable) {
  return (db: Kysely<BenchTables>) => db.selectFrom(table).select(['id', 'name', 'created']);
}

/** W1: `GET /w1/items/?page=N` — Token auth, page numbers, exact count. */
class SmallItemList extends ListAPIView<Item> {
  override queryset = (db: Kysely<BenchTables>) => items(SMALL_TABLE)(db).orderBy('id');
}

/** W1 on 1M rows, with the count strategy as the route says. */
function largeItemList(countStrategy: CountStrategy): new () => ListAPIView<Item> {
  return class LargeItemList extends ListAPIView<Item> {
    countStrategy = countStrategy;
    override queryset = (db: Kysely<BenchTables>) => items(LARGE_TABLE)(db).orderBy('id');
  };
}

class NewestFirstCursor extends CursorPagination<Item> {
  override ordering = ['-created', '-id'];
}

/** W2: `GET /w2/items/?cursor=…` — keyset pages over 1M rows, newest first. */
class CursorItemList extends ListAPIView<Item> {
  override paginationClass = NewestFirstCursor;
  override queryset = items(LARGE_TABLE);
}

/** W3: `GET /w3/items/?limit=20&offset=N` — limit/offset over 1M rows. */
class OffsetItemList extends ListAPIView<Item> {
  override paginationClass = LimitOffsetPagination;
  override queryset = (db: Kysely<BenchTables>) => items(LARGE_TABLE)(db).orderBy('id');
}

/** W5: `GET /w5/ping/` — no authentication, no database: the floor. */
class Ping extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get() {
    return { ping: 'pong' };
  }
}

export const benchSettings: SettingsInput = {
  SECRET_KEY: BENCH_SECRET,
  ALLOWED_HOSTS: ['127.0.0.1', 'localhost'],
  PAGE_SIZE,
  DEFAULT_AUTHENTICATION_CLASSES: [TokenAuthentication],
  DEFAULT_PERMISSION_CLASSES: [IsAuthenticated],
  DEFAULT_PAGINATION_CLASS: PageNumberPagination,
};

export const benchRoutes = [
  path('w1/items/', SmallItemList),
  path('w1/large/', largeItemList('exact')),
  path('w1/large-capped/', largeItemList({ capped: COUNT_CAP })),
  path('w1/large-estimated/', largeItemList('estimated')),
  path('w2/items/', CursorItemList),
  path('w3/items/', OffsetItemList),
  path('w5/ping/', Ping),
  path('api-token-auth/', obtainAuthToken),
];

/** The bench app on an open database. */
export function buildTrestleApp(database: Database): Promise<TrestleApp> {
  return createApp({
    logger: false,
    settings: benchSettings,
    routes: benchRoutes,
    database,
  });
}
