import { describe, expect, it } from 'vitest';
import {
  CreateAPIView,
  NamespaceVersioning,
  RetrieveUpdateAPIView,
  URLPathVersioning,
  boolean,
  choice,
  createApp,
  date,
  datetime,
  decimal,
  dict,
  email,
  float,
  hyperlinkedIdentity,
  hyperlinkedRelated,
  include,
  integer,
  list,
  multipleChoice,
  nested,
  path,
  primaryKeyRelated,
  serializer,
  slug,
  slugRelated,
  string,
  time,
  url,
  uuid,
  type ApiRequest,
  type Infer,
  type RouteEntry,
} from '../../src/index.js';

const Address = serializer({ city: string(), zip: string({ required: false }) });

const Everything = serializer({
  id: integer({ readOnly: true }),
  name: string({ minLength: 2, maxLength: 5 }),
  count: integer({ minValue: 0, maxValue: 10, required: false }),
  ratio: float({ required: false }),
  price: decimal({ maxDigits: 5, decimalPlaces: 2, required: false }),
  active: boolean({ required: false }),
  born: date({ required: false }),
  at: datetime({ required: false }),
  alarm: time({ required: false }),
  contact: email({ required: false }),
  site: url({ required: false }),
  key: uuid({ required: false }),
  handle: slug({ required: false }),
  colour: choice(['red', 'green'], { required: false }),
  tags: multipleChoice(['a', 'b'], { required: false }),
  scores: list(integer(), { required: false, maxLength: 3 }),
  meta: dict(string(), { required: false }),
  address: nested(Address, { required: false }),
  secret: string({ writeOnly: true, required: false }),
  note: string({ allowNull: true, required: false }),
  level: integer({ default: 3 }),
});
type Input = Infer<typeof Everything>['input'];

class EverythingCreate extends CreateAPIView<Input & { id: number }, typeof Everything> {
  override authenticationClasses = [];
  override serializer = Everything;
  override performCreate(_req: ApiRequest, data: Input) {
    // Typed input: these lines compile only if the inferred types are right.
    const name: string = data.name;
    const at: Date | undefined = data.at;
    const note: string | null | undefined = data.note;
    const level: number | undefined = data.level;
    void [name, at, note, level];
    return { id: 1, ...data };
  }
}

const stored = { id: 1, name: 'Kept', level: 9, count: 1 };
class EverythingDetail extends RetrieveUpdateAPIView<typeof stored, typeof Everything> {
  override authenticationClasses = [];
  override serializer = Everything;
  override getQueryset() {
    return [stored];
  }
  override performUpdate(_req: ApiRequest, item: typeof stored, data: Partial<Input>) {
    return { ...item, ...data };
  }
}

