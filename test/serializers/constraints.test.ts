/**
 * Uniqueness and the database's constraints as DRF answers them: the
 * validators refuse a taken value before the write with DRF's messages,
 * and a constraint that still fires at the database (a race, a serializer
 * without validators) is a 400 naming the field, or a 409 for a delete of
 * a row others refer to; never a 500, never a half-done write.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CreateAPIView,
  FieldError,
  GenericAPIView,
  ValidationError,
  ListCreateAPIView,
  RetrieveUpdateDestroyAPIView,
  UniqueTogetherValidator,
  UniqueValidator,
  addIdColumn,
  createApp,
  integer,
  list,
  path,
  primaryKeyRelated,
  serializer,
  string,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

interface Tables {
  author: { id: number; name: string };
  book: { id: number; title: string; author_id: number | null; series: string | null; number: number | null };
}
type BookRow = Tables['book'];

const db = (req: ApiRequest) => req.app.services.get('db') as unknown as Kysely<Tables>;

async function createTables(k: Kysely<Tables>): Promise<void> {
  const schema = k as unknown as Kysely<unknown>;
  await addIdColumn(schema, schema.schema.createTable('author')).addColumn('name', 'varchar(100)', (c) => c.notNull()).execute();
  await addIdColumn(schema, schema.schema.createTable('book'))
    .addColumn('title', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('author_id', 'integer', (c) => c.references('author.id'))
    .addColumn('series', 'varchar(100)')
    .addColumn('number', 'integer')
    .addUniqueConstraint('book_series_number', ['series', 'number'])
    .addCheckConstraint('book_number_positive', sql`number > 0`)
    .execute();
}

/** Declares every constraint as DRF's validators. */
const BookSerializer = serializer(
  {
    id: integer({ readOnly: true }),
    title: string({ maxLength: 100, validators: [new UniqueValidator({ queryset: 'book' })] }),
    author: primaryKeyRelated({
      source: 'author_id',
      allowNull: true,
      required: false,
      queryset: (req: ApiRequest) => db(req).selectFrom('author').selectAll(),
    }),
    series: string({ allowNull: true, required: false }),
    number: integer({ allowNull: true, required: false }),
  },
  { validators: [new UniqueTogetherValidator({ queryset: (req) => db(req).selectFrom('book').selectAll(), fields: ['series', 'number'] })] },
);

/** The same shape with no validators: only the database enforces the constraints. */
const PlainBookSerializer = serializer({
  id: integer({ readOnly: true }),
  title: string({ maxLength: 100, required: false }),
  author: integer({ source: 'author_id', allowNull: true, required: false }),
  series: string({ allowNull: true, required: false }),
  number: integer({ allowNull: true, required: false }),
});

type Input = { title?: string; author?: { id: number } | number | null; series?: string | null; number?: number | null };

function columns(data: Input): Partial<BookRow> {
  const out: Partial<BookRow> = {};
  if (data.title !== undefined) out.title = data.title;
  if (data.author !== undefined) out.author_id = data.author === null ? null : typeof data.author === 'number' ? data.author : data.author.id;
  if (data.series !== undefined) out.series = data.series;
  if (data.number !== undefined) out.number = data.number;
  return out;
}

class Books extends ListCreateAPIView<BookRow> {
  override serializer = BookSerializer as never;
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('book').selectAll().orderBy('id');
  }
  override performCreate(req: ApiRequest, data: Input) {
    return db(req).insertInto('book').values(columns(data) as BookRow).returningAll().executeTakeFirstOrThrow();
  }
}

class BookDetail extends RetrieveUpdateDestroyAPIView<BookRow> {
  override serializer = BookSerializer as never;
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('book').selectAll();
  }
  override async performUpdate(req: ApiRequest, book: BookRow, data: Partial<Input>) {
    const changes = columns(data);
    if (Object.keys(changes).length === 0) return book;
    return db(req).updateTable('book').set(changes).where('id', '=', book.id).returningAll().executeTakeFirstOrThrow();
  }
  override async performDestroy(req: ApiRequest, book: BookRow) {
    await db(req).deleteFrom('book').where('id', '=', book.id).execute();
  }
}

class PlainBooks extends Books {
  override serializer = PlainBookSerializer as never;
}

class PlainBookDetail extends BookDetail {
  override serializer = PlainBookSerializer as never;
}

