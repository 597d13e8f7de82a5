/**
 * A model view's create leaves the related author's read to the insert —
 * on SQLite to its foreign key, on PostgreSQL to a guard in the insert
 * itself — where nothing else sees the validated author (see
 * src/serializers/deferred-lookups.ts), and answers exactly as when it
 * reads: the field's own `does_not_exist` among the other fields' errors in
 * field order, nothing written, the next id unchanged. Where something else
 * does see it (a `validate`, a narrower queryset), and on SQLite where the
 * table has no constraint or the connection does not enforce it, the author
 * is read as before.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addIdColumn,
  createApp,
  createModel,
  DefaultRouter,
  field,
  include,
  migration,
  model,
  modelSerializer,
  ModelSerializer,
  ModelViewSet,
  ValidationError,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { DeferredLookups, insertGuards, RelatedRowMissing } from '../../src/serializers/deferred-lookups.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const Author = model('dl_author', { name: field.char({ maxLength: 50 }), country: field.char({ maxLength: 2 }) });
const Book = model('dl_book', {
  title: field.char({ maxLength: 20, unique: true }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
  year: field.integer(),
});
/** The same columns, in a table made without the foreign key (by hand, outside the migrations). */
const Loose = model('dl_loose', {
  title: field.char({ maxLength: 20 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
  year: field.integer(),
});

/** Unique together: a serializer-level validator, run only once every field passed. */
const Issue = model(
  'dl_issue',
  { author: field.foreignKey(() => Author, { onDelete: 'cascade' }), volume: field.integer(), number: field.integer() },
  { uniqueTogether: [['volume', 'number']] },
);

const initial = migration({ operations: [Author, Book, Issue].map((m) => createModel(m.tableName, m.fields, m.meta)) });

const db = (req: ApiRequest): AnyDb => req.app.services.get('db') as unknown as AnyDb;

/** Hyperlinked, as the example's books. */
class BookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = modelSerializer(Book, { hyperlinked: true, fields: ['url', 'id', 'title', 'author', 'year'], extraKwargs: { year: { minValue: 0 } } }) as never;
}

/** By primary key. */
class KeyedBookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = modelSerializer(Book, { fields: ['id', 'title', 'author', 'year'] }) as never;
}

/** A `validate` of its own reads the author's row: the lookup must run first. */
class CheckedSerializer extends ModelSerializer<typeof Book> {
  override validate(data: unknown, options?: object) {
    return super.validate(data, options).then((attrs) => {
      const author = (attrs as { author: { name?: string } }).author;
      if (author.name === undefined) throw new Error('the validated author has no name: its row was not read');
      if (author.name === 'Banned') throw new ValidationError({ non_field_errors: ['No books by this author.'] });
      return attrs;
    });
  }
}
class CheckedBookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = new CheckedSerializer(Book, { fields: ['id', 'title', 'author', 'year'] }) as never;
}

/** Only New Zealand's authors may be named: a row the foreign key would accept is refused by the queryset. */
class LocalBookViewSet extends ModelViewSet {
  override model = Book;
  override serializer = modelSerializer(Book, {
    fields: ['id', 'title', 'author', 'year'],
    extraKwargs: { author: { queryset: (req: ApiRequest) => db(req).selectFrom('dl_author').selectAll().where('country', '=', 'NZ') } },
  }) as never;
}

class LooseViewSet extends ModelViewSet {
  override model = Loose;
  override serializer = modelSerializer(Loose, { fields: ['id', 'title', 'author', 'year'] }) as never;
}

class IssueViewSet extends ModelViewSet {
  override model = Issue;
  override serializer = modelSerializer(Issue, { fields: ['id', 'author', 'volume', 'number'] }) as never;
}

class AuthorViewSet extends ModelViewSet {
  override model = Author;
}

function routes() {
  const router = new DefaultRouter();
  router.register('books', BookViewSet, { basename: 'book' });
  router.register('keyed', KeyedBookViewSet, { basename: 'keyed' });
  router.register('checked', CheckedBookViewSet, { basename: 'checked' });
  router.register('local', LocalBookViewSet, { basename: 'local' });
  router.register('loose', LooseViewSet, { basename: 'loose' });
  router.register('issues', IssueViewSet, { basename: 'issue' });
  router.register('authors', AuthorViewSet, { basename: 'author' });
  return [include('api/', router.urls)];
}

