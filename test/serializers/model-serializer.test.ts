/**
 * ModelSerializer over HTTP: the fields DRF derives from a model (OPTIONS
 * `actions` as DRF describes the same model), its messages (unique,
 * unique together, a missing related row, lengths, null/blank/default
 * rules), nested and hyperlinked output, and the writes of `create` and
 * `update` — on SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ListCreateAPIView,
  RetrieveUpdateAPIView,
  computed,
  createApp,
  generateOpenAPI,
  field,
  model,
  string,
  uniqueConstraint,
  modelSerializer,
  type ModelSerializer,
  path,
  type AnyModel,
  type Infer,
  type RelatedRow,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { createModelTables } from '../helpers/model-tables.js';

const Author = model('lib_author', {
  name: field.char({ maxLength: 100, verboseName: 'full name', helpText: 'As printed on the cover.' }),
  email: field.email({ unique: true }),
  bio: field.text({ blank: true }),
});

const Book = model(
  'lib_book',
  {
    title: field.char({ maxLength: 20 }),
    author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
    editor: field.foreignKey(() => Author, { onDelete: 'setNull', null: true, relatedName: 'edited' }),
    isbn: field.char({ maxLength: 13, unique: true }),
    genre: field.char({ maxLength: 10, choices: [['sf', 'Science fiction'], ['poetry', 'Poetry']], default: 'sf' }),
    pages: field.integer({ null: true }),
    price: field.decimal({ maxDigits: 6, decimalPlaces: 2, default: '0.00' }),
    in_print: field.boolean({ default: true }),
    published: field.date({ null: true }),
    created: field.datetime({ autoNowAdd: true }),
    updated: field.datetime({ autoNow: true }),
    series: field.char({ maxLength: 20, null: true }),
    number: field.integer({ null: true }),
  },
  { uniqueTogether: [['series', 'number']], ordering: ['id'] },
);

const Tag = model('lib_tag', { name: field.char({ maxLength: 30 }) });
const Article = model('lib_article', {
  title: field.char({ maxLength: 50 }),
  tags: field.manyToMany(() => Tag),
  extra: field.manyToMany(() => Tag, { blank: true, relatedName: 'extra_articles', verboseName: 'extra tags' }),
}, { ordering: ['id'] });

/** A key of its own, a one-to-one and a one-field unique constraint: each a UniqueValidator with Django's message. */
const Profile = model(
  'lib_profile',
  {
    code: field.char({ maxLength: 8, primaryKey: true }),
    author: field.oneToOne(() => Author, { onDelete: 'cascade' }),
    handle: field.slug(),
  },
  { constraints: [uniqueConstraint('lib_profile_handle_uniq', ['handle'])] },
);

/** The other kinds of fields. */
const Gadget = model(
  'lib_gadget',
  {
    uid: field.uuid(),
    specs: field.json({ null: true }),
    opens: field.time(),
    weight: field.float(),
    serial: field.bigInteger(),
    notes: field.text({ null: true, blank: true }),
    homepage: field.url({ blank: true, default: '' }),
  },
  { ordering: ['id'] },
);
const GadgetSerializer = modelSerializer(Gadget, { fields: '__all__' });

/** A unique-together set with a foreign key in it. */
const Review = model(
  'lib_review',
  { book: field.foreignKey(() => Book, { onDelete: 'cascade' }), reviewer: field.char({ maxLength: 20, default: 'anonymous' }), stars: field.integer() },
  { uniqueTogether: [['book', 'reviewer']], ordering: ['id'] },
);

type BookRow = typeof Book.$inferSelect & Record<string, unknown>;