/** Writes an author and a book in one transaction: a failing book leaves no author behind. */
class AuthorWithBook extends GenericAPIView {
  async post(req: ApiRequest) {
    const body = req.data as { name: string; title: string };
    return db(req)
      .transaction()
      .execute(async (trx) => {
        const author = await trx.insertInto('author').values({ name: body.name } as never).returningAll().executeTakeFirstOrThrow();
        await trx.insertInto('book').values({ title: body.title, author_id: author.id } as never).execute();
        return author;
      });
  }
}

class AuthorDetail extends RetrieveUpdateDestroyAPIView<Tables['author']> {
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('author').selectAll();
  }
  override async performDestroy(req: ApiRequest, author: Tables['author']) {
    await db(req).deleteFrom('author').where('id', '=', author.id).execute();
  }
}

describe.each(testDatabases())('constraints on $name', ({ name, open }) => {
  let database: Database;
  let app: TrestleApp;
  let k: Kysely<Tables>;

  beforeEach(async () => {
    database = await open();
    k = database.db as unknown as Kysely<Tables>;
    await createTables(k);
    await k.insertInto('author').values({ name: 'Le Guin' } as never).execute();
    app = await createApp({
      logger: false,
      database,
      settings: { DEFAULT_AUTHENTICATION_CLASSES: [] },
      routes: [
        path('books/', Books),
        path('books/<int:pk>/', BookDetail),
        path('plain/', PlainBooks),
        path('plain/<int:pk>/', PlainBookDetail),
        path('authors/<int:pk>/', AuthorDetail),
        path('author-with-book/', AuthorWithBook),
      ],
    });
  });
  afterEach(async () => {
    await app.close();
    await database.close();
  });

  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
  const count = async (table: 'book' | 'author') => Number((await k.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  function expect400(res: Awaited<ReturnType<typeof post>>, body: unknown): void {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual(body);
  }

  describe('UniqueValidator and UniqueTogetherValidator, before the write', () => {
    it('a taken title is "This field must be unique."; nothing is written', async () => {
      const first = await post('/books/', { title: 'Dune', series: 'A', number: 1 });
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json()).toEqual({ id: 1, title: 'Dune', author: null, series: 'A', number: 1 });
      expect400(await post('/books/', { title: 'Dune', series: 'A', number: 2 }), { title: ['This field must be unique.'] });
      expect(await count('book')).toBe(1);
    });

    it('a taken pair is a non-field error naming the fields; field errors come first and alone', async () => {
      await post('/books/', { title: 'Dune', series: 'A', number: 1 });
      expect400(await post('/books/', { title: 'Other', series: 'A', number: 1 }), {
        non_field_errors: ['The fields series, number must make a unique set.'],
      });
      // Serializer-level validators run only once every field passed, as DRF's.
      expect400(await post('/books/', { title: 'Dune', series: 'A', number: 1 }), { title: ['This field must be unique.'] });
      // Either value new: no conflict.
      expect((await post('/books/', { title: 'Other', series: 'A', number: 2 })).statusCode).toBe(201);
      expect((await post('/books/', { title: 'Third', series: 'B', number: 1 })).statusCode).toBe(201);
    });

    it('on create the pair is required, even though each field is optional; a null skips the check', async () => {
      expect400(await post('/books/', { title: 'Dune' }), { series: ['This field is required.'], number: ['This field is required.'] });
      expect400(await post('/books/', { title: 'Dune', number: 1 }), { series: ['This field is required.'] });
      expect((await post('/books/', { title: 'Dune', series: null, number: 1 })).statusCode).toBe(201);
      expect((await post('/books/', { title: 'Dune 2', series: null, number: 1 })).statusCode).toBe(201);
    });

    it('PUT and PATCH may keep their own values; a value another row holds is refused', async () => {
      await post('/books/', { title: 'Dune', series: 'A', number: 1 });
      await post('/books/', { title: 'Emma', series: 'A', number: 2 });
      const put = await app.inject({ method: 'PUT', url: '/books/1/', payload: { title: 'Dune', series: 'A', number: 1 } });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toEqual({ id: 1, title: 'Dune', author: null, series: 'A', number: 1 });
      const own = await app.inject({ method: 'PATCH', url: '/books/1/', payload: { title: 'Dune' } });
      expect(own.statusCode, own.body).toBe(200);
      // PATCH with only one of the pair: the other comes from the instance, the pair (A, 2) is taken.
      expect400(await app.inject({ method: 'PATCH', url: '/books/1/', payload: { number: 2 } }), {
        non_field_errors: ['The fields series, number must make a unique set.'],
      });
      expect400(await app.inject({ method: 'PATCH', url: '/books/1/', payload: { title: 'Emma' } }), { title: ['This field must be unique.'] });
      expect400(await app.inject({ method: 'PUT', url: '/books/2/', payload: { title: 'Dune', series: 'A', number: 1 } }), {
        title: ['This field must be unique.'],
      });
      expect((await app.inject({ url: '/books/1/' })).json()).toEqual({ id: 1, title: 'Dune', author: null, series: 'A', number: 1 });
    });

    it('a message and a case-insensitive lookup can be given', async () => {
      const Named = serializer({
        title: string({ validators: [new UniqueValidator({ queryset: 'book', message: 'book with this title already exists.', lookup: 'iexact' })] }),
      });
      class NamedBooks extends PlainBooks {
        override serializer = Named as never;
      }
      const other = await createApp({ logger: false, database, settings: { DEFAULT_AUTHENTICATION_CLASSES: [] }, routes: [path('named/', NamedBooks)] });
      try {
        expect((await other.inject({ method: 'POST', url: '/named/', payload: { title: 'Dune' } })).statusCode).toBe(201);
        const res = await other.inject({ method: 'POST', url: '/named/', payload: { title: 'DUNE' } });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ title: ['book with this title already exists.'] });
      } finally {
        await other.close();
      }
    });
  });

  describe('the database enforces what no validator checked', () => {
    it('a duplicate unique column is a 400 under the field, with the validator message', async () => {
      expect((await post('/plain/', { title: 'Dune' })).statusCode).toBe(201);
      expect400(await post('/plain/', { title: 'Dune' }), { title: ['This field must be unique.'] });
      expect(await count('book')).toBe(1);
    });

    it('a duplicate unique pair is a 400 naming both fields', async () => {
      expect((await post('/plain/', { title: 'Dune', series: 'A', number: 1 })).statusCode).toBe(201);
      expect400(await post('/plain/', { title: 'Emma', series: 'A', number: 1 }), {
        non_field_errors: ['The fields series, number must make a unique set.'],
      });
    });

    it('PATCH onto a taken value is a 400; the row keeps its value', async () => {
      await post('/plain/', { title: 'Dune' });
      await post('/plain/', { title: 'Emma' });
      expect400(await app.inject({ method: 'PATCH', url: '/plain/2/', payload: { title: 'Dune' } }), { title: ['This field must be unique.'] });
      expect((await app.inject({ url: '/plain/2/' })).json()).toMatchObject({ title: 'Emma' });
    });

    it('a missing NOT NULL column is a 400 under the field', async () => {
      expect400(await post('/plain/', { series: 'A' }), { title: ['This field may not be null.'] });
    });

    it('a CHECK constraint is a 400 naming the constraint, as Django words it', async () => {
      expect400(await post('/plain/', { title: 'Dune', number: 0 }), { non_field_errors: ['Constraint \u201cbook_number_positive\u201d is violated.'] });
    });

    it('a reference to a missing row is a 400 (under the field where the database names it)', async () => {
      const res = await post('/plain/', { title: 'Dune', author: 99 });
      // PostgreSQL names the key and its value; SQLite only says a foreign key failed.
      expect400(res, name === 'postgres' ? { author: ['Invalid pk "99" - object does not exist.'] } : { non_field_errors: ['A related object does not exist.'] });
      expect(await count('book')).toBe(0);
    });

    it('DELETE of a row others refer to is a 409; both rows stay', async () => {
      expect((await post('/plain/', { title: 'Dune', author: 1 })).statusCode).toBe(201);
      const res = await app.inject({ method: 'DELETE', url: '/authors/1/' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ detail: 'Cannot delete this object: other objects refer to it.' });
      expect(await count('author')).toBe(1);
      // Once nothing refers to it, it goes.
      expect((await app.inject({ method: 'DELETE', url: '/plain/1/' })).statusCode).toBe(204);
      expect((await app.inject({ method: 'DELETE', url: '/authors/1/' })).statusCode).toBe(204);
    });

    it('a transaction whose second statement fails leaves nothing of the first', async () => {
      await post('/plain/', { title: 'Dune' });
      expect400(await post('/author-with-book/', { name: 'Herbert', title: 'Dune' }), { title: ['This field must be unique.'] });
      expect(await count('author')).toBe(1);
      expect((await post('/author-with-book/', { name: 'Herbert', title: 'Children of Dune' })).statusCode).toBe(200);
      expect(await count('author')).toBe(2);
    });
  });

  it.each([['/books/'], ['/plain/']])('ten parallel creates of one title on %s: one 201, nine 400', async (url) => {
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => post(url, { title: 'Dune', series: 'S', number: i + 1 })));
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of responses.filter((r) => r.statusCode === 400)) {
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ title: ['This field must be unique.'] });
    }
    expect(await count('book')).toBe(1);
  });
});