/**
 * The SQL run while recording: on SQLite every statement goes through
 * `prepare` (then `run`, `get`, `all` or `iterate`), on PostgreSQL through a
 * client's `query` (a query object's `text`).
 */
const ran: string[] = [];
const realPrepare = BetterSqlite3.prototype.prepare;
const realQuery = pg.Client.prototype.query;
beforeAll(() => {
  pg.Client.prototype.query = function recordingQuery(this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    if (typeof text === 'string') ran.push(text);
    return (realQuery as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof realQuery;
  BetterSqlite3.prototype.prepare = function recordingPrepare(this: BetterSqlite3.Database, source: string) {
    const stmt = realPrepare.call(this, source);
    const own = stmt as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const run = own[method]!;
      own[method] = function (this: unknown, ...args: unknown[]) {
        ran.push(source);
        return run.apply(this, args);
      };
    }
    return stmt;
  } as typeof realPrepare;
});
afterAll(() => {
  BetterSqlite3.prototype.prepare = realPrepare;
  pg.Client.prototype.query = realQuery;
});

describe.each(testDatabases())('a create and its related rows on $name', ({ name, open }) => {
  let database: Database;
  let app: TrestleApp;

  beforeEach(async () => {
    database = await open();
    await initial.from({}).up(database.db);
    const d = database.db as AnyDb;
    await addIdColumn(d, d.schema.createTable('dl_loose'))
      .addColumn('title', 'varchar(20)', (c) => c.notNull())
      .addColumn('author_id', 'integer', (c) => c.notNull())
      .addColumn('year', 'integer', (c) => c.notNull())
      .execute();
    await d
      .insertInto('dl_author')
      .values([
        { name: 'Le Guin', country: 'US' },
        { name: 'Mahy', country: 'NZ' },
        { name: 'Banned', country: 'NZ' },
      ])
      .execute();
    await d.insertInto('dl_book').values({ title: 'Taken', author_id: 1, year: 1969 }).execute();
    app = await createApp({ database, logger: false, routes: routes() });
    await app.ready();
    // The first create of a view reads what the connection says of its keys once.
    await post('/api/keyed/', { title: 'Warm', author: 2, year: 1 });
  });

  afterEach(async () => {
    await app.close();
    await database.close();
  });

  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(database.db)).rows[0]!.n);
  /** The statements one request runs. */
  async function statementsOf<T>(request: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    ran.length = 0;
    const result = await request();
    return { result, statements: ran.splice(0) };
  }
  /** Whether a statement of its own read authors (on PostgreSQL the insert's guard names the table too, inside the insert). */
  const readsAuthors = (statements: string[]) => statements.some((s) => /from "dl_author"/.test(s) && !/^insert /.test(s));

  it('creates with the author left to the insert, and answers as when it reads', async () => {
    const { result: res, statements } = await statementsOf(() => post('/api/books/', { title: 'Dune', author: 'http://localhost/api/authors/2/', year: 1965 }));
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['location']).toBe('http://localhost:80/api/books/3/');
    expect(res.json()).toEqual({ url: 'http://localhost:80/api/books/3/', id: 3, title: 'Dune', author: 'http://localhost:80/api/authors/2/', year: 1965 });
    expect(readsAuthors(statements)).toBe(false);
    const inserts = statements.filter((s) => /^insert into "dl_book"/.test(s));
    expect(inserts).toHaveLength(1);
    // SQLite's foreign key checks the author; PostgreSQL's insert finds it first, or writes nothing.
    expect(inserts[0]!.includes('where exists (select 1 from "dl_author" where "id" = $')).toBe(name === 'postgres');
    const stored = await sql<{ title: string; author_id: number; year: number }>`select title, author_id, year from dl_book where id = 3`.execute(database.db);
    expect(stored.rows).toEqual([{ title: 'Dune', author_id: 2, year: 1965 }]);
  });

  it("refuses a missing author with the field's own message, beside the other fields' errors in field order, writing nothing", async () => {
    const before = await count('dl_book');
    const alone = await statementsOf(() => post('/api/books/', { title: 'Ghost', author: '/api/authors/99/', year: 2000 }));
    expect(alone.result.statusCode).toBe(400);
    expect(alone.result.headers['content-type']).toBe('application/json');
    expect(alone.result.json()).toEqual({ author: ['Invalid hyperlink - Object does not exist.'] });
    expect(readsAuthors(alone.statements)).toBe(true);

    const withOthers = await post('/api/books/', { title: 'Taken', author: '/api/authors/99/', year: -1 });
    expect(withOthers.statusCode).toBe(400);
    expect(JSON.stringify(withOthers.json())).toBe(
      JSON.stringify({
        title: ['book with this title already exists.'],
        author: ['Invalid hyperlink - Object does not exist.'],
        year: ['Ensure this value is greater than or equal to 0.'],
      }),
    );

    const keyed = await post('/api/keyed/', { title: 'Ghost', author: -4, year: 2000 });
    expect(keyed.statusCode).toBe(400);
    expect(keyed.json()).toEqual({ author: ['Invalid pk "-4" - object does not exist.'] });
    const keyedText = await post('/api/keyed/', { title: 'Ghost', author: '99', year: 2000 });
    expect(keyedText.statusCode).toBe(400);
    expect(keyedText.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
    expect(await count('dl_book')).toBe(before);
  });

  it("answers a unique-together clash as DRF: alone when every field passed, not at all beside a missing author", async () => {
    const first = await statementsOf(() => post('/api/issues/', { author: 1, volume: 1, number: 1 }));
    expect(first.result.statusCode).toBe(201);
    expect(first.result.json()).toEqual({ id: 1, author: 1, volume: 1, number: 1 });
    expect(readsAuthors(first.statements)).toBe(false);
    const clash = await post('/api/issues/', { author: 2, volume: 1, number: 1 });
    expect(clash.statusCode).toBe(400);
    expect(clash.headers['content-type']).toBe('application/json');
    expect(clash.json()).toEqual({ non_field_errors: ['The fields volume, number must make a unique set.'] });
    const missing = await post('/api/issues/', { author: 99, volume: 1, number: 1 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
    const missingAlone = await post('/api/issues/', { author: 99, volume: 2, number: 1 });
    expect(missingAlone.statusCode).toBe(400);
    expect(missingAlone.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
    expect(await count('dl_issue')).toBe(1);
  });

  it('gives the next book the id DRF would after a refused create', async () => {
    const first = await post('/api/keyed/', { title: 'One', author: 1, year: 1 });
    expect(first.statusCode).toBe(201);
    expect((await post('/api/keyed/', { title: 'Two', author: 99, year: 1 })).statusCode).toBe(400);
    const next = await post('/api/keyed/', { title: 'Three', author: 1, year: 1 });
    expect(next.statusCode).toBe(201);
    expect(next.json()).toEqual({ id: first.json().id + 1, title: 'Three', author: 1, year: 1 });
  });

  it('takes a key in any form the lookup would, reading it where it is not canonical', async () => {
    const padded = await statementsOf(() => post('/api/books/', { title: 'Padded', author: '/api/authors/002/', year: 1 }));
    expect(padded.result.statusCode).toBe(201);
    expect(padded.result.json()).toMatchObject({ title: 'Padded', author: 'http://localhost:80/api/authors/2/' });
    expect(readsAuthors(padded.statements)).toBe(true);
    const text = await post('/api/keyed/', { title: 'Text', author: '2', year: 1 });
    expect(text.statusCode).toBe(201);
    expect(text.json()).toMatchObject({ title: 'Text', author: 2 });
  });

  it('reads a key the column could not hold, and refuses it as when it reads', async () => {
    const before = await count('dl_book');
    const { result: res, statements } = await statementsOf(() => post('/api/keyed/', { title: 'Huge', author: 3000000000, year: 1 }));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ author: ['Invalid pk "3000000000" - object does not exist.'] });
    expect(readsAuthors(statements)).toBe(true);
    expect(await count('dl_book')).toBe(before);
  });

  it("reads the author where the serializer's own validate sees it", async () => {
    const banned = await post('/api/checked/', { title: 'Refused', author: 3, year: 1 });
    expect(banned.statusCode).toBe(400);
    expect(banned.json()).toEqual({ non_field_errors: ['No books by this author.'] });
    const fine = await post('/api/checked/', { title: 'Fine', author: 2, year: 1 });
    expect(fine.statusCode).toBe(201);
    expect(fine.json()).toMatchObject({ title: 'Fine', author: 2 });
    const missing = await post('/api/checked/', { title: 'Ghost', author: 99, year: 1 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
  });

  it('reads the author where the queryset is narrower than the table', async () => {
    const abroad = await post('/api/local/', { title: 'Abroad', author: 1, year: 1 });
    expect(abroad.statusCode).toBe(400);
    expect(abroad.json()).toEqual({ author: ['Invalid pk "1" - object does not exist.'] });
    const local = await post('/api/local/', { title: 'Local', author: 2, year: 1 });
    expect(local.statusCode).toBe(201);
  });

  it('refuses a missing author where the table has no foreign key', async () => {
    // SQLite reads the author first; PostgreSQL's guarded insert needs no constraint, and writes nothing.
    const { result: missing, statements } = await statementsOf(() => post('/api/loose/', { title: 'Ghost', author: 99, year: 1 }));
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
    expect(readsAuthors(statements)).toBe(true);
    expect(statements.some((s) => /^insert /.test(s))).toBe(name === 'postgres');
    expect(await count('dl_loose')).toBe(0);
    const found = await post('/api/loose/', { title: 'Found', author: 1, year: 1 });
    expect(found.statusCode).toBe(201);
    expect(found.json()).toEqual({ id: 1, title: 'Found', author: 1, year: 1 });
  });

  it.runIf(name === 'sqlite')('reads the author while the connection does not enforce foreign keys, and leaves it again once it does', async () => {
    await sql`pragma foreign_keys = off`.execute(database.db);
    const off = await statementsOf(() => post('/api/keyed/', { title: 'Ghost', author: 99, year: 1 }));
    expect(off.result.statusCode).toBe(400);
    expect(off.result.json()).toEqual({ author: ['Invalid pk "99" - object does not exist.'] });
    expect(readsAuthors(off.statements)).toBe(true);
    const offFound = await statementsOf(() => post('/api/keyed/', { title: 'Off', author: 1, year: 1 }));
    expect(offFound.result.statusCode).toBe(201);
    expect(readsAuthors(offFound.statements)).toBe(true);
    expect(Number((await sql<{ n: number }>`select count(*) as n from dl_book where author_id = 99`.execute(database.db)).rows[0]!.n)).toBe(0);

    await sql`pragma foreign_keys = on`.execute(database.db);
    const on = await statementsOf(() => post('/api/keyed/', { title: 'On', author: 1, year: 1 }));
    expect(on.result.statusCode).toBe(201);
    expect(on.result.json()).toMatchObject({ title: 'On', author: 1 });
    expect(readsAuthors(on.statements)).toBe(false);
  });
});

describe('a guarded insert refused for a row that exists by the time it is looked up', () => {
  /** PostgreSQL's lookups for one author field, which the insert's guard checks. */
  const guardedAuthor = () => {
    const field = { validators: [] as unknown[] };
    return { field, deferred: new DeferredLookups(new Map([[field, { name: 'author', key: { column: 'author_id', table: 'dl_author', key: 'id' } }]]), true) };
  };

  it('inserts again without the guard, as DRF, whose read would have found the row', async () => {
    const { field, deferred } = guardedAuthor();
    const row = { id: 7 };
    let looked = 0;
    expect(deferred.leave(field, 7, row, () => looked++)).toBe(true);
    const data = { title: 'Late', author: row };
    expect(insertGuards(data)).toEqual([{ table: 'dl_author', key: 'id', id: 7 }]);
    let retried = 0;
    const result = deferred.insertFailed(new RelatedRowMissing(), data, () => {
      retried++;
      // The retry's insert is a plain one: the row is no longer marked for the guard.
      expect(insertGuards(data)).toBeNull();
      return 'written';
    });
    expect(result).toBe('written');
    expect([looked, retried]).toEqual([1, 1]);
  });

  it('does not leave a key outside PostgreSQL integers to the guard', () => {
    const { field, deferred } = guardedAuthor();
    const row = { id: 2 ** 31 };
    expect(deferred.leave(field, 2 ** 31, row, () => undefined)).toBe(false);
    expect(deferred.pending).toBe(false);
    expect(insertGuards({ author: row })).toBeNull();
  });
});
