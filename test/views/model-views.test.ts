/**
 * Model views: a viewset with `model` and a model-saving serializer lists,
 * retrieves, creates, updates and deletes rows with no `getQueryset` and no
 * `perform*` of its own; each write is one transaction; related rows are
 * loaded for a whole page in one query per relation, so a page of 20 costs
 * the same number of statements as a page of 5.
 */
import { Writable } from 'node:stream';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApp,
  DefaultRouter,
  field,
  generateOpenAPI,
  hyperlinkedIdentity,
  include,
  integer,
  LimitOffsetPagination,
  list,
  ModelViewSet,
  model,
  modelSerializer,
  ModelSerializer,
  nested,
  runChecks,
  serializer,
  string,
  createModel,
  migration,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import type { SaveContext } from '../../src/models/index.js';
import { testDatabases } from '../helpers/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

const Publisher = model('mv_publisher', { name: field.char({ maxLength: 100 }) });
const Author = model('mv_author', {
  name: field.char({ maxLength: 100 }),
  publisher: field.foreignKey(() => Publisher, { onDelete: 'cascade', null: true }),
});
const Tag = model('mv_tag', { name: field.char({ maxLength: 20 }) });
const Book = model(
  'mv_book',
  {
    title: field.char({ maxLength: 100, unique: true }),
    slug: field.slug({ unique: true }),
    author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
    year: field.integer({ null: true }),
    tags: field.manyToMany(() => Tag),
  },
  { ordering: ['-year', 'id'] },
);
/** A relation to itself, loaded two levels up. */
const Category = model('mv_category', {
  name: field.char({ maxLength: 20 }),
  parent: field.foreignKey('self', { onDelete: 'cascade', null: true }),
}, { ordering: ['id'] });
/** Keyed by a uuid: the lookup converter follows the key's kind. */
const Token = model('mv_token', { key: field.uuid({ primaryKey: true }), note: field.char({ maxLength: 20 }) });

const initial = migration({
  operations: [Publisher, Author, Tag, Book, Token, Category].map((m) => createModel(m.tableName, m.fields, m.meta)),
});
const tags = Book.fields.tags;
const JOIN = tags.throughTable();
const SOURCE = tags.sourceColumn();
const TARGET = tags.targetColumn();

const db = (req: ApiRequest): AnyDb => req.app.services.get('db') as unknown as AnyDb;

const TagSerializer = serializer({ id: integer({ readOnly: true }), name: string() });
const PublisherSerializer = serializer({ id: integer({ readOnly: true }), name: string() });
const AuthorSerializer = serializer({
  id: integer({ readOnly: true }),
  name: string(),
  publisher: nested(PublisherSerializer, { readOnly: true, allowNull: true }),
});

/** A model serializer that also writes the book's tags, after the row, on the same connection. */
class BookWithTags extends ModelSerializer<typeof Book> {
  override async create(d: AnyDb, data: Row, ctx: SaveContext) {
    const { tag_ids: ids, ...rest } = data;
    const row = await super.create(d, rest, ctx);
    // A tag that does not exist fails the join row, and the book with it.
    if (Array.isArray(ids) && ids.length > 0) await d.insertInto(JOIN).values(ids.map((id) => ({ [SOURCE]: row.id, [TARGET]: id }))).execute();
    return row;
  }
}

const BookSerializer = new BookWithTags(Book, {
  fields: ['url', 'id', 'title', 'slug', 'year', 'author', 'author_detail', 'tags', 'tag_ids'],
  declared: {
    url: hyperlinkedIdentity({ viewName: 'book-detail', lookupField: 'slug' }),
    // No UniqueValidator: the database alone refuses a taken title, as in a race past the validator.
    title: string({ maxLength: 100 }),
    author_detail: nested(AuthorSerializer, { source: 'author', readOnly: true }),
    tags: list(nested(TagSerializer), { readOnly: true }),
    tag_ids: list(integer(), { writeOnly: true, required: false }),
  },
});

class BookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = BookSerializer as never;
  override lookupField = 'slug';
  override selectRelated = ['author__publisher'];
  override prefetchRelated = ['tags'];
}

/** The model serializer alone: its many-to-many list is written by it and loaded by the view (`relatedToLoad()`). */
class TaggedBookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = modelSerializer(Book, { fields: ['id', 'title', 'slug', 'author', 'tags'] }) as never;
  override lookupField = 'slug';
}