const BookSerializer = modelSerializer(Book, { fields: '__all__' });
const AuthorSerializer = modelSerializer(Author, { fields: '__all__' });
const NestedBookSerializer = modelSerializer(Book, { fields: ['id', 'title', 'author', 'editor'], depth: 1 });
const LinkedBookSerializer = modelSerializer(Book, { fields: ['url', 'title', 'author', 'editor'], hyperlinked: true, name: 'LinkedBook' });
const TrimmedBookSerializer = modelSerializer(Book, {
  exclude: ['created', 'updated', 'price', 'published', 'series', 'number', 'editor'],
  readOnlyFields: ['genre'],
  extraKwargs: { pages: { minValue: 1, required: true }, isbn: { writeOnly: true } },
  declared: { shout: computed((b: BookRow) => b.title.toUpperCase(), { type: 'string' }) },
  name: 'TrimmedBook',
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;
const ArticleSerializer = modelSerializer(Article, { fields: '__all__' });
const NestedArticleSerializer = modelSerializer(Article, { fields: ['id', 'title', 'tags'], depth: 1, name: 'NestedArticle' });
const LinkedArticleSerializer = modelSerializer(Article, { fields: ['url', 'title', 'tags'], hyperlinked: true, name: 'LinkedArticle' });


// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyModelSerializer = ModelSerializer<any, any>;

/**
 * Model views: they read the model's table, load the relations the
 * serializer renders (relatedToLoad) and write through its create/update.
 */
function views(m: AnyModel, s: AnyModelSerializer) {
  class List extends ListCreateAPIView<Row> {
    override model = m;
    override serializer = s as never;
  }
  class Detail extends RetrieveUpdateAPIView<Row> {
    override model = m;
    override serializer = s as never;
  }
  return { List, Detail };
}

const books = views(Book, BookSerializer);
const trimmed = views(Book, TrimmedBookSerializer);
const authors = views(Author, AuthorSerializer);
const articles = views(Article, ArticleSerializer);
const reviews = views(Review, modelSerializer(Review, { fields: '__all__' }));
const gadgets = views(Gadget, GadgetSerializer);
const profiles = views(Profile, modelSerializer(Profile, { fields: '__all__' }));
const loadedList = (m: AnyModel, s: AnyModelSerializer) => views(m, s).List;

describe.each(testDatabases())('ModelSerializer on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let k: Kysely<any>;

  beforeEach(async () => {
    database = await open();
    k = database.db as unknown as Kysely<any>;
    await createModelTables(k, [Author, Book, Tag, Article, Profile, Gadget, Review]);
    await k.insertInto('lib_author').values({ name: 'Ursula K. Le Guin', email: 'ursula@example.com', bio: '' }).execute();
    await k.insertInto('lib_author').values({ name: 'Frank Herbert', email: 'frank@example.com', bio: '' }).execute();
    app = await createApp({
      logger: false,
      database,
      settings: { DEFAULT_AUTHENTICATION_CLASSES: [] },
      routes: [
        path('books/', books.List, { name: 'book-list' }),
        path('books/<int:pk>/', books.Detail, { name: 'book-detail' }),
        path('authors/', authors.List, { name: 'author-list' }),
        path('authors/<int:pk>/', authors.Detail, { name: 'author-detail' }),
        path('trimmed/', trimmed.List),
        path('trimmed/<int:pk>/', trimmed.Detail),
        path('nested/', loadedList(Book, NestedBookSerializer)),
        path('linked/', loadedList(Book, LinkedBookSerializer)),
        path('articles/', articles.List),
        path('profiles/', profiles.List),
        path('gadgets/', gadgets.List),
        path('reviews/', reviews.List),
        path('gadgets/<int:pk>/', gadgets.Detail),
        path('articles/<int:pk>/', articles.Detail, { name: 'article-detail' }),
        path('tags/<int:pk>/', authors.Detail, { name: 'tag-detail' }),
        path('nested-articles/', loadedList(Article, NestedArticleSerializer)),
        path('linked-articles/', loadedList(Article, LinkedArticleSerializer)),
      ],
    });
  });
  afterEach(async () => {
    await app.close();
    await database.close();
  });

  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
  const dune = { title: 'Dune', author: 2, isbn: '9780441013593' };

  function expectJson(res: Awaited<ReturnType<typeof post>>, status: number, body: unknown): void {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual(body);
  }

  it('OPTIONS describes the fields DRF derives from the model', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/books/' });
    expect(res.statusCode).toBe(200);
    const range = { min_value: -2147483648, max_value: 2147483647 };
    // The order is DRF's: the key, plain fields in declaration order, then relations.
    expect(Object.keys(res.json().actions.POST)).toEqual([
      'id', 'title', 'isbn', 'genre', 'pages', 'price', 'in_print', 'published', 'created', 'updated', 'series', 'number', 'author', 'editor',
    ]);
    expect(res.json().actions.POST).toEqual({
      id: { type: 'integer', required: false, read_only: true, label: 'ID' },
      title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 20 },
      isbn: { type: 'string', required: true, read_only: false, label: 'Isbn', max_length: 13 },
      genre: {
        type: 'choice',
        required: false,
        read_only: false,
        label: 'Genre',
        choices: [
          { value: 'sf', display_name: 'Science fiction' },
          { value: 'poetry', display_name: 'Poetry' },
        ],
      },
      pages: { type: 'integer', required: false, read_only: false, label: 'Pages', ...range },
      price: { type: 'decimal', required: false, read_only: false, label: 'Price', max_digits: 6, decimal_places: 2 },
      in_print: { type: 'boolean', required: false, read_only: false, label: 'In print' },
      published: { type: 'date', required: false, read_only: false, label: 'Published' },
      created: { type: 'datetime', required: false, read_only: true, label: 'Created' },
      updated: { type: 'datetime', required: false, read_only: true, label: 'Updated' },
      series: { type: 'string', required: false, read_only: false, label: 'Series', max_length: 20 },
      number: { type: 'integer', required: false, read_only: false, label: 'Number', ...range },
      author: { type: 'field', required: true, read_only: false, label: 'Author' },
      editor: { type: 'field', required: false, read_only: false, label: 'Editor' },
    });
    const authorOptions = await app.inject({ method: 'OPTIONS', url: '/authors/' });
    expect(authorOptions.json().actions.POST).toEqual({
      id: { type: 'integer', required: false, read_only: true, label: 'ID' },
      name: { type: 'string', required: true, read_only: false, label: 'Full name', help_text: 'As printed on the cover.', max_length: 100 },
      email: { type: 'email', required: true, read_only: false, label: 'Email', max_length: 254 },
      bio: { type: 'string', required: false, read_only: false, label: 'Bio' },
    });
  });

  it('creates through create(): defaults, autoNowAdd and the foreign key column; renders DRF output', async () => {
    const res = await post('/books/', dune);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: 1,
      title: 'Dune',
      isbn: '9780441013593',
      genre: 'sf',
      pages: null,
      price: '0.00',
      in_print: true,
      published: null,
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      series: null,
      number: null,
      author: 2,
      editor: null,
    });
    const row = await k.selectFrom('lib_book').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ author_id: 2, editor_id: null, title: 'Dune' });
    const full = await post('/books/', {
      title: 'Earthsea',
      author: 1,
      editor: 2,
      isbn: '9780547773742',
      genre: 'poetry',
      pages: 183,
      price: '12.5',
      in_print: false,
      published: '1968-09-01',
    });
    expect(full.statusCode, full.body).toBe(201);
    expect(full.json()).toMatchObject({ id: 2, author: 1, editor: 2, genre: 'poetry', pages: 183, price: '12.50', in_print: false, published: '1968-09-01' });
    expectJson(await app.inject({ url: '/books/2/' }), 200, full.json());
  });

  it('missing, null, blank, too long, out of range and unknown choices answer as DRF', async () => {
    expectJson(await post('/books/', {}), 400, {
      title: ['This field is required.'],
      isbn: ['This field is required.'],
      author: ['This field is required.'],
    });
    expectJson(await post('/books/', { ...dune, title: 'x'.repeat(21), author: null, pages: 2147483648, genre: 'crime', in_print: null }), 400, {
      title: ['Ensure this field has no more than 20 characters.'],
      author: ['This field may not be null.'],
      pages: ['Ensure this value is less than or equal to 2147483647.'],
      genre: ['"crime" is not a valid choice.'],
      in_print: ['This field may not be null.'],
    });
    expectJson(await post('/books/', { ...dune, title: '' }), 400, { title: ['This field may not be blank.'] });
    // blank=True: '' is accepted and the field is not required.
    const blank = await post('/authors/', { name: 'Anon', email: 'anon@example.com', bio: '' });
    expectJson(blank, 201, { id: 3, name: 'Anon', email: 'anon@example.com', bio: '' });
    // Left out, a string field with no default is saved as Django saves it: ''.
    expectJson(await post('/authors/', { name: 'Quiet', email: 'quiet@example.com' }), 201, { id: 4, name: 'Quiet', email: 'quiet@example.com', bio: '' });
    expectJson(await post('/authors/', { name: 'Nobody', email: 'not-an-email' }), 400, { email: ['Enter a valid email address.'] });
  });

  it('a foreign key to a missing row is DRF\'s "Invalid pk" message', async () => {
    expectJson(await post('/books/', { ...dune, author: 999 }), 400, { author: ['Invalid pk "999" - object does not exist.'] });
    expectJson(await post('/books/', { ...dune, author: 'x' }), 400, { author: ['Incorrect type. Expected pk value, received str.'] });
    expect(await k.selectFrom('lib_book').selectAll().execute()).toEqual([]);
  });

  it('unique fields and unique-together sets answer with DRF\'s messages', async () => {
    expect((await post('/books/', { ...dune, series: 'Dune', number: 1 })).statusCode).toBe(201);
    expectJson(await post('/books/', { ...dune, title: 'Other' }), 400, { isbn: ['book with this isbn already exists.'] });
    expectJson(await post('/authors/', { name: 'Again', email: 'frank@example.com' }), 400, { email: ['author with this email already exists.'] });
    expectJson(await post('/books/', { ...dune, isbn: '1', series: 'Dune', number: 1 }), 400, {
      non_field_errors: ['The fields series, number must make a unique set.'],
    });
    // A PUT keeping its own values is no conflict with itself.
    const put = await app.inject({ method: 'PUT', url: '/books/1/', payload: { ...dune, series: 'Dune', number: 1, pages: 412 } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ id: 1, pages: 412, series: 'Dune', number: 1 });
  });

  it('updates through update(): only the fields given, autoNow moves, the key column is written', async () => {
    const created = (await post('/books/', dune)).json();
    await new Promise((r) => setTimeout(r, 5));
    const patch = await app.inject({ method: 'PATCH', url: '/books/1/', payload: { editor: 1, pages: 10 } });
    expect(patch.statusCode, patch.body).toBe(200);
    const after = patch.json();
    expect(after).toEqual({ ...created, editor: 1, pages: 10, updated: after.updated });
    expect(Date.parse(after.updated)).toBeGreaterThan(Date.parse(created.updated));
    expect(after.created).toBe(created.created);
    expect(await k.selectFrom('lib_book').select(['editor_id', 'pages', 'title']).executeTakeFirstOrThrow()).toEqual({ editor_id: 1, pages: 10, title: 'Dune' });
    expectJson(await app.inject({ method: 'PATCH', url: '/books/1/', payload: { editor: null } }), 200, { ...after, editor: null, updated: expect.any(String) });
  });

  it('exclude, readOnlyFields, extraKwargs and declared fields', async () => {
    const options = await app.inject({ method: 'OPTIONS', url: '/trimmed/' });
    expect(options.json().actions.POST).toEqual({
      id: { type: 'integer', required: false, read_only: true, label: 'ID' },
      shout: { type: 'field', required: false, read_only: true, label: 'Shout' },
      title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 20 },
      isbn: { type: 'string', required: true, read_only: false, label: 'Isbn', max_length: 13 },
      genre: { type: 'choice', required: false, read_only: true, label: 'Genre' },
      pages: { type: 'integer', required: true, read_only: false, label: 'Pages', min_value: 1, max_value: 2147483647 },
      in_print: { type: 'boolean', required: false, read_only: false, label: 'In print' },
      author: { type: 'field', required: true, read_only: false, label: 'Author' },
    });
    expectJson(await post('/trimmed/', { ...dune, pages: 0, genre: 'poetry' }), 400, { pages: ['Ensure this value is greater than or equal to 1.'] });
    // genre is read-only: the value sent is ignored and the model default applies; isbn is write-only.
    expectJson(await post('/trimmed/', { ...dune, pages: 5, genre: 'poetry' }), 201, {
      id: 1,
      shout: 'DUNE',
      title: 'Dune',
      genre: 'sf',
      pages: 5,
      in_print: true,
      author: 2,
    });
  });

  it('depth renders the loaded related rows as nested, read-only serializers', async () => {
    await post('/books/', { ...dune, editor: 1 });
    await post('/books/', { ...dune, title: 'Earthsea', isbn: '2', author: 1 });
    expectJson(await app.inject({ url: '/nested/' }), 200, [
      {
        id: 1,
        title: 'Dune',
        author: { id: 2, name: 'Frank Herbert', email: 'frank@example.com', bio: '' },
        editor: { id: 1, name: 'Ursula K. Le Guin', email: 'ursula@example.com', bio: '' },
      },
      { id: 2, title: 'Earthsea', author: { id: 1, name: 'Ursula K. Le Guin', email: 'ursula@example.com', bio: '' }, editor: null },
    ]);
    expect(NestedBookSerializer.relatedToLoad()).toEqual({ selectRelated: ['author', 'editor'], prefetchRelated: [] });
    expect(NestedBookSerializer.describe()['author']).toEqual({
      type: 'nested object',
      required: false,
      read_only: true,
      label: 'Author',
      children: {
        id: { type: 'integer', required: false, read_only: true, label: 'ID' },
        name: { type: 'string', required: true, read_only: false, label: 'Full name', help_text: 'As printed on the cover.', max_length: 100 },
        email: { type: 'email', required: true, read_only: false, label: 'Email', max_length: 254 },
        bio: { type: 'string', required: false, read_only: false, label: 'Bio' },
      },
    });
  });

  it('hyperlinked: the url identity field and relations as links', async () => {
    await post('/books/', { ...dune, editor: 1 });
    expectJson(await app.inject({ url: '/linked/' }), 200, [
      { url: 'http://localhost:80/books/1/', title: 'Dune', author: 'http://localhost:80/authors/2/', editor: 'http://localhost:80/authors/1/' },
    ]);
    expect(LinkedBookSerializer.describe()).toEqual({
      url: { type: 'field', required: false, read_only: true, label: 'Url' },
      title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 20 },
      author: { type: 'field', required: true, read_only: false, label: 'Author' },
      editor: { type: 'field', required: false, read_only: false, label: 'Editor' },
    });
  });

  describe('many-to-many fields', () => {
    beforeEach(async () => {
      await k.insertInto('lib_tag').values([{ name: 'sf' }, { name: 'classic' }, { name: 'award' }]).execute();
    });
    const joinRows = async (table: string) =>
      (await k.selectFrom(table).select(['article_id', 'tag_id']).orderBy('article_id').orderBy('tag_id').execute()).map((r) => [r.article_id, r.tag_id]);

    it('OPTIONS: a required, non-empty list of keys; blank makes it optional', async () => {
      const res = await app.inject({ method: 'OPTIONS', url: '/articles/' });
      expect(res.json().actions.POST).toEqual({
        id: { type: 'integer', required: false, read_only: true, label: 'ID' },
        title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 50 },
        tags: { type: 'field', required: true, read_only: false, label: 'Tags' },
        extra: { type: 'field', required: false, read_only: false, label: 'Extra tags' },
      });
      expect(ArticleSerializer.relatedToLoad()).toEqual({ selectRelated: [], prefetchRelated: ['tags', 'extra'] });
    });

    it('create writes the join rows; the lists render in key order', async () => {
      const res = await post('/articles/', { title: 'Dune', tags: [3, 1] });
      expectJson(res, 201, { id: 1, title: 'Dune', tags: [1, 3], extra: [] });
      expect(await joinRows('lib_article_tags')).toEqual([[1, 1], [1, 3]]);
      expect(await joinRows('lib_article_extra')).toEqual([]);
      expectJson(await app.inject({ url: '/articles/1/' }), 200, { id: 1, title: 'Dune', tags: [1, 3], extra: [] });
    });

    it('the browsable form sends a many-to-many list as JSON', async () => {
      const page = await app.inject({ url: '/articles/', headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toMatch(/<textarea name="tags" id="[^"]*" data-type="json"[^>]* required/);
      expect(page.body).toMatch(/<textarea name="extra" id="[^"]*" data-type="json"/);
    });

    it("lists are validated as DRF's ManyRelatedField", async () => {
      expectJson(await post('/articles/', { title: 'A' }), 400, { tags: ['This field is required.'] });
      expectJson(await post('/articles/', { title: 'A', tags: [] }), 400, { tags: ['This list may not be empty.'] });
      expectJson(await post('/articles/', { title: 'A', tags: 1 }), 400, { tags: ['Expected a list of items but got type "int".'] });
      expectJson(await post('/articles/', { title: 'A', tags: [1, 99] }), 400, { tags: ['Invalid pk "99" - object does not exist.'] });
      expectJson(await post('/articles/', { title: 'A', tags: [1], extra: [] }), 201, { id: 1, title: 'A', tags: [1], extra: [] });
    });

    it('update replaces a list given and keeps one not given', async () => {
      await post('/articles/', { title: 'Dune', tags: [1, 2], extra: [3] });
      expectJson(await app.inject({ method: 'PATCH', url: '/articles/1/', payload: { tags: [2, 3, 3] } }), 200, { id: 1, title: 'Dune', tags: [2, 3], extra: [3] });
      expect(await joinRows('lib_article_tags')).toEqual([[1, 2], [1, 3]]);
      expectJson(await app.inject({ method: 'PATCH', url: '/articles/1/', payload: { title: 'Dune II' } }), 200, { id: 1, title: 'Dune II', tags: [2, 3], extra: [3] });
      expectJson(await app.inject({ method: 'PUT', url: '/articles/1/', payload: { title: 'Dune', tags: [1], extra: [] } }), 200, { id: 1, title: 'Dune', tags: [1], extra: [] });
      expect(await joinRows('lib_article_extra')).toEqual([]);
    });

    it('depth renders the related rows; hyperlinked renders their links', async () => {
      await post('/articles/', { title: 'Dune', tags: [2, 1] });
      await post('/articles/', { title: 'Emma', tags: [3] });
      expectJson(await app.inject({ url: '/nested-articles/' }), 200, [
        { id: 1, title: 'Dune', tags: [{ id: 1, name: 'sf' }, { id: 2, name: 'classic' }] },
        { id: 2, title: 'Emma', tags: [{ id: 3, name: 'award' }] },
      ]);
      expect(NestedArticleSerializer.describe()['tags']).toEqual({
        type: 'field',
        required: false,
        read_only: true,
        label: 'Tags',
        child: {
          type: 'nested object',
          required: false,
          read_only: true,
          children: {
            id: { type: 'integer', required: false, read_only: true, label: 'ID' },
            name: { type: 'string', required: true, read_only: false, label: 'Name', max_length: 30 },
          },
        },
      });
      expectJson(await app.inject({ url: '/linked-articles/' }), 200, [
        { url: 'http://localhost:80/articles/1/', title: 'Dune', tags: ['http://localhost:80/tags/1/', 'http://localhost:80/tags/2/'] },
        { url: 'http://localhost:80/articles/2/', title: 'Emma', tags: ['http://localhost:80/tags/3/'] },
      ]);
      // Links are accepted back, as DRF's HyperlinkedRelatedField.
      expectJson(await post('/linked-articles/', { title: 'Kim', tags: ['http://localhost:80/tags/3/', '/tags/2/'] }), 201, {
        url: 'http://localhost:80/articles/3/',
        title: 'Kim',
        tags: ['http://localhost:80/tags/2/', 'http://localhost:80/tags/3/'],
      });
      expectJson(await post('/linked-articles/', { title: 'Kim', tags: ['http://localhost:80/articles/1/'] }), 400, {
        tags: ['Invalid hyperlink - Incorrect URL match.'],
      });
    });
  });

  it('a unique-together set with a foreign key: a default stands in for a missing value, the set is checked', async () => {
    await post('/books/', dune);
    const options = (await app.inject({ method: 'OPTIONS', url: '/reviews/' })).json().actions.POST;
    expect(options).toEqual({
      id: { type: 'integer', required: false, read_only: true, label: 'ID' },
      reviewer: { type: 'string', required: false, read_only: false, label: 'Reviewer', max_length: 20 },
      stars: { type: 'integer', required: true, read_only: false, label: 'Stars', min_value: -2147483648, max_value: 2147483647 },
      book: { type: 'field', required: true, read_only: false, label: 'Book' },
    });
    // DRF gives the field of the set its model default, so the set is complete on create.
    expectJson(await post('/reviews/', { book: 1, stars: 5 }), 201, { id: 1, reviewer: 'anonymous', stars: 5, book: 1 });
    expectJson(await post('/reviews/', { book: 1, stars: 3 }), 400, { non_field_errors: ['The fields book, reviewer must make a unique set.'] });
    expectJson(await post('/reviews/', { book: 1, reviewer: 'ann', stars: 3 }), 201, { id: 2, reviewer: 'ann', stars: 3, book: 1 });
  });

  it('a key of its own, a one-to-one and a one-field unique constraint are checked as unique', async () => {
    const options = await app.inject({ method: 'OPTIONS', url: '/profiles/' });
    expect(options.json().actions.POST).toEqual({
      code: { type: 'string', required: true, read_only: false, label: 'Code', max_length: 8 },
      handle: { type: 'slug', required: true, read_only: false, label: 'Handle', max_length: 50 },
      author: { type: 'field', required: true, read_only: false, label: 'Author' },
    });
    expectJson(await post('/profiles/', { code: 'ul', author: 1, handle: 'ursula' }), 201, { code: 'ul', handle: 'ursula', author: 1 });
    expectJson(await post('/profiles/', { code: 'ul', author: 1, handle: 'ursula' }), 400, {
      code: ['profile with this code already exists.'],
      handle: ['profile with this handle already exists.'],
      author: ['profile with this author already exists.'],
    });
    expectJson(await post('/profiles/', { code: 'fh', author: 2, handle: 'not a slug' }), 400, {
      handle: ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'],
    });
  });

  it('uuid, json, time, float, bigInteger, text and url fields map and round-trip', async () => {
    const options = (await app.inject({ method: 'OPTIONS', url: '/gadgets/' })).json().actions.POST;
    expect(options).toMatchObject({
      uid: { type: 'string', required: true, read_only: false, label: 'Uid' },
      specs: { required: false, read_only: false, label: 'Specs' },
      opens: { type: 'time', required: true, read_only: false, label: 'Opens' },
      weight: { type: 'float', required: true, read_only: false, label: 'Weight' },
      serial: { type: 'integer', required: true, read_only: false, label: 'Serial' },
      notes: { type: 'string', required: false, read_only: false, label: 'Notes' },
      homepage: { type: 'url', required: false, read_only: false, label: 'Homepage', max_length: 200 },
    });
    const sent = { uid: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', specs: { a: [1, 2], b: null }, opens: '09:30', weight: 1.5, serial: 9007199254740991, notes: null };
    const created = {
      id: 1,
      uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      specs: { a: [1, 2], b: null },
      opens: '09:30:00',
      weight: 1.5,
      serial: 9007199254740991,
      notes: null,
      homepage: '',
    };
    expectJson(await post('/gadgets/', sent), 201, created);
    expectJson(await app.inject({ url: '/gadgets/1/' }), 200, created);
    expectJson(await app.inject({ method: 'PATCH', url: '/gadgets/1/', payload: { specs: [3], notes: '' } }), 200, { ...created, specs: [3], notes: '' });
    expectJson(await post('/gadgets/', { ...sent, uid: 'nope', opens: '25:00', weight: 'x' }), 400, {
      uid: ['Must be a valid UUID.'],
      opens: ['Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].'],
      weight: ['A valid number is required.'],
    });
  });

  it('OpenAPI builds its components from the model serializer', async () => {
    const doc = generateOpenAPI(app) as { components: { schemas: Record<string, unknown> } };
    const keys = { type: 'array', items: { type: 'integer' } };
    expect(doc.components.schemas['Article']).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        title: { type: 'string', maxLength: 50 },
        tags: { ...keys, minItems: 1 },
        extra: { ...keys, title: 'Extra tags' },
      },
      required: ['id', 'title', 'tags'],
    });
    expect(doc.components.schemas['ArticleRequest']).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 50, minLength: 1 },
        tags: { ...keys, minItems: 1 },
        extra: { ...keys, title: 'Extra tags' },
      },
      required: ['title', 'tags'],
    });
  });

  it('create and update load nested relations, and run an overridden loadRelated, after the write', async () => {
    const created = await NestedBookSerializer.create(k, { title: 'Dune', author: 2, isbn: '9780441013593' }, { request: null });
    expect(created['author']).toMatchObject({ id: 2, name: 'Frank Herbert' });
    const updated = await NestedBookSerializer.update(k, created, { editor: 1 }, { request: null });
    expect(updated['editor']).toMatchObject({ id: 1, name: 'Ursula K. Le Guin' });
    const Plain = modelSerializer(Book, { fields: ['id', 'title', 'author', 'isbn'] });
    const plain = await Plain.create(k, { title: 'Emma', author: 1, isbn: '9780141439587' }, { request: null });
    expect(plain['author_id']).toBe(1);
    expect('author' in plain).toBe(false);
    const loaded: number[] = [];
    const Marked = Object.assign(Object.create(Plain) as typeof Plain, {
      loadRelated: async (_db: unknown, rows: Record<string, unknown>[]) => {
        for (const r of rows) loaded.push(Number(r['id']));
      },
    });
    const marked = await Marked.create(k, { title: 'Ubik', author: 1, isbn: '9780547572291' }, { request: null });
    await Marked.update(k, marked, { title: 'Ubik!' }, { request: null });
    expect(loaded).toEqual([Number(marked['id']), Number(marked['id'])]);
  });

  it('writable nested data is a programming error with DRF\'s text', async () => {
    const Writable = modelSerializer(Book, { fields: ['id', 'title', 'author'], declared: { author: AuthorSerializer } });
    await expect(Writable.create(k, { title: 'X', author: { name: 'A' } }, { request: null })).rejects.toThrow(
      'The `.create()` method does not support writable nested fields by default.\nWrite an explicit `.create()` method for serializer `Book`, or set `read_only=True` on nested serializer fields.',
    );
    const Dotted = modelSerializer(Book, { fields: ['id', 'author_name'], declared: { author_name: string({ source: 'author.name' }) } });
    await expect(Dotted.update(k, { id: 1 }, { author_name: 'X' }, { request: null })).rejects.toThrow(
      'The `.update()` method does not support writable dotted-source fields by default.\nWrite an explicit `.update()` method for serializer `Book`, or set `read_only=True` on dotted-source serializer fields.',
    );
  });
});

