/**
 * A model view reuses its default queryset (and OrderingFilter its ordering
 * of it) while the app's own database serves it, and what is compiled from
 * it — the detail lookup, the page and its count — is compiled once and
 * only bound afterwards (src/db/query-shapes.ts). These tests hold the
 * reused path to the answers of the paths that build everything per
 * request: a `getQueryset` that builds its own builder, a database with a
 * plug-in (Kysely's own way), and every query in a transaction. Status,
 * headers and bodies must be the same, request after request.
 */
import type { Kysely, KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApp,
  CursorPagination,
  DefaultRouter,
  field,
  FilterSetBackend,
  filterSet,
  include,
  model,
  modelSerializer,
  ModelViewSet,
  OrderingFilter,
  ReadOnlyModelViewSet,
  PageNumberPagination,
  SearchFilter,
  createModel,
  migration,
  type ApiRequest,
  type PaginationClass,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const Author = model('rq_author', { name: field.char({ maxLength: 100 }) });
const Book = model(
  'rq_book',
  {
    title: field.char({ maxLength: 100 }),
    author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
    year: field.integer({ null: true }),
  },
  { ordering: ['id'] },
);
const initial = migration({ operations: [Author, Book].map((m) => createModel(m.tableName, m.fields, m.meta)) });

class SmallPages extends PageNumberPagination {
  override pageSize = 3;
  override pageSizeQueryParam = 'page_size';
}

const BookSerializer = modelSerializer(Book, { fields: ['id', 'title', 'author', 'year'] });

/** The catalogue's configuration: filters, search, ordering with a default, page numbers. */
class BookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = BookSerializer as never;
  override paginationClass: PaginationClass = SmallPages;
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  searchFields = ['title', 'author__name'];
  orderingFields = ['id', 'title', 'year'];
  ordering: string | readonly string[] = 'id';
  filterset = filterSet({
    author: { type: 'integer', column: 'author_id', lookups: ['exact', 'in'] },
    year: { type: 'integer', lookups: ['exact', 'gte', 'lte'] },
  });
}

/** The same rows from a builder made afresh by every request. */
class FreshBookViewSet extends BookViewSet {
  override getQueryset(req: ApiRequest) {
    return (req.app.services.get('db') as unknown as AnyDb).selectFrom('rq_book').selectAll().orderBy('id');
  }
}

/** The same rows from a builder declared once (DRF's `queryset = Book.objects.order_by('id')`). */
class DeclaredBookViewSet extends BookViewSet {
  override queryset = (db: AnyDb) => db.selectFrom('rq_book').selectAll().orderBy('id');
}

/** A view without a model: `queryset` alone gives its list and its details. */
class TitleViewSet extends ReadOnlyModelViewSet<{ id: number; title: string }> {
  override paginationClass = SmallPages;
  override queryset = (db: AnyDb) => db.selectFrom('rq_book').select(['id', 'title']).orderBy('title');
}

class NewestFirst extends CursorPagination {
  override pageSize = 4;
  override ordering = ['-id'];
}
/** Cursor pages over the reused builder (a model view), and over one built per request. */
class CursorBookViewSet extends BookViewSet {
  override paginationClass = NewestFirst;
  override filterBackends = [];
  override ordering = '-id';
}
class FreshCursorBookViewSet extends CursorBookViewSet {
  override getQueryset(req: ApiRequest) {
    return (req.app.services.get('db') as unknown as AnyDb).selectFrom('rq_book').selectAll();
  }
}

/** A count capped at 5 (`countUpTo`), over the reused builder and over one built per request. */
class CappedBookViewSet extends BookViewSet {
  countStrategy = { capped: 5 };
}
class FreshCappedBookViewSet extends FreshBookViewSet {
  countStrategy = { capped: 5 };
}

/** Kysely's own way: the database through a plug-in (another executor, nothing reused). */
const plugged = new WeakMap<object, AnyDb>();
const passThrough: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => args.result };
class PluggedBookViewSet extends BookViewSet {
  protected override database(req: ApiRequest): AnyDb {
    const db = req.app.services.get('db') as unknown as AnyDb;
    let out = plugged.get(db);
    if (out === undefined) plugged.set(db, (out = db.withPlugin(passThrough)));
    return out;
  }
}