async function send(method: 'POST' | 'PATCH' | 'PUT', url: string, payload: unknown) {
  const app = await createApp({ routes: [path('things/', EverythingCreate), path('things/<int:pk>/', EverythingDetail)] });
  const res = await app.inject({ method, url, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  await app.close();
  return res;
}

describe('serializer fields through HTTP, with DRF\'s coercions and messages', () => {
  it('converts every kind and renders it back, write-only left out, defaults applied', async () => {
    const res = await send('POST', '/things/', {
      name: ' ab ',
      count: '7.0',
      ratio: '1.5e1',
      price: 3.1,
      active: 'yes',
      born: '2024-02-29',
      at: '2024-05-01T12:30:00.25+02:00',
      alarm: '7:05',
      contact: 'a@example.com',
      site: 'https://example.com/x?y=1',
      key: '{12345678-1234-5678-1234-56781234ABCD}',
      handle: 'my_slug-1',
      colour: 'red',
      tags: ['a', 'a', 'b'],
      scores: ['1', 2],
      meta: { k: 'v' },
      address: { city: 'Oslo' },
      secret: 'hidden',
      note: null,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      id: 1,
      name: 'ab',
      count: 7,
      ratio: 15,
      price: '3.10',
      active: true,
      born: '2024-02-29',
      at: '2024-05-01T10:30:00.250000Z',
      alarm: '07:05:00',
      contact: 'a@example.com',
      site: 'https://example.com/x?y=1',
      key: '12345678-1234-5678-1234-56781234abcd',
      handle: 'my_slug-1',
      colour: 'red',
      tags: ['a', 'b'],
      scores: [1, 2],
      meta: { k: 'v' },
      address: { city: 'Oslo' },
      note: null,
      level: 3,
    });
  });

  it('answers each kind\'s DRF message, every failing field at once', async () => {
    const res = await send('POST', '/things/', {
      name: 'a\u0000',
      count: 12.5,
      ratio: 'abc',
      price: '1.456',
      active: 'maybe',
      born: '2024-02-30',
      at: 'yesterday',
      alarm: '25:00',
      contact: 'x@',
      site: 'ftp:/x',
      key: 'zzz',
      handle: 'a b',
      colour: 'blue',
      tags: 'a',
      scores: [1, 'x', null],
      meta: [],
      address: { zip: 5 },
      level: true,
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      name: ['Null characters are not allowed.'],
      count: ['A valid integer is required.'],
      ratio: ['A valid number is required.'],
      price: ['Ensure that there are no more than 2 decimal places.'],
      active: ['Must be a valid boolean.'],
      born: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      at: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'],
      alarm: ['Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].'],
      contact: ['Enter a valid email address.'],
      site: ['Enter a valid URL.'],
      key: ['Must be a valid UUID.'],
      handle: ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'],
      colour: ['"blue" is not a valid choice.'],
      tags: ['Expected a list of items but got type "str".'],
      scores: { '1': ['A valid integer is required.'], '2': ['This field may not be null.'] },
      meta: ['Expected a dictionary of items but got type "list".'],
      address: { city: ['This field is required.'] },
      level: ['A valid integer is required.'],
    });
  });

  it('limits: lengths, ranges, digits, list sizes', async () => {
    const res = await send('POST', '/things/', { name: 'toolong', count: -1, price: 1234.5, scores: [1, 2, 3, 4] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      name: ['Ensure this field has no more than 5 characters.'],
      count: ['Ensure this value is greater than or equal to 0.'],
      price: ['Ensure that there are no more than 3 digits before the decimal point.'],
      scores: ['Ensure this field has no more than 3 elements.'],
    });
    const digits = await send('POST', '/things/', { name: 'ok', price: '1234.56' });
    expect(digits.json()).toEqual({ price: ['Ensure that there are no more than 5 digits in total.'] });
  });

  it('CharField takes numbers as their string, refuses booleans, lists and blank', async () => {
    const number = await send('POST', '/things/', { name: 123 });
    expect(number.statusCode).toBe(201);
    expect(number.json().name).toBe('123');
    const small = await send('POST', '/things/', { name: 0.00001 });
    expect(small.json().name).toBe('1e-05');
    const bool = await send('POST', '/things/', { name: true });
    expect(bool.json()).toEqual({ name: ['Not a valid string.'] });
    const blank = await send('POST', '/things/', { name: '   ' });
    expect(blank.json()).toEqual({ name: ['This field may not be blank.'] });
  });

  it('missing, null and non-object bodies', async () => {
    expect((await send('POST', '/things/', {})).json()).toEqual({ name: ['This field is required.'] });
    expect((await send('POST', '/things/', { name: null })).json()).toEqual({ name: ['This field may not be null.'] });
    const list = await send('POST', '/things/', [1]);
    expect(list.statusCode).toBe(400);
    expect(list.json()).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  });

  it('PATCH validates only what is sent and applies no defaults; PUT validates the whole body', async () => {
    const bad = await send('PATCH', '/things/1/', { count: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ count: ['A valid integer is required.'] });
    const ok = await send('PATCH', '/things/1/', { count: 5 });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: 1, name: 'Kept', count: 5, level: 9 });
    const put = await send('PUT', '/things/1/', { count: 5 });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toEqual({ name: ['This field is required.'] });
  });
});

// ------------------------------------------------------------------ related fields

interface Author {
  id: number;
  slug: string;
}
interface Book {
  id: number;
  author_id: number;
}
const authors: Author[] = [
  { id: 1, slug: 'le-guin' },
  { id: 2, slug: 'pratchett' },
];

const ByKey = serializer({
  byPk: primaryKeyRelated({ queryset: () => authors, required: false }),
  bySlug: slugRelated({ queryset: () => authors, slugField: 'slug', required: false }),
});

class RelatedCreate extends CreateAPIView<Record<string, unknown>, typeof ByKey> {
  override authenticationClasses = [];
  override serializer = ByKey;
  override performCreate(_req: ApiRequest, data: Infer<typeof ByKey>['input']) {
    const slugOfPk: string | undefined = data.byPk?.slug;
    return { byPk: data.byPk, bySlug: data.bySlug, slugOfPk };
  }
}