describe('ModelSerializer declarations', () => {
  it('refuses names that are not fields, and declared fields left out of `fields`', () => {
    expect(() => modelSerializer(Book, { fields: ['id', 'nope'] })).toThrow('Field name `nope` is not valid for model `Book` in serializer `Book`.');
    expect(() => modelSerializer(Book, { fields: ['id'], declared: { shout: computed(() => 1) } })).toThrow(
      "The field 'shout' was declared on serializer Book, but has not been included in the 'fields' option.",
    );
    expect(() => modelSerializer(Book, { depth: 11 })).toThrow("'depth' may not be greater than 10.");
    // The derived unique-together validator, unless `validators` replaces it (DRF's Meta.validators).
    expect(BookSerializer.validators).toEqual([expect.objectContaining({ fields: ['series', 'number'], queryset: 'lib_book', pk: 'id' })]);
    expect(modelSerializer(Book, { validators: [] }).validators).toEqual([]);
  });

  it('infers input and output types from the model and the options', () => {
    type In = Infer<typeof BookSerializer>['input'];
    type Out = Infer<typeof BookSerializer>['output'];
    expectTypeOf<In>().toEqualTypeOf<{
      title: string;
      author: RelatedRow;
      isbn: string;
      editor?: RelatedRow | null;
      genre?: 'sf' | 'poetry';
      pages?: number | null;
      price?: string;
      in_print?: boolean;
      published?: string | null;
      series?: string | null;
      number?: number | null;
    }>();
    expectTypeOf<Out['id']>().toEqualTypeOf<number>();
    expectTypeOf<Out['created']>().toEqualTypeOf<string>();
    expectTypeOf<Out['price']>().toEqualTypeOf<string>();
    expectTypeOf<Out['author']>().toEqualTypeOf<number>();
    expectTypeOf<Out['editor']>().toEqualTypeOf<number | null>();
    type TrimmedIn = Infer<typeof TrimmedBookSerializer>['input'];
    type TrimmedOut = Infer<typeof TrimmedBookSerializer>['output'];
    expectTypeOf<TrimmedIn>().toEqualTypeOf<{ title: string; author: RelatedRow; isbn: string; pages: number | null; in_print?: boolean }>();
    expectTypeOf<keyof TrimmedOut>().toEqualTypeOf<'id' | 'shout' | 'title' | 'genre' | 'pages' | 'in_print' | 'author'>();
    expectTypeOf<TrimmedOut['shout']>().toEqualTypeOf<string>();
    expectTypeOf<Infer<typeof LinkedBookSerializer>['output']>().toEqualTypeOf<{ url: string; title: string; author: string; editor: string | null }>();
    expectTypeOf<Infer<typeof NestedBookSerializer>['output']['author']>().toEqualTypeOf<Record<string, unknown>>();
    type ArticleIn = Infer<typeof ArticleSerializer>['input'];
    expectTypeOf<ArticleIn>().toEqualTypeOf<{ title: string; tags: RelatedRow[]; extra?: RelatedRow[] }>();
    expectTypeOf<Infer<typeof ArticleSerializer>['output']>().toEqualTypeOf<{ id: number; title: string; tags: number[]; extra: number[] }>();
    expectTypeOf<Infer<typeof LinkedArticleSerializer>['output']>().toEqualTypeOf<{ url: string; title: string; tags: string[] }>();
    expectTypeOf<Infer<typeof NestedArticleSerializer>['input']>().toEqualTypeOf<{ title: string }>();
    // @ts-expect-error: `exclude` names model fields only.
    expect(() => modelSerializer(Book, { exclude: ['nope'] })).toThrow(
      "The field 'nope' was included on serializer Book in the 'exclude' option, but does not match any model field.",
    );
  });
});