/** Every read of the request inside one transaction (its own executor). */
class TransactionBookViewSet extends BookViewSet {
  protected override database(req: ApiRequest): AnyDb {
    return (req as unknown as { trx?: AnyDb }).trx ?? super.database(req);
  }
  private inTransaction<T>(req: ApiRequest, run: () => Promise<T>): Promise<T> {
    return super.database(req).transaction().execute(async (trx) => {
      (req as unknown as { trx?: AnyDb }).trx = trx;
      return run();
    });
  }
  override list(req: ApiRequest) {
    return this.inTransaction(req, async () => super.list(req));
  }
  override retrieve(req: ApiRequest) {
    return this.inTransaction(req, async () => super.retrieve(req));
  }
}

/** `super.getQueryset(req).where(…)`: a new builder each request, made from the reused one. */
class NarrowedBookViewSet extends BookViewSet {
  override getQueryset(req: ApiRequest) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (super.getQueryset(req) as any).where('year', '>=', 1990);
  }
}
class FreshNarrowedBookViewSet extends FreshBookViewSet {
  override getQueryset(req: ApiRequest) {
    return super.getQueryset(req).where('year', '>=', 1990);
  }
}

/** Another default ordering on the same table: its own reused ordering. */
class ByYearViewSet extends BookViewSet {
  override ordering = ['-year', 'title'];
}
class FreshByYearViewSet extends FreshBookViewSet {
  override ordering = ['-year', 'title'];
}

function routes() {
  const router = new DefaultRouter();
  router.register('books', BookViewSet, { basename: 'book' });
  router.register('fresh', FreshBookViewSet, { basename: 'fresh' });
  router.register('declared', DeclaredBookViewSet, { basename: 'declared' });
  router.register('titles', TitleViewSet, { basename: 'title' });
  router.register('cursor', CursorBookViewSet, { basename: 'cursor' });
  router.register('capped', CappedBookViewSet, { basename: 'capped' });
  router.register('fresh-capped', FreshCappedBookViewSet, { basename: 'fresh-capped' });
  router.register('fresh-cursor', FreshCursorBookViewSet, { basename: 'fresh-cursor' });
  router.register('plugged', PluggedBookViewSet, { basename: 'plugged' });
  router.register('trx', TransactionBookViewSet, { basename: 'trx' });
  router.register('narrowed', NarrowedBookViewSet, { basename: 'narrowed' });
  router.register('fresh-narrowed', FreshNarrowedBookViewSet, { basename: 'fresh-narrowed' });
  router.register('by-year', ByYearViewSet, { basename: 'by-year' });
  router.register('fresh-by-year', FreshByYearViewSet, { basename: 'fresh-by-year' });
  return [include('api/', router.urls)];
}

/** Requests under a viewset's prefix: lists (pages, orderings, filters, searches, errors) and details. */
const REQUESTS = [
  '',
  '?page=2',
  '?page=3',
  '?page=4',
  '?page=99',
  '?page=0',
  '?page=abc',
  '?page=last',
  '?page_size=2&page=2',
  '?page_size=5&page=2',
  '?ordering=-year',
  '?ordering=-year&page=2',
  '?ordering=year&page=2',
  '?ordering=title',
  '?ordering=title,-id',
  '?ordering=-title&page=2',
  '?ordering=bogus',
  '?ordering=bogus,-year&page=3',
  '?search=the',
  '?search=le%20guin',
  '?search=zzz',
  '?year__gte=1990',
  '?year__gte=1990&ordering=-year&page=2',
  '?author=1',
  '?author=1&page=2',
  '?author=999',
  '?year=abc',
  '1/',
  '2/',
  '7/',
  '12/',
  '999/',
  'abc/',
  '0/',
  '-1/',
  '1/?search=zzz',
  '1/?search=dispossessed',
  '4/?search=le%20guin',
  '1/?year__gte=3000',
  '2/?year__gte=1990',
  '1/?ordering=-year',
  '1/?author=2',
  '1/?author=1',
  '1/?author=999',
];