describe('validators of any kind', () => {
  const Period = serializer(
    {
      code: string({
        validators: [
          (value: string) => {
            if (value.length < 3) throw new FieldError(['Too short.']);
          },
          {
            validate(value: string) {
              if (!/^[A-Z]/.test(value)) throw new ValidationError('Must start with a capital.');
            },
          },
        ],
      }),
      start: integer(),
      end: integer(),
    },
    {
      validators: [
        (attrs) => {
          const { start, end } = attrs as { start: number; end: number };
          if (start > end) throw new ValidationError({ end: ['Must not be before start.'] });
        },
        async (attrs) => {
          if ((attrs as { code: string }).code === 'NONE') throw new FieldError(['NONE is reserved.']);
        },
      ],
    },
  );
  class Periods extends CreateAPIView {
    override serializer = Period as never;
    override performCreate(_req: ApiRequest, data: unknown) {
      return data;
    }
  }

  let app: TrestleApp;
  beforeEach(async () => {
    app = await createApp({ logger: false, settings: { DEFAULT_AUTHENTICATION_CLASSES: [] }, routes: [path('periods/', Periods)] });
  });
  afterEach(() => app.close());
  const post = (payload: object) => app.inject({ method: 'POST', url: '/periods/', payload });

  it('every field validator runs and their messages are kept in order', async () => {
    const res = await post({ code: 'ab', start: 1, end: 2 });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ code: ['Too short.', 'Must start with a capital.'] });
  });

  it('serializer validators run after the fields passed: a map goes under its fields, a list under non_field_errors', async () => {
    const both = await post({ code: 'ab', start: 3, end: 2 });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toEqual({ code: ['Too short.', 'Must start with a capital.'] });
    const map = await post({ code: 'ABC', start: 3, end: 2 });
    expect(map.statusCode).toBe(400);
    expect(map.json()).toEqual({ end: ['Must not be before start.'] });
    const list = await post({ code: 'NONE', start: 1, end: 2 });
    expect(list.statusCode).toBe(400);
    expect(list.json()).toEqual({ non_field_errors: ['NONE is reserved.'] });
    const ok = await post({ code: 'ABC', start: 1, end: 2 });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ code: 'ABC', start: 1, end: 2 });
  });

  it('a list child runs its validators for each item, errors keyed by index', async () => {
    const Tags = serializer({
      tags: list(string({ validators: [(v: string) => { if (v !== v.toLowerCase()) throw new FieldError(['Lower case only.']); }] })),
    });
    class TagsView extends Periods {
      override serializer = Tags as never;
    }
    const other = await createApp({ logger: false, settings: { DEFAULT_AUTHENTICATION_CLASSES: [] }, routes: [path('tags/', TagsView)] });
    try {
      const res = await other.inject({ method: 'POST', url: '/tags/', payload: { tags: ['ok', 'NO', 'fine'] } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ tags: { '1': ['Lower case only.'] } });
      expect((await other.inject({ method: 'POST', url: '/tags/', payload: { tags: ['ok'] } })).statusCode).toBe(201);
    } finally {
      await other.close();
    }
  });

  it('a validator that fails for another reason is a 500, not a validation message', async () => {
    const Broken = serializer({
      code: string({
        validators: [
          () => {
            throw new TypeError('bug');
          },
        ],
      }),
    });
    class BrokenView extends Periods {
      override serializer = Broken as never;
    }
    const other = await createApp({ logger: false, settings: { DEFAULT_AUTHENTICATION_CLASSES: [] }, routes: [path('broken/', BrokenView)] });
    try {
      const res = await other.inject({ method: 'POST', url: '/broken/', payload: { code: 'ABC' } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: 'A server error occurred.' });
    } finally {
      await other.close();
    }
  });
});
