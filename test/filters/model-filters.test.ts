import { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  CursorPagination,
  FilterSetBackend,
  filterSet,
  generateOpenAPI,
  ImproperlyConfigured,
  ListAPIView,
  OrderingFilter,
  PageNumberPagination,
  path,
  SearchFilter,
  SystemCheckError,
  type Database,
  type ApiRequest,
  type FilterLookup,
  type PaginationClass,
  type TrestleApp,
} from '../../src/index.js';
import { field, model, type AnyModel } from '../../src/models/index.js';
import { createModelTables } from '../helpers/model-tables.js';
import { testDatabases } from '../helpers/databases.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

const Country = model('lib_country', { name: field.char({ maxLength: 100 }) });
const Author = model('lib_author', {
  name: field.char({ maxLength: 100 }),
  country: field.foreignKey(() => Country, { onDelete: 'cascade', null: true }),
});
const Tag = model('lib_tag', { name: field.char({ maxLength: 50 }) });
const Book = model('lib_book', {
  title: field.char({ maxLength: 200 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
  year: field.integer({ null: true }),
  price: field.decimal({ maxDigits: 6, decimalPlaces: 2 }),
  in_print: field.boolean({ default: true }),
  published: field.date(),
  created: field.datetime(),
  status: field.char({ maxLength: 10, choices: [['draft', 'Draft'], ['published', 'Published']] }),
  code: field.uuid(),
  tags: field.manyToMany(() => Tag, { relatedName: 'books' }),
});

const COUNTRIES = [
  { id: 1, name: 'Peru' },
  { id: 2, name: 'Norway' },
];
const TAGS = [
  { id: 1, name: 'sf' },
  { id: 2, name: 'classic' },
  { id: 3, name: 'noir' },
];
/** Book id → tag ids (book 4 has none). */
const BOOK_TAGS: Record<number, number[]> = { 1: [1, 2], 2: [1, 2], 3: [1, 3], 4: [], 5: [2], 6: [1, 3] };
const AUTHORS = [
  { id: 1, name: 'Ursula K. Le Guin', country_id: null },
  { id: 2, name: 'Blake Crouch', country_id: 2 },
  { id: 3, name: 'Ada Lovelace', country_id: 2 },
  { id: 4, name: 'Mario Vargas Llosa', country_id: 1 },
];
// UUIDs stored with and without hyphens: a filter finds both forms.
const BOOKS = [
  { id: 1, title: 'The Dispossessed', author_id: 1, year: 1974, price: '12.50', in_print: true, published: '1974-05-01', created: '2024-01-01T10:00:00.000Z', status: 'published', code: '6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a01' },
  { id: 2, title: 'The Left Hand of Darkness', author_id: 1, year: 1969, price: '9.99', in_print: false, published: '1969-03-01', created: '2024-01-02T10:00:00.000Z', status: 'published', code: '6f1c1a523d9b4c449b1e0a6c0f7d1a02' },
  { id: 3, title: 'Dark Matter', author_id: 2, year: 2016, price: '15.00', in_print: true, published: '2016-07-26', created: '2024-01-03T10:00:00.000Z', status: 'draft', code: '6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a03' },
  { id: 4, title: 'Notes', author_id: 3, year: null, price: '3.00', in_print: false, published: '1843-09-01', created: '2024-01-04T10:00:00.000Z', status: 'draft', code: '6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a04' },
  { id: 5, title: 'La ciudad y los perros', author_id: 4, year: 1963, price: '11.00', in_print: true, published: '1963-10-01', created: '2024-01-05T10:00:00.000Z', status: 'published', code: '6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a05' },
  { id: 6, title: 'Recursion', author_id: 2, year: 2019, price: '15.00', in_print: true, published: '2019-06-11', created: '2024-01-06T10:00:00.000Z', status: 'published', code: '6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a06' },
];

async function createTables(database: Database): Promise<void> {
  await createModelTables(database.db as AnyDb, [Country, Author, Tag, Book] as AnyModel[]);
  const db = database.db as AnyDb;
  const sqlite = database.dialect === 'sqlite';
  await db.insertInto('lib_country').values(COUNTRIES).execute();
  await db.insertInto('lib_author').values(AUTHORS).execute();
  await db
    .insertInto('lib_book')
    .values(BOOKS.map((b) => ({ ...b, in_print: sqlite ? (b.in_print ? 1 : 0) : b.in_print })))
    .execute();
  await db.insertInto('lib_tag').values(TAGS).execute();
  await db
    .insertInto('lib_book_tags')
    .values(Object.entries(BOOK_TAGS).flatMap(([book, tags]) => tags.map((tag) => ({ book_id: Number(book), tag_id: tag }))))
    .execute();
}


class BookPages extends PageNumberPagination {
  override pageSize = 50;
}

/** A list of books declared on the model; every setting names model fields. */
class BookList extends ListAPIView {
  override model: AnyModel = Book;
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  override paginationClass: PaginationClass | null = BookPages;
  filtersetFields: readonly string[] | Readonly<Record<string, readonly FilterLookup[]>> = {
    author: ['exact', 'in'],
    year: ['exact', 'gte', 'lte', 'range', 'isnull'],
    price: ['lt', 'gte'],
    in_print: ['exact'],
    published: ['gte'],
    created: ['lt'],
    status: ['exact', 'in'],
    code: ['exact', 'in'],
    title: ['icontains'],
    author__name: ['icontains'],
    author__country: ['exact', 'isnull'],
    author__country__name: ['exact', 'isnull'],
    tags: ['exact', 'in', 'isnull'],
    tags__name: ['iexact'],
  };
  searchFields: readonly string[] = ['title', 'author__name', '=author__country__name', 'tags__name'];
  orderingFields: readonly string[] | Readonly<Record<string, string>> | '__all__' = ['title', 'year', 'author', 'author__name', 'author__country__name'];
  ordering: string | readonly string[] = 'id';
}

interface Page {
  count: number;
  results: { id: number }[];
}

describe.each(testDatabases())('filters from the model on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  const apps: TrestleApp[] = [];
  beforeAll(async () => {
    database = await open();
    await createTables(database);
    app = await serve(BookList);
  });
  afterAll(async () => {
    for (const a of apps) await a.close().catch(() => {});
    await database.close();
  });

  async function serve(view: typeof BookList, extra: Parameters<typeof path>[] = []): Promise<TrestleApp> {
    const a = await createApp({ database, logger: { level: 'silent' }, routes: [path('books/', view, { name: 'book-list' }), ...extra.map((p) => path(...p))] });
    apps.push(a);
    return a;
  }

  async function get(url: string, on: TrestleApp = app) {
    const res = await on.inject({ method: 'GET', url });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as unknown };
  }

  /** The ids of a 200 page, after checking the count agrees with them. */
  async function ids(url: string, on: TrestleApp = app): Promise<number[]> {
    const res = await get(url, on);
    expect({ status: res.status, type: res.type }).toEqual({ status: 200, type: 'application/json' });
    const page = res.body as Page;
    expect(page.count).toBe(page.results.length);
    return page.results.map((b) => b.id);
  }

  async function refused(url: string, body: Record<string, string[]>) {
    const res = await get(url);
    expect(res).toEqual({ status: 400, type: 'application/json', body });
  }

  describe('filtersetFields typed from the model', () => {
    it('a foreign key filters by the related key, with __in; a non-key is ModelChoiceFilter\'s error', async () => {
      expect(await ids('/books/?author=1')).toEqual([1, 2]);
      expect(await ids('/books/?author__in=1,3')).toEqual([1, 2, 4]);
      await refused('/books/?author=abc', { author: ['Select a valid choice. That choice is not one of the available choices.'] });
      // A key with no row is refused too, as ModelChoiceField looks it up.
      await refused('/books/?author=99', { author: ['Select a valid choice. That choice is not one of the available choices.'] });
      await refused('/books/?author__in=1,99&author__country=7', {
        author__in: ['Select a valid choice. That choice is not one of the available choices.'],
        author__country: ['Select a valid choice. That choice is not one of the available choices.'],
      });
      await refused('/books/?author__in=1,x', { author__in: ['Select a valid choice. That choice is not one of the available choices.'] });
    });

    it('an integer field is a NumberFilter: exact, gte, lte, range, isnull; fractions rounded as Django does', async () => {
      expect(await ids('/books/?year=1974')).toEqual([1]);
      expect(await ids('/books/?year__gte=2000')).toEqual([3, 6]);
      expect(await ids('/books/?year__lte=1969')).toEqual([2, 5]);
      expect(await ids('/books/?year__range=1960,1970')).toEqual([2, 5]);
      expect(await ids('/books/?year__isnull=true')).toEqual([4]);
      expect(await ids('/books/?year__isnull=0')).toEqual([1, 2, 3, 5, 6]);
      // IntegerField rounds a gte value up: 2016.5 keeps 2019 only.
      expect(await ids('/books/?year__gte=2016.5')).toEqual([6]);
      expect(await ids('/books/?year__lte=1969.9')).toEqual([2, 5]);
    });

    it('values that do not parse are one 400 with django-filter\'s messages', async () => {
      await refused('/books/?year__gte=abc', { year__gte: ['Enter a number.'] });
      await refused('/books/?year__range=1960', { year__range: ['Range query expects two values.'] });
      await refused('/books/?published__gte=1974-13-01&created__lt=yesterday&code=nope&status=lost&price__lt=cheap', {
        price__lt: ['Enter a number.'],
        published__gte: ['Enter a valid date.'],
        created__lt: ['Enter a valid date/time.'],
        status: ['Select a valid choice. lost is not one of the available choices.'],
        code: ['Enter a valid UUID.'],
      });
      // The 29th of February of a common year, the 31st of a 30-day month.
      await refused('/books/?published__gte=2023-02-29', { published__gte: ['Enter a valid date.'] });
      await refused('/books/?created__lt=2023-04-31T00:00:00Z', { created__lt: ['Enter a valid date/time.'] });
      await refused('/books/?year=99999999999', { year: ['Ensure this value is less than or equal to 2147483647.'] });
    });

    it('decimal, date and date-time fields compare as their kind', async () => {
      expect(await ids('/books/?price__lt=10')).toEqual([2, 4]);
      expect(await ids('/books/?price__gte=15')).toEqual([3, 6]);
      expect(await ids('/books/?published__gte=2000-01-01')).toEqual([3, 6]);
      expect(await ids('/books/?created__lt=2024-01-03T00:00:00Z')).toEqual([1, 2]);
      expect(await ids('/books/?created__lt=2024-01-03T13:00:00%2B02:00')).toEqual([1, 2, 3]);
    });

    it('a boolean field takes BooleanWidget values; anything else is no filter', async () => {
      expect(await ids('/books/?in_print=true')).toEqual([1, 3, 5, 6]);
      expect(await ids('/books/?in_print=False')).toEqual([2, 4]);
      expect(await ids('/books/?in_print=0')).toEqual([2, 4]);
      expect(await ids('/books/?in_print=maybe')).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('a field with choices is a ChoiceFilter for exact; its other lookups keep the field\'s filter', async () => {
      expect(await ids('/books/?status=draft')).toEqual([3, 4]);
      expect(await ids('/books/?status__in=draft,nothing')).toEqual([3, 4]);
    });

    it('a UUID matches in any accepted form, stored with or without hyphens', async () => {
      expect(await ids('/books/?code=6F1C1A52-3D9B-4C44-9B1E-0A6C0F7D1A02')).toEqual([2]);
      expect(await ids('/books/?code={6f1c1a523d9b4c449b1e0a6c0f7d1a01}')).toEqual([1]);
      expect(await ids('/books/?code__in=6f1c1a523d9b4c449b1e0a6c0f7d1a01,6f1c1a52-3d9b-4c44-9b1e-0a6c0f7d1a02')).toEqual([1, 2]);
    });

    it('text lookups ignore case', async () => {
      expect(await ids('/books/?title__icontains=DARK')).toEqual([2, 3]);
    });

    it('relation paths filter through the related rows, with the related field\'s type', async () => {
      expect(await ids('/books/?author__name__icontains=le%20guin')).toEqual([1, 2]);
      expect(await ids('/books/?author__country=2')).toEqual([3, 4, 6]);
      expect(await ids('/books/?author__country__name=Peru')).toEqual([5]);
      // An author with no country counts as a NULL country, as Django's LEFT JOIN.
      expect(await ids('/books/?author__country__isnull=true')).toEqual([1, 2]);
      expect(await ids('/books/?author__country__isnull=false')).toEqual([3, 4, 5, 6]);
      expect(await ids('/books/?author__country__name__isnull=true')).toEqual([1, 2]);
      expect(await ids('/books/?author__country__name__isnull=false')).toEqual([3, 4, 5, 6]);
      await refused('/books/?author__country=Peru', { author__country: ['Select a valid choice. That choice is not one of the available choices.'] });
    });

    it('a many-to-many filters by the related keys (ModelMultipleChoiceFilter); each book once', async () => {
      expect(await ids('/books/?tags=1')).toEqual([1, 2, 3, 6]);
      // Books 1, 2 have both tags: listed once, and counted once.
      expect(await ids('/books/?tags__in=2,3')).toEqual([1, 2, 3, 5, 6]);
      expect(await ids('/books/?tags__isnull=true')).toEqual([4]);
      expect(await ids('/books/?tags__isnull=false')).toEqual([1, 2, 3, 5, 6]);
      expect(await ids('/books/?tags__name__iexact=CLASSIC')).toEqual([1, 2, 5]);
      await refused('/books/?tags=abc', { tags: ['“abc” is not a valid value.'] });
      await refused('/books/?tags__in=1,99', { tags__in: ['Select a valid choice. 99 is not one of the available choices.'] });
    });

    it('filters combine with AND; the count agrees with the page', async () => {
      expect(await ids('/books/?author__country=2&year__gte=2017&in_print=1')).toEqual([6]);
    });

    it('a path ending on the related key reads the foreign key; an explicit filterset wins', async () => {
      class ByKey extends BookList {
        override filtersetFields = ['author__id'];
      }
      expect(await ids('/books/?author__id=4', await serve(ByKey))).toEqual([5]);
      class Explicit extends BookList {
        filterset = filterSet({ title: { type: 'string', lookups: ['istartswith'] } });
      }
      const a = await serve(Explicit);
      expect(await ids('/books/?title__istartswith=the', a)).toEqual([1, 2]);
      expect(await ids('/books/?year=1974', a)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('a list is exact on each name, as django-filter', async () => {
      class Short extends BookList {
        override filtersetFields = ['author', 'year', 'author__country'];
      }
      const a = await serve(Short);
      expect(await ids('/books/?author=2&year=2019', a)).toEqual([6]);
      expect(await ids('/books/?author__country=1', a)).toEqual([5]);
      // Lookups not declared are not parameters.
      expect(await ids('/books/?year__gte=2000', a)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('the browsable API\'s filter form shows the model\'s filters', async () => {
      const res = await app.inject({ method: 'GET', url: '/books/?author=2&price__lt=12.5', headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<input id="filter-author" type="number" name="author" value="2">');
      expect(res.body).toContain('<input id="filter-price__lt" type="number" step="any" name="price__lt" value="12.5">');
      expect(res.body).toContain('<select id="filter-in_print" name="in_print">');
      expect(res.body).toContain('<select id="filter-status" name="status"><option value="" selected>---------</option><option value="draft">draft</option>');
      expect(res.body).toContain('<input id="filter-published__gte" type="date" name="published__gte" value="">');
      expect(res.body).toContain('<input id="filter-author__name__icontains" type="text" name="author__name__icontains" value="">');
    });

    it('OpenAPI lists each parameter with the model field\'s type', async () => {
      const doc = generateOpenAPI(app) as { paths: Record<string, { get: { parameters: { name: string; schema: unknown }[] } }> };
      const params = Object.fromEntries(doc.paths['/books/']!.get.parameters.map((p) => [p.name, p.schema]));
      expect(params).toMatchObject({
        author: { type: 'integer' },
        author__in: { type: 'array', items: { type: 'integer' } },
        year__gte: { type: 'number' },
        in_print: { type: 'boolean' },
        published__gte: { type: 'string', format: 'date' },
        created__lt: { type: 'string', format: 'date-time' },
        status: { type: 'string', enum: ['draft', 'published'] },
        status__in: { type: 'array', items: { type: 'string' } },
        code: { type: 'string', format: 'uuid' },
        author__country__name: { type: 'string' },
      });
    });
  });

  describe('search across relations', () => {
    it('finds a book whose author matches; every term must match some field', async () => {
      expect(await ids('/books/?search=crouch')).toEqual([3, 6]);
      expect(await ids('/books/?search=crouch%20dark')).toEqual([3]);
      expect(await ids('/books/?search=dark')).toEqual([2, 3]);
      expect(await ids('/books/?search=peru')).toEqual([5]);
      // `=` is the whole value: part of a country name is not a match.
      expect(await ids('/books/?search=eru')).toEqual([]);
    });

    it('a term matching several fields of one book lists it once; the count says so', async () => {
      // "a" is in every title or author name: each book once.
      expect(await ids('/books/?search=a')).toEqual([1, 2, 3, 4, 5, 6]);
      // Book 2 matches by title ("Left") and by author ("Le Guin").
      expect(await ids('/books/?search=le&page=1')).toEqual([1, 2]);
    });

    it('searches a many-to-many\'s related rows without repeating a book', async () => {
      expect(await ids('/books/?search=noir')).toEqual([3, 6]);
      // "s" is in "sf" and "classic": books 1 and 2 have both, and appear once.
      expect(await ids('/books/?search=s')).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await ids('/books/?search=classic%20guin')).toEqual([1, 2]);
    });

    it('the ^ and @ prefixes work across a relation', async () => {
      class Prefixed extends BookList {
        override searchFields = ['^author__name', '@author__country__name'];
      }
      const a = await serve(Prefixed);
      expect(await ids('/books/?search=blake', a)).toEqual([3, 6]);
      expect(await ids('/books/?search=crouch', a)).toEqual([]);
      expect(await ids('/books/?search=norway', a)).toEqual([3, 4, 6]);
    });

    it('works on a narrowed query under an alias that joins another table', async () => {
      class Joined extends BookList {
        override getQueryset(req: ApiRequest) {
          const db = req.app.services.get('db') as unknown as AnyDb;
          // `id` and `name` exist on both sides: the filters qualify what they read.
          return db.selectFrom('lib_book as b').innerJoin('lib_author as a', 'a.id', 'b.author_id').selectAll('b').select('a.name as author_name').where('b.year', 'is not', null);
        }
      }
      const a = await serve(Joined);
      expect(await ids('/books/?search=crouch&author=2&ordering=-author__name', a)).toEqual([3, 6]);
      expect(await ids('/books/?ordering=-author__name&year__gte=1960', a)).toEqual([1, 2, 5, 3, 6]);
      expect(await ids('/books/?tags__name__iexact=sf', a)).toEqual([1, 2, 3, 6]);
    });

    it('combines with filters and ordering', async () => {
      expect(await ids('/books/?search=crouch&ordering=-year')).toEqual([6, 3]);
      expect(await ids('/books/?search=a&author__country=2&ordering=title')).toEqual([3, 4, 6]);
    });
  });

  describe('ordering across relations', () => {
    it('orders by the related value, ties broken by id', async () => {
      // Ada Lovelace, Blake Crouch (3, 6), Mario Vargas Llosa, Ursula K. Le Guin (1, 2).
      expect(await ids('/books/?ordering=author__name')).toEqual([4, 3, 6, 5, 1, 2]);
      // Descending keeps the id tie-breaker ascending.
      expect(await ids('/books/?ordering=-author__name')).toEqual([1, 2, 5, 3, 6, 4]);
      expect(await ids('/books/?ordering=author__name,-year')).toEqual([4, 6, 3, 5, 1, 2]);
    });

    it('a NULL related value sorts last ascending, first descending, as the view\'s own columns do', async () => {
      expect(await ids('/books/?ordering=author__country__name')).toEqual([3, 4, 6, 5, 1, 2]);
      expect(await ids('/books/?ordering=-author__country__name')).toEqual([1, 2, 5, 3, 4, 6]);
    });

    it('a relation field orders by its key', async () => {
      expect(await ids('/books/?ordering=-author')).toEqual([5, 4, 3, 6, 1, 2]);
    });

    it('a map names a relation path under a name of its own; the view\'s default ordering may cross a relation', async () => {
      class Mapped extends BookList {
        override orderingFields = { writer: 'author__name', title: 'title' };
        override ordering = ['-author__country__name', 'title'];
      }
      const a = await serve(Mapped);
      expect(await ids('/books/?ordering=writer', a)).toEqual([4, 3, 6, 5, 1, 2]);
      // No valid ?ordering=: the view's ordering (NULL country first descending, then title).
      expect(await ids('/books/?ordering=nope', a)).toEqual([1, 2, 5, 3, 4, 6]);
    });

    it("'__all__' allows the model's fields, not relation paths", async () => {
      class All extends BookList {
        override orderingFields = '__all__' as const;
      }
      const a = await serve(All);
      expect(await ids('/books/?ordering=-price,title', a)).toEqual([3, 6, 1, 5, 2, 4]);
      expect(await ids('/books/?ordering=author__name', a)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('a cursor cannot page by a related value: refused when the view is bound', async () => {
      class Cursor extends CursorPagination {
        override ordering = 'id';
      }
      class Paged extends BookList {
        override paginationClass = Cursor;
      }
      await expect(createApp({ database, logger: { level: 'silent' }, routes: [path('books/', Paged)] })).rejects.toThrow(
        new ImproperlyConfigured(
          "Paged: Cursor cannot page by 'author__name', a value across a relation: a cursor reads its position from the row's own columns. Order by the view's own fields, or use page-number or limit/offset pagination.",
        ),
      );
    });
  });

  describe('system checks read the model', () => {
    it('misspelt names are errors with a did-you-mean; no request is served', async () => {
      class Misspelt extends BookList {
        override filtersetFields = { yeer: ['exact'], author__nmae: ['icontains'], title__name: ['exact'] } as Record<string, readonly FilterLookup[]>;
        override searchFields = ['title', '^auther__name'];
        override orderingFields = ['title', 'author__country__nam', 'tags__name'];
      }
      const warnings: string[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _enc, cb) {
          warnings.push(String(chunk));
          cb();
        },
      });
      const a = await createApp({ database, logger: { level: 'warn', stream }, routes: [path('books/', Misspelt, { name: 'book-list' })] });
      apps.push(a);
      const err = await a.inject({ method: 'GET', url: '/books/' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SystemCheckError);
      const where = "Misspelt at /books/ (name 'book-list')";
      expect((err as Error).message).toBe(
        [
          'System check identified some issues:',
          '',
          'ERRORS:',
          `${where}: (filters.E001) 'filtersetFields' refers to 'author__nmae', but model 'author' has no field 'nmae'.`,
          "\tHINT: Did you mean 'name'?",
          `${where}: (filters.E001) 'filtersetFields' refers to 'title__name': 'title' of book is not a relation, so 'name' cannot follow it.`,
          '\tHINT: Only relations (foreignKey, oneToOne, manyToMany) can be followed with __.',
          `${where}: (filters.E001) 'filtersetFields' refers to 'yeer', but model 'book' has no field 'yeer'.`,
          "\tHINT: Did you mean 'year'?",
          `${where}: (ordering.E001) 'orderingFields' refers to 'author__country__nam', but model 'country' has no field 'nam'.`,
          "\tHINT: Did you mean 'name'?",
          `${where}: (ordering.E001) 'orderingFields' refers to 'tags__name': 'tags' of book is a many-to-many relation: a row has several values there.`,
          '\tHINT: An ordering follows to-one relations (foreignKey, oneToOne) only.',
          `${where}: (search.E001) 'searchFields' refers to '^auther__name', but model 'book' has no field 'auther'.`,
          "\tHINT: Did you mean 'author'?",
          '',
        ].join('\n'),
      );
    });

    it('a cursor that reads orderingFields itself (no ordering filter) is told the related value is no column', async () => {
      class Cursor extends CursorPagination {
        override ordering = 'id';
      }
      class Feed extends BookList {
        override filterBackends = [];
        override paginationClass = Cursor;
        override orderingFields = ['title', 'author__name'];
      }
      const a = await createApp({ database, logger: { level: 'silent' }, routes: [path('feed/', Feed, { name: 'feed' })] });
      apps.push(a);
      const err = await a.inject({ method: 'GET', url: '/feed/' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SystemCheckError);
      expect((err as Error).message).toContain(
        "Feed at /feed/ (name 'feed'): (ordering.E001) 'orderingFields' refers to 'author__name', but table 'lib_book' has no column 'author__name'.",
      );
    });

    it('the correct view says nothing', async () => {
      const { runChecks } = await import('../../src/checks/index.js');
      expect(await runChecks(app)).toEqual([]);
    });

    it('with a check silenced, the name is refused when the view is bound', async () => {
      class Misspelt extends BookList {
        override filtersetFields = ['yeer'];
      }
      class MisspeltSearch extends BookList {
        override searchFields = ['author__nam'];
      }
      class MisspeltOrdering extends BookList {
        override ordering = ['-author__nam'];
      }
      const build = (view: typeof BookList, id: string) =>
        createApp({ database, settings: { SILENCED_SYSTEM_CHECKS: [id] }, logger: { level: 'silent' }, routes: [path('books/', view)] });
      await expect(build(Misspelt, 'filters.E001')).rejects.toThrow(
        new ImproperlyConfigured("Misspelt: filtersetFields refers to 'yeer': book has no field named 'yeer'. Did you mean 'year'?"),
      );
      await expect(build(MisspeltSearch, 'search.E001')).rejects.toThrow(
        new ImproperlyConfigured("MisspeltSearch: searchFields refers to 'author__nam': author has no field named 'nam'. Did you mean 'name'?"),
      );
      await expect(build(MisspeltOrdering, 'ordering.E002')).rejects.toThrow(
        new ImproperlyConfigured("MisspeltOrdering: ordering refers to 'author__nam': author has no field named 'nam'. Did you mean 'name'?"),
      );
    });
  });
});