function normalise(prefix: string, res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const headers = { ...res.headers };
  delete headers['date'];
  delete headers['x-request-id'];
  // The prefixes differ in length; the bodies are compared.
  delete headers['content-length'];
  const body = res.body.replaceAll(`/api/${prefix}/`, '/api/X/');
  for (const k of Object.keys(headers)) if (typeof headers[k] === 'string') headers[k] = (headers[k] as string).replaceAll(`/api/${prefix}/`, '/api/X/');
  return { status: res.statusCode, headers, body };
}

describe.each(testDatabases())('reused model querysets on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let compiles: number;

  beforeEach(async () => {
    database = await open();
    await initial.from({}).up(database.db);
    const d = database.db as AnyDb;
    await d.insertInto('rq_author').values([{ name: 'Ursula K. Le Guin' }, { name: 'Octavia Butler' }, { name: 'Stanisław Lem' }]).execute();
    const books: [string, number, number | null][] = [
      ['The Dispossessed', 1, 1974],
      ['The Lathe of Heaven', 1, 1971],
      ['Kindred', 2, 1979],
      ['Parable of the Sower', 2, 1993],
      ['Solaris', 3, 1961],
      ['The Cyberiad', 3, null],
      ['Fiasco', 3, 1986],
      ['The Telling', 1, 2000],
      ['Fledgling', 2, 2005],
      ['His Master’s Voice', 3, 1968],
      ['The Other Wind', 1, 2001],
      ['Dawn', 2, null],
    ];
    await d.insertInto('rq_book').values(books.map(([title, author_id, year]) => ({ title, author_id, year }))).execute();
    // Counts what the app's own executor compiles (its compileQuery remembers the last compile, see src/db/direct.ts).
    compiles = 0;
    const executor = database.db.getExecutor();
    const compile = executor.compileQuery.bind(executor);
    (executor as { compileQuery: typeof executor.compileQuery }).compileQuery = (node, queryId) => {
      compiles++;
      return compile(node, queryId);
    };
    app = await createApp({ database, logger: false, routes: routes() });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await database.close();
  });

  async function get(prefix: string, path: string) {
    return normalise(prefix, await app.inject({ url: `/api/${prefix}/${path}` }));
  }

  it('answers every request as the views that build their queries afresh, each time it is asked', async () => {
    for (let round = 0; round < 2; round++) {
      for (const path of REQUESTS) {
        const expected = await get('fresh', path);
        for (const prefix of ['books', 'plugged', 'trx', 'declared', 'books']) {
          expect({ prefix, path, ...(await get(prefix, path)) }).toEqual({ prefix, path, ...expected });
        }
      }
    }
    // Some answers of the list above, as DRF gives them.
    const page2 = JSON.parse((await get('books', '?ordering=-year&page=2')).body);
    expect(page2.results.map((b: { id: number }) => b.id)).toEqual([11, 8, 4]); // NULLs first descending, then 2005, 2001, 2000, 1993
    expect(page2.next).toBe('http://localhost:80/api/X/?ordering=-year&page=3');
    expect((await get('books', '1/?search=zzz')).status).toBe(404);
    expect(JSON.parse((await get('books', '1/?search=zzz')).body)).toEqual({ detail: 'No Book matches the given query.' });
    expect(JSON.parse((await get('books', '7/')).body)).toEqual({ id: 7, title: 'Fiasco', author: 3, year: 1986 });
    expect(JSON.parse((await get('books', '?author=999')).body)).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('reuses the ordering per view and per ordering, and a narrowed queryset answers as a fresh one', async () => {
    for (let round = 0; round < 2; round++) {
      for (const path of REQUESTS) {
        expect({ path, ...(await get('by-year', path)) }).toEqual({ path, ...(await get('fresh-by-year', path)) });
        expect({ path, ...(await get('narrowed', path)) }).toEqual({ path, ...(await get('fresh-narrowed', path)) });
        // Interleaved with another view over the same table: each keeps its own.
        expect({ path, ...(await get('books', path)) }).toEqual({ path, ...(await get('fresh', path)) });
      }
    }
    const byYear = JSON.parse((await get('by-year', '')).body);
    expect(byYear.results.map((b: { year: number | null }) => b.year)).toEqual([null, null, 2005]);
    expect(byYear.results.map((b: { title: string }) => b.title).slice(0, 2)).toEqual(['Dawn', 'The Cyberiad']);
    const books = JSON.parse((await get('books', '')).body);
    expect(books.results.map((b: { id: number }) => b.id)).toEqual([1, 2, 3]);
  });

  it('compiles nothing for a detail or a page once the view has answered it, while a fresh builder is compiled every time', async () => {
    for (const path of ['7/', '?page=2', '?ordering=-year&page=2', '7/?ordering=title']) {
      await get('books', path);
      await get('books', path);
      compiles = 0;
      const again = await get('books', path);
      expect(again.status).toBe(200);
      expect({ path, compiles }).toEqual({ path, compiles: 0 });
      await get('fresh', path);
      await get('fresh', path);
      compiles = 0;
      await get('fresh', path);
      expect(compiles).toBeGreaterThan(0);
    }
    // Another lookup value and another page are bound into what was compiled.
    compiles = 0;
    expect(JSON.parse((await get('books', '8/')).body).title).toBe('The Telling');
    expect(JSON.parse((await get('books', '?page=3')).body).results.map((b: { id: number }) => b.id)).toEqual([7, 8, 9]);
    expect(compiles).toBe(0);
    // A parameter of a filter makes a new builder, compiled as before.
    await get('books', '7/?year__gte=1900');
    expect(compiles).toBeGreaterThan(0);
  });

  it('a declared queryset is built once per database and compiled once per shape, with or without a model', async () => {
    for (const [prefix, path] of [['declared', '7/'], ['declared', '?page=2'], ['declared', '?ordering=-year&page=2'], ['titles', '?page=2'], ['titles', '3/']] as const) {
      await get(prefix, path);
      await get(prefix, path);
      compiles = 0;
      const again = await get(prefix, path);
      expect(again.status).toBe(200);
      expect({ prefix, path, compiles }).toEqual({ prefix, path, compiles: 0 });
    }
    const titles = await app.inject({ url: '/api/titles/?page=2' });
    expect([titles.statusCode, titles.headers['content-type'], JSON.parse(titles.body)]).toEqual([
      200,
      'application/json',
      {
        count: 12,
        next: 'http://localhost:80/api/titles/?page=3',
        previous: 'http://localhost:80/api/titles/',
        results: [
          { id: 10, title: 'His Master’s Voice' },
          { id: 3, title: 'Kindred' },
          { id: 4, title: 'Parable of the Sower' },
        ],
      },
    ]);
    const one = await app.inject({ url: '/api/titles/5/' });
    expect([one.statusCode, JSON.parse(one.body)]).toEqual([200, { id: 5, title: 'Solaris' }]);
    const missing = await app.inject({ url: '/api/titles/99/' });
    expect([missing.statusCode, JSON.parse(missing.body)]).toEqual([404, { detail: 'No object matches the given query.' }]);
    // A row added since is seen through the kept builder.
    await (database.db as AnyDb).insertInto('rq_book').values({ title: 'Always Coming Home', author_id: 1, year: 1985 }).execute();
    expect(JSON.parse((await app.inject({ url: '/api/titles/13/' })).body)).toEqual({ id: 13, title: 'Always Coming Home' });
    expect(JSON.parse((await app.inject({ url: '/api/titles/' })).body).results[0]).toEqual({ id: 13, title: 'Always Coming Home' });
    expect(JSON.parse((await app.inject({ url: '/api/titles/' })).body).count).toBe(13);
  });

  it('cursor pages of a reused builder compile nothing once learnt, and answer as a fresh builder', async () => {
    const walk = async (prefix: string) => {
      const pages: unknown[] = [];
      let url: string | null = `/api/${prefix}/`;
      while (url !== null) {
        const res = await app.inject({ url });
        expect(res.statusCode).toBe(200);
        const body = JSON.parse(res.body) as { next: string | null };
        // A cursor is signed for its path: compared without the signature.
        pages.push(JSON.parse(res.body.replaceAll(`/api/${prefix}/`, '/api/X/').replace(/(cursor=[^."]*)\.[^&"]*/g, '$1')));
        url = body.next === null ? null : body.next.replace('http://localhost:80', '');
      }
      return pages;
    };
    const fresh = await walk('fresh-cursor');
    expect(fresh).toHaveLength(3);
    expect(await walk('cursor')).toEqual(fresh);
    compiles = 0;
    expect(await walk('cursor')).toEqual(fresh);
    expect(compiles).toBe(0);
    await walk('fresh-cursor');
    expect(compiles).toBeGreaterThan(0);
    expect((fresh[0] as { results: { id: number }[] }).results.map((b) => b.id)).toEqual([12, 11, 10, 9]);
  });

  it('a capped count of a reused builder compiles nothing once learnt, and answers as a fresh builder', async () => {
    for (const path of ['', '?page=2', '?page=4', '?page=5', '?ordering=-year&page=2', '?year__gte=1990', '?author=2&page=2']) {
      const expected = await get('fresh-capped', path);
      expect({ path, ...(await get('capped', path)) }).toEqual({ path, ...expected });
      compiles = 0;
      expect({ path, ...(await get('capped', path)) }).toEqual({ path, ...expected });
      // Without a filter the builder is the reused one: nothing is compiled the second time.
      if (path === '' || path.startsWith('?page=')) expect({ path, compiles }).toEqual({ path, compiles: 0 });
    }
    const first = JSON.parse((await get('capped', '')).body);
    expect([first.count, first.next, first.results.map((b: { id: number }) => b.id)]).toEqual([5, 'http://localhost:80/api/X/?page=2', [1, 2, 3]]);
  });

  it('a row added or removed between requests is seen by the reused queries', async () => {
    await get('books', '13/');
    await get('books', '?page=5');
    expect((await get('books', '13/')).status).toBe(404);
    await (database.db as AnyDb).insertInto('rq_book').values({ title: 'Always Coming Home', author_id: 1, year: 1985 }).execute();
    expect(JSON.parse((await get('books', '13/')).body)).toEqual({ id: 13, title: 'Always Coming Home', author: 1, year: 1985 });
    const last = JSON.parse((await get('books', '?page=5')).body);
    expect([last.count, last.results.map((b: { id: number }) => b.id)]).toEqual([13, [13]]);
    await (database.db as AnyDb).deleteFrom('rq_book').where('id', '=', 13).execute();
    expect((await get('books', '13/')).status).toBe(404);
    expect((await get('books', '?page=5')).status).toBe(404);
  });
  it("a related key is looked up by the table's reused builder, as on a database with a plug-in", async () => {
    const pluggedApp = await createApp({ database: { ...database, db: database.db.withPlugin(passThrough) }, logger: false, routes: routes() });
    await pluggedApp.ready();
    try {
      const bodies = [
        { title: 'Lilith’s Brood', author: 2, year: 2000 },
        { title: 'Nowhere', author: 999, year: 2000 },
        { title: 'Nowhere', author: 'abc', year: 2000 },
        { title: 'Nowhere', author: null, year: 2000 },
        { title: 'Nowhere', author: 1.5, year: 2000 },
        { title: 'Eden', author: 3, year: 1959 },
      ];
      for (let round = 0; round < 2; round++) {
        for (const body of bodies) {
          const answers = [];
          for (const target of [app, pluggedApp]) {
            compiles = 0;
            const res = await target.inject({ method: 'POST', url: '/api/books/', payload: body });
            const json = JSON.parse(res.body) as Record<string, unknown>;
            delete json['id'];
            answers.push({ status: res.statusCode, json });
          }
          expect(answers[0]).toEqual(answers[1]);
        }
      }
      // Once learnt, the author's lookup compiles nothing: only the insert is compiled.
      compiles = 0;
      const refused = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Nowhere', author: 998, year: 2000 } });
      expect([refused.statusCode, JSON.parse(refused.body)]).toEqual([400, { author: ['Invalid pk "998" - object does not exist.'] }]);
      expect(compiles).toBe(0);
    } finally {
      await pluggedApp.close();
    }
  });
});