/** Narrows the model's queryset, as `super().get_queryset().filter(…)`. */
class RecentBookViewSet extends BookViewSet {
  override getQueryset(req: ApiRequest) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (super.getQueryset(req) as any).where('year', '>=', 2000);
  }
}

/** `depth: 1`: the serializer's `relatedToLoad()` names the publisher, the view loads it. */
class AuthorViewSet extends ModelViewSet {
  override model = Author;
  override serializer = modelSerializer(Author, { depth: 1 }) as never;
}

/** A serializer that cannot save rows: reads work, writes are a configuration error. */
class PublisherViewSet extends ModelViewSet {
  override model = Publisher;
  override serializer = PublisherSerializer as never;
}

const ParentSerializer = serializer({ id: integer(), name: string() });
class CategoryViewSet extends ModelViewSet {
  override model = Category;
  override serializer = serializer({
    id: integer({ readOnly: true }),
    name: string(),
    parent: nested(serializer({ id: integer(), name: string(), parent: nested(ParentSerializer, { allowNull: true }) }), { readOnly: true, allowNull: true }),
  }) as never;
  override selectRelated = ['parent__parent'];
}

class TokenViewSet extends ModelViewSet {
  override model = Token;
}

function routes() {
  const router = new DefaultRouter();
  router.register('books', BookViewSet, { basename: 'book' });
  router.register('recent', RecentBookViewSet, { basename: 'recent' });
  router.register('authors', AuthorViewSet, { basename: 'author' });
  router.register('tokens', TokenViewSet, { basename: 'token' });
  router.register('publishers', PublisherViewSet, { basename: 'publisher' });
  router.register('tagged', TaggedBookViewSet, { basename: 'tagged' });
  router.register('categories', CategoryViewSet, { basename: 'category' });
  return [include('api/', router.urls)];
}

/** Counts the statements run on the app's database (a plug-in sees every query, in transactions too). */
function counted(database: Database): { database: Database; statements: string[] } {
  const statements: string[] = [];
  const pending = new Map<unknown, string>();
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      pending.set(args.queryId, args.node.kind);
      return args.node;
    },
    transformResult: async (args) => {
      statements.push(pending.get(args.queryId) ?? '?');
      pending.delete(args.queryId);
      return args.result;
    },
  };
  return { database: { ...database, db: database.db.withPlugin(counter) }, statements };
}