describe('primary-key and slug related fields', () => {
  async function post(payload: unknown) {
    const app = await createApp({ routes: [path('rel/', RelatedCreate)] });
    const res = await app.inject({ method: 'POST', url: '/rel/', payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
    await app.close();
    return res;
  }

  it('look the object up and render its key', async () => {
    const res = await post({ byPk: '2', bySlug: 'le-guin' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ byPk: 2, bySlug: 'le-guin' });
  });

  it('answer DRF\'s messages for a missing object or a wrong type', async () => {
    const res = await post({ byPk: 99, bySlug: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      byPk: ['Invalid pk "99" - object does not exist.'],
      bySlug: ['Object with slug=nobody does not exist.'],
    });
    const types = await post({ byPk: 'abc', bySlug: { a: 1 } });
    expect(types.json()).toEqual({ byPk: ['Incorrect type. Expected pk value, received str.'], bySlug: ['Invalid value.'] });
    const bool = await post({ byPk: true });
    expect(bool.json()).toEqual({ byPk: ['Incorrect type. Expected pk value, received bool.'] });
  });
});

describe('hyperlinked fields carry the version and accept the URL they render', () => {
  const books: Book[] = [{ id: 1, author_id: 2 }];
  const BookSerializer = serializer({
    url: hyperlinkedIdentity({ viewName: 'book-detail' }),
    author: hyperlinkedRelated({ viewName: 'author-detail', source: 'author_id', queryset: () => authors }),
  });

  function routesFor(versioning: typeof URLPathVersioning | typeof NamespaceVersioning): RouteEntry[] {
    class BookDetail extends RetrieveUpdateAPIView<Book, typeof BookSerializer> {
      override authenticationClasses = [];
      override versioningClass = versioning;
      override serializer = BookSerializer;
      override getQueryset() {
        return books;
      }
      override performUpdate(_req: ApiRequest, book: Book, data: Partial<Infer<typeof BookSerializer>['input']>) {
        return { ...book, author_id: data.author?.id ?? book.author_id };
      }
    }
    class AuthorDetail extends RetrieveUpdateAPIView<Author> {
      override authenticationClasses = [];
      override versioningClass = versioning;
      override getQueryset() {
        return authors;
      }
    }
    return [path('books/<int:pk>/', BookDetail, { name: 'book-detail' }), path('authors/<int:pk>/', AuthorDetail, { name: 'author-detail' })];
  }

  it('URL-path versioning: v1 links, a v1 link accepted back (PUT as fetched is 200)', async () => {
    const app = await createApp({ routes: [include('<version>/', routesFor(URLPathVersioning))] });
    const got = await app.inject({ url: '/v1/books/1/' });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ url: 'http://localhost:80/v1/books/1/', author: 'http://localhost:80/v1/authors/2/' });
    const put = await app.inject({ method: 'PUT', url: '/v1/books/1/', payload: { ...(got.json() as object), author: 'http://localhost:80/v1/authors/1/' } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ url: 'http://localhost:80/v1/books/1/', author: 'http://localhost:80/v1/authors/1/' });
    const wrong = await app.inject({ method: 'PUT', url: '/v1/books/1/', payload: { author: 'http://localhost:80/v1/books/1/' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ author: ['Invalid hyperlink - Incorrect URL match.'] });
    await app.close();
  });

  it('namespace versioning: the link names the version namespace and is accepted back; another namespace is refused', async () => {
    const app = await createApp({
      routes: [include('v1/', routesFor(NamespaceVersioning), { namespace: 'v1' }), include('v2/', routesFor(NamespaceVersioning), { namespace: 'v2' })],
    });
    const got = await app.inject({ url: '/v2/books/1/' });
    expect(got.json()).toEqual({ url: 'http://localhost:80/v2/books/1/', author: 'http://localhost:80/v2/authors/2/' });
    const put = await app.inject({ method: 'PUT', url: '/v2/books/1/', payload: got.json() });
    expect(put.statusCode).toBe(200);
    const other = await app.inject({ method: 'PUT', url: '/v2/books/1/', payload: { author: 'http://localhost:80/v1/authors/2/' } });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toEqual({ author: ['Invalid hyperlink - Incorrect URL match.'] });
    await app.close();
  });
});