describe.each(testDatabases())('model views on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let statements: string[];
  /** Error log lines (a 500's cause). */
  let errors: string[];

  beforeEach(async () => {
    const raw = await open();
    // The operations themselves, without the migrator (whose catalogue reads meet other runs' schemas).
    await initial.from({}).up(raw.db);
    const d = raw.db as AnyDb;
    const [press] = await d.insertInto('mv_publisher').values([{ name: 'Gollancz' }]).returningAll().execute();
    const authors = await d
      .insertInto('mv_author')
      .values([
        { name: 'Le Guin', publisher_id: press!.id },
        { name: 'Herbert', publisher_id: null },
      ])
      .returningAll()
      .execute();
    const books: Row[] = [];
    for (let i = 1; i <= 24; i++) books.push({ title: `Book ${i}`, slug: `book-${i}`, author_id: authors[i % 2]!.id, year: 1990 + i });
    await d.insertInto('mv_book').values(books).execute();
    await d.insertInto('mv_tag').values([{ name: 'sf' }, { name: 'classic' }, { name: 'desert' }]).execute();
    // Book n has the tags whose id divides n + 1 … (book 24: none; book 23: 1, 2, 3; book 22: 1).
    const pairs: Row[] = [];
    for (let n = 1; n <= 23; n++) for (const t of [3, 2, 1]) if ((n + 1) % t === 0) pairs.push({ [SOURCE]: n, [TARGET]: t });
    await d.insertInto(JOIN).values(pairs).execute();
    await d.insertInto('mv_category').values({ name: 'fiction', parent_id: null }).execute();
    await d.insertInto('mv_category').values({ name: 'sf', parent_id: 1 }).execute();
    await d.insertInto('mv_category').values({ name: 'space opera', parent_id: 2 }).execute();
    const c = counted(raw);
    database = c.database;
    statements = c.statements;
    database.close = raw.close;
    errors = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        if ((JSON.parse(chunk.toString()) as { level: number }).level >= 50) errors.push(chunk.toString());
        cb();
      },
    });
    app = await createApp({
      database,
      logger: { level: 'error', stream },
      settings: { DEFAULT_PAGINATION_CLASS: LimitOffsetPagination, PAGE_SIZE: 5 },
      routes: routes(),
    });
    await app.ready();
    // The start-up checks read the catalogue once: warm up before counting.
    await app.inject({ url: '/api/books/?limit=1' });
  });

  afterEach(async () => {
    await app.close();
    await database.close();
  });

  const bookCount = async () => Number((await sql<{ n: number }>`select count(*) as n from mv_book`.execute(database.db)).rows[0]!.n);

  it('lists rows in meta.ordering, with the author and its publisher attached', async () => {
    const res = await app.inject({ url: '/api/books/?limit=2' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      count: 24,
      next: 'http://localhost:80/api/books/?limit=2&offset=2',
      previous: null,
      results: [
        {
          url: 'http://localhost:80/api/books/book-24/',
          id: 24,
          title: 'Book 24',
          slug: 'book-24',
          year: 2014,
          author: 1,
          author_detail: { id: 1, name: 'Le Guin', publisher: { id: 1, name: 'Gollancz' } },
          tags: [],
        },
        {
          url: 'http://localhost:80/api/books/book-23/',
          id: 23,
          title: 'Book 23',
          slug: 'book-23',
          year: 2013,
          author: 2,
          author_detail: { id: 2, name: 'Herbert', publisher: null },
          tags: [
            { id: 1, name: 'sf' },
            { id: 2, name: 'classic' },
            { id: 3, name: 'desert' },
          ],
        },
      ],
    });
  });

  it('a page of 20 costs the statements a page of 5 does: one per relation, not one per row', async () => {
    statements.length = 0;
    const five = await app.inject({ url: '/api/books/?limit=5' });
    const small = statements.splice(0);
    const twenty = await app.inject({ url: '/api/books/?limit=20' });
    const large = statements.splice(0);
    expect(five.statusCode).toBe(200);
    expect(twenty.statusCode).toBe(200);
    expect(five.json().results).toHaveLength(5);
    expect(twenty.json().results).toHaveLength(20);
    expect(twenty.json().results.every((b: Row) => (b['author_detail'] as Row)['name'] !== undefined && Array.isArray(b['tags']))).toBe(true);
    expect(twenty.json().results.map((b: Row) => (b['tags'] as Row[]).map((t) => t['id']))).toEqual(
      Array.from({ length: 20 }, (_, i) => [1, 2, 3].filter((t) => 24 - i <= 23 && (25 - i) % t === 0)),
    );
    // count, page, authors, publishers, tags.
    expect(small).toEqual(['SelectQueryNode', 'SelectQueryNode', 'SelectQueryNode', 'SelectQueryNode', 'SelectQueryNode']);
    expect(large).toEqual(small);
    // A detail: the row, its author, the author's publisher, its tags.
    const detail = await app.inject({ url: '/api/books/book-8/' });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().author_detail).toEqual({ id: 1, name: 'Le Guin', publisher: { id: 1, name: 'Gollancz' } });
    expect(detail.json().tags).toEqual([
      { id: 1, name: 'sf' },
      { id: 3, name: 'desert' },
    ]);
    expect(statements.splice(0)).toHaveLength(4);
    // No publisher to load (a null key): no query for it.
    const herbert = await app.inject({ url: '/api/books/book-7/' });
    expect(herbert.json().author_detail).toEqual({ id: 2, name: 'Herbert', publisher: null });
    expect(statements.splice(0)).toHaveLength(3);
  });

  it("a model serializer's many-to-many list: loaded per page in one query, written and replaced in the request's transaction", async () => {
    statements.length = 0;
    const five = await app.inject({ url: '/api/tagged/?limit=5' });
    const small = statements.splice(0);
    const twenty = await app.inject({ url: '/api/tagged/?limit=20' });
    const large = statements.splice(0);
    expect(five.statusCode).toBe(200);
    expect(twenty.json().results).toHaveLength(20);
    expect(twenty.json().results.slice(0, 3)).toEqual([
      { id: 24, title: 'Book 24', slug: 'book-24', author: 1, tags: [] },
      { id: 23, title: 'Book 23', slug: 'book-23', author: 2, tags: [1, 2, 3] },
      { id: 22, title: 'Book 22', slug: 'book-22', author: 1, tags: [1] },
    ]);
    // count, page, tags.
    expect(small).toHaveLength(3);
    expect(large).toEqual(small);

    const joinRows = async () => (await (database.db as AnyDb).selectFrom(JOIN).selectAll().execute()).length;
    const before = await joinRows();
    const created = await app.inject({ method: 'POST', url: '/api/tagged/', payload: { title: 'Dune', slug: 'dune', author: 2, tags: [3, 1] } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: 25, title: 'Dune', slug: 'dune', author: 2, tags: [1, 3] });
    expect(await joinRows()).toBe(before + 2);
    const patched = await app.inject({ method: 'PATCH', url: '/api/tagged/dune/', payload: { tags: [2] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ id: 25, title: 'Dune', slug: 'dune', author: 2, tags: [2] });
    expect(await joinRows()).toBe(before + 1);
    const refused = await app.inject({ method: 'POST', url: '/api/tagged/', payload: { title: 'Nope', slug: 'nope', author: 2, tags: [99] } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ tags: ['Invalid pk "99" - object does not exist.'] });
    expect(await bookCount()).toBe(25);
  });

  it('a write of one statement runs without a transaction; a many-to-many list or an overridden create opens one', async () => {
    const kysely = database.db as AnyDb;
    let opened = 0;
    const transaction = kysely.transaction.bind(kysely);
    Object.assign(kysely, {
      transaction: () => {
        opened++;
        return transaction();
      },
    });
    statements.length = 0;
    const created = await app.inject({ method: 'POST', url: '/api/authors/', payload: { name: 'Lem' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: 3, name: 'Lem', publisher: null });
    expect(statements).toEqual(['InsertQueryNode']);
    statements.length = 0;
    const patched = await app.inject({ method: 'PATCH', url: '/api/tagged/book-24/', payload: { title: 'Dune' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ id: 24, title: 'Dune', slug: 'book-24', author: 1, tags: [] });
    // The row, the title's uniqueness, the update, then the tags the representation reads.
    expect(statements).toEqual(['SelectQueryNode', 'SelectQueryNode', 'UpdateQueryNode', 'SelectQueryNode']);
    const taken = await app.inject({ method: 'PATCH', url: '/api/tagged/book-24/', payload: { title: 'Book 3' } });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toEqual({ title: ['book with this title already exists.'] });
    expect(opened).toBe(0);

    const tagged = await app.inject({ method: 'PATCH', url: '/api/tagged/book-24/', payload: { tags: [3, 1] } });
    expect(tagged.statusCode).toBe(200);
    expect(tagged.json()).toEqual({ id: 24, title: 'Dune', slug: 'book-24', author: 1, tags: [1, 3] });
    expect(opened).toBe(1);
    // BookWithTags overrides create: its second statement needs the transaction.
    const overridden = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Emma', slug: 'emma', author: 1 } });
    expect(overridden.statusCode).toBe(201);
    expect(overridden.headers['location']).toBe('http://localhost:80/api/books/emma/');
    expect(opened).toBe(2);
    expect(await bookCount()).toBe(25);
  });

  it('a relation to itself loads level by level, one query per level', async () => {
    statements.length = 0;
    const res = await app.inject({ url: '/api/categories/' });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      { id: 1, name: 'fiction', parent: null },
      { id: 2, name: 'sf', parent: { id: 1, name: 'fiction', parent: null } },
      { id: 3, name: 'space opera', parent: { id: 2, name: 'sf', parent: { id: 1, name: 'fiction' } } },
    ]);
    // count, page, parents, their parents.
    expect(statements).toHaveLength(4);
  });

  it('retrieves by the lookup field; a missing one is a 404 naming the model', async () => {
    const res = await app.inject({ url: '/api/books/book-3/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 3, slug: 'book-3', author: 2, author_detail: { id: 2, name: 'Herbert' } });
    const missing = await app.inject({ url: '/api/books/no-such-book/' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    expect(missing.json()).toEqual({ detail: 'No Book matches the given query.' });
  });

  it('the default lookup is the primary key, converted by its kind', async () => {
    const res = await app.inject({ url: '/api/authors/1/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 1, name: 'Le Guin', publisher: { id: 1, name: 'Gollancz' } });
    const notInt = await app.inject({ url: '/api/authors/abc/' });
    expect(notInt.statusCode).toBe(404);
    expect(notInt.json()).toEqual({ detail: 'No Author matches the given query.' });
    const key = '6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f';
    await (database.db as AnyDb).insertInto('mv_token').values({ key, note: 'hi' }).execute();
    const token = await app.inject({ url: `/api/tokens/${key}/` });
    expect(token.statusCode).toBe(200);
    expect(token.json()).toEqual({ key, note: 'hi' });
    const notUuid = await app.inject({ url: '/api/tokens/1/' });
    expect(notUuid.statusCode).toBe(404);
    expect(notUuid.json()).toEqual({ detail: 'No Token matches the given query.' });
  });

  it('OpenAPI types the lookup parameter by the lookup field', async () => {
    const doc = generateOpenAPI(app);
    const param = (p: string) => doc.paths[p]!.get!.parameters!.find((x) => 'in' in x && x.in === 'path');
    expect(param('/api/authors/{pk}/')).toEqual({ name: 'pk', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } });
    expect(param('/api/tokens/{pk}/')).toEqual({ name: 'pk', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
    expect(param('/api/books/{pk}/')).toMatchObject({ name: 'pk', in: 'path', required: true, schema: { type: 'string' } });
  });

  it('an override narrows the model queryset', async () => {
    const res = await app.inject({ url: '/api/recent/?limit=100' });
    expect(res.statusCode).toBe(200);
    expect(res.json().count).toBe(15);
    expect(res.json().results.map((b: Row) => b['year'])).toEqual(Array.from({ length: 15 }, (_, i) => 2014 - i));
    const outside = await app.inject({ url: '/api/recent/book-1/' });
    expect(outside.statusCode).toBe(404);
  });

  it('creates through the serializer in one transaction: 201, Location, the related rows rendered', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Dune', slug: 'dune', year: 1965, author: 2, tag_ids: [3, 1] } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['location']).toBe('http://localhost:80/api/books/dune/');
    expect(res.json()).toEqual({
      url: 'http://localhost:80/api/books/dune/',
      id: 25,
      title: 'Dune',
      slug: 'dune',
      year: 1965,
      author: 2,
      author_detail: { id: 2, name: 'Herbert', publisher: null },
      tags: [
        { id: 1, name: 'sf' },
        { id: 3, name: 'desert' },
      ],
    });
    expect(await bookCount()).toBe(25);
  });

  it('updates (PUT) and partially updates (PATCH) through the serializer', async () => {
    const put = await app.inject({ method: 'PUT', url: '/api/books/book-1/', payload: { title: 'One', slug: 'one', year: null, author: 1 } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({
      url: 'http://localhost:80/api/books/one/',
      id: 1,
      title: 'One',
      slug: 'one',
      year: null,
      author: 1,
      author_detail: { id: 1, name: 'Le Guin', publisher: { id: 1, name: 'Gollancz' } },
      tags: [
        { id: 1, name: 'sf' },
        { id: 2, name: 'classic' },
      ],
    });
    const patch = await app.inject({ method: 'PATCH', url: '/api/books/one/', payload: { year: 1999 } });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()).toMatchObject({ id: 1, title: 'One', year: 1999, author: 1, author_detail: { id: 1 } });
    const missing = await app.inject({ method: 'PATCH', url: '/api/books/book-1/', payload: { year: 1 } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'No Book matches the given query.' });
  });

  it('destroys by primary key: 204, and rows referring to it go as onDelete says', async () => {
    const joinRows = async () => (await (database.db as AnyDb).selectFrom(JOIN).selectAll().where(SOURCE, '=', 2).execute()).length;
    expect(await joinRows()).toBe(2);
    const res = await app.inject({ method: 'DELETE', url: '/api/books/book-2/' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await bookCount()).toBe(23);
    // Its join rows went with it, in the database.
    expect(await joinRows()).toBe(0);
    expect((await app.inject({ url: '/api/books/book-2/' })).statusCode).toBe(404);
    const author = await app.inject({ method: 'DELETE', url: '/api/authors/1/' });
    expect(author.statusCode).toBe(204);
    // Le Guin's other eleven books went with her.
    expect(await bookCount()).toBe(12);
  });

  it('a constraint the database enforces inside the transaction is a 400 and writes nothing', async () => {
    // No UniqueValidator on title: only the database refuses the second "Book 1".
    const res = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Book 1', slug: 'again', author: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ title: ['This field must be unique.'] });
    expect(await bookCount()).toBe(24);
    // The same in an update: the row keeps its values.
    const put = await app.inject({ method: 'PATCH', url: '/api/books/book-1/', payload: { title: 'Book 2', year: 1 } });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toEqual({ title: ['This field must be unique.'] });
    const kept = await app.inject({ url: '/api/books/book-1/' });
    expect(kept.json()).toMatchObject({ title: 'Book 1', year: 1991 });
  });

  it('a failing many-to-many write (a join row to a missing tag) rolls the row back', async () => {
    const joinCount = async () => (await (database.db as AnyDb).selectFrom(JOIN).selectAll().execute()).length;
    const before = await joinCount();
    const res = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Orphan', slug: 'orphan', author: 1, tag_ids: [1, 99] } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(await bookCount()).toBe(24);
    expect(await joinCount()).toBe(before);
    const ok = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Orphan', slug: 'orphan', author: 1, tag_ids: [1] } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().tags).toEqual([{ id: 1, name: 'sf' }]);
    expect(await bookCount()).toBe(25);
    expect(await joinCount()).toBe(before + 1);
  });

  it('a model view whose serializer cannot save rows refuses writes with a configuration error', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/publishers/', payload: { name: 'Tor' } });
    expect(res.statusCode).toBe(500);
    expect(errors.join('\n')).toContain(
      'PublisherViewSet has model Publisher but its serializer cannot save rows: give it a model serializer (modelSerializer(Publisher, …)) or override performCreate().',
    );
    const count = (await sql<{ n: number }>`select count(*) as n from mv_publisher`.execute(database.db)).rows[0]!.n;
    expect(Number(count)).toBe(1);
  });

  it('two creates racing for one title: one 201, one 400, one row', async () => {
    const post = (slug: string) => app.inject({ method: 'POST', url: '/api/books/', payload: { title: 'Solaris', slug, author: 1 } });
    const results = await Promise.all([post('solaris-a'), post('solaris-b')]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.statusCode === 400)!.json()).toEqual({ title: ['This field must be unique.'] });
    expect(await bookCount()).toBe(25);
  });
});

describe.each(testDatabases().slice(0, 1))('related names in the system checks on $name', ({ open }) => {
  it('a selectRelated or prefetchRelated name that is not a relation is an error with a "did you mean"', async () => {
    class Misnamed extends ModelViewSet {
      override model = Book;
      override selectRelated = ['autor', 'author__publsher', 'title', 'tags'];
      override prefetchRelated = ['author', 'tags', 'tgas'];
    }
    class NoModel extends ModelViewSet {
      override selectRelated = ['author'];
      override getQueryset() {
        return [];
      }
    }
    /** Its serializer writes authors. */
    class Crossed extends ModelViewSet {
      override model = Book;
      override serializer = modelSerializer(Author) as never;
    }
    /** No model: it loads nothing, and its serializer's relations are its own business. */
    class NestedWithoutModel extends ModelViewSet {
      override serializer = modelSerializer(Book, { fields: ['id', 'author'], depth: 1 }) as never;
      override getQueryset() {
        return [];
      }
    }
    const database = await open();
    const router = new DefaultRouter();
    router.register('books', Misnamed, { basename: 'book' });
    router.register('plain', NoModel, { basename: 'plain' });
    router.register('nested', NestedWithoutModel, { basename: 'nested' });
    router.register('crossed', Crossed, { basename: 'crossed' });
    const app = await createApp({ database, logger: false, routes: [include('api/', router.urls)] });
    try {
      const messages = (await runChecks(app, { tags: ['views'] })).filter((m) => m.id?.startsWith('views.'));
      expect(messages.map((m) => [m.id, m.msg, m.hint])).toEqual([
        ['views.E002', "'selectRelated' names 'autor', which is not a field of model Book (table 'mv_book').", "Did you mean 'author'?"],
        ['views.E002', "'selectRelated' names 'publsher' (in 'author__publsher'), which is not a field of model Author (table 'mv_author').", "Did you mean 'publisher'?"],
        ['views.E002', "'selectRelated' names 'title', which is not a relation of model Book (table 'mv_book').", "Its relations are: 'author'."],
        [
          'views.E002',
          "'selectRelated' names 'tags', which is a many-to-many field of model Book (table 'mv_book'): many-to-many fields go under 'prefetchRelated'.",
          "Move 'tags' to 'prefetchRelated'.",
        ],
        ['views.E002', "'prefetchRelated' names 'tgas', which is not a field of model Book (table 'mv_book').", "Did you mean 'tags'?"],
        ['views.E003', "'selectRelated' names 'author', but the view has no model whose relations it could load.", "Set the view's model (model = Book)."],
        [
          'views.E004',
          "'serializer' saves rows of model Author (table 'mv_author'), but the view's model is Book (table 'mv_book').",
          'Give the view model = Author, or a serializer of Book.',
        ],
      ]);
      expect(messages[0]!.obj).toBe("Misnamed at /api/books/ (name 'book-list')");
    } finally {
      await app.close();
      await database.close();
    }
  });
});
