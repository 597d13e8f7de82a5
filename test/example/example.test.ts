import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyUserStore, type Database, type TrestleApp } from '../../src/index.js';
import { AUTHOR_COUNT, BOOK_COUNT, DEMO_USER, seedCatalogue } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from './start-example.js';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe.each(testDatabases())('the example service on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let running: RunningExample | undefined;

  beforeAll(async () => {
    running = await startExample(open);
    ({ database, app } = running);
    expect(running.seeded).toBe(true);
  }, 120_000);

  afterAll(() => running?.stop());

  it('seeds once: a second run finds the books and adds nothing', async () => {
    const users = new KyselyUserStore(database.db);
    expect(await seedCatalogue({ database, db: app.trestle.services.get('db'), users })).toBe(false);
    const res = await app.inject({ url: '/api/books/' });
    expect(res.json().count).toBe(BOOK_COUNT);
  });

  it('the home page links every part of the service', async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toMatchObject({
      api: 'http://localhost:80/api/',
      books: 'http://localhost:80/api/books/',
      feed: 'http://localhost:80/api/feed/',
      versioned: 'http://localhost:80/versioned/v2/books/',
      login: 'http://localhost:80/api-auth/login/',
    });
  });

  it('books page by number with DRF links, and 404 past the end', async () => {
    const res = await app.inject({ url: '/api/books/?page=2&page_size=3' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(BOOK_COUNT);
    expect(body.next).toBe('http://localhost:80/api/books/?page=3&page_size=3');
    expect(body.previous).toBe('http://localhost:80/api/books/?page_size=3');
    expect(body.results.map((b: { id: number }) => b.id)).toEqual([4, 5, 6]);
    expect(body.results[0].author).toBe('http://localhost:80/api/authors/4/');
    const past = await app.inject({ url: '/api/books/?page=9999' });
    expect(past.statusCode).toBe(404);
    expect(past.json()).toEqual({ detail: 'Invalid page.' });
  });

  it('authors page by limit/offset and search by name', async () => {
    const res = await app.inject({ url: '/api/authors/?limit=5&offset=10' });
    expect(res.statusCode).toBe(200);
    expect(res.json().count).toBe(AUTHOR_COUNT);
    expect(res.json().next).toBe('http://localhost:80/api/authors/?limit=5&offset=15');
    expect(res.json().previous).toBe('http://localhost:80/api/authors/?limit=5&offset=5');
    const search = await app.inject({ url: '/api/authors/?search=lovelace&limit=100' });
    expect(search.json().results.length).toBeGreaterThan(0);
    for (const a of search.json().results) expect(a.name.toLowerCase()).toContain('lovelace');
    const hostile = await app.inject({ url: '/api/authors/?search=%25_%5C' });
    expect(hostile.statusCode).toBe(200);
    expect(hostile.json().count).toBe(0);
  });

  it('the cursor feed walks newest first without repeats', async () => {
    const seen = new Set<number>();
    let url: string | null = '/api/feed/';
    for (let page = 0; page < 3 && url; page++) {
      const res: { statusCode: number; json(): { next: string | null; results: { id: number }[] } } = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      for (const b of body.results) {
        expect(seen.has(b.id)).toBe(false);
        seen.add(b.id);
      }
      url = body.next ? new URL(body.next).pathname + new URL(body.next).search : null;
    }
    expect(seen.size).toBe(60);
    expect(Math.max(...seen)).toBe(BOOK_COUNT);
    const bad = await app.inject({ url: '/api/feed/?cursor=bm9wZQ' });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ detail: 'Invalid cursor' });
  });

  it('books: searched by title and author name, ordered, filtered by author, year range and ISBN', async () => {
    type Book = { id: number; title: string; author: string; year: number; isbn: string };
    const get = async (url: string) => {
      const res = await app.inject({ url });
      return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as { count: number; next: string | null; results: Book[] } & Record<string, unknown> };
    };
    const atlas = await get('/api/books/?search=ATLAS&page_size=100');
    expect(atlas).toMatchObject({ status: 200, type: 'application/json' });
    expect(atlas.body.count).toBeGreaterThan(0);
    for (const b of atlas.body.results) expect(b.title.toLowerCase()).toContain('atlas');

    const guin = (await get('/api/authors/?search=le%20guin&limit=100')).body.results as unknown as { url: string }[];
    const byGuin = await get('/api/books/?search=le%20guin&page_size=100');
    expect(byGuin.body.count).toBe(guin.length * 25);
    for (const b of byGuin.body.results) expect(guin.map((a) => a.url)).toContain(b.author);

    const ordered = await get('/api/books/?ordering=-year,id&page_size=5');
    const years = ordered.body.results.map((b) => b.year);
    expect(years).toEqual([...years].sort((a, b) => b - a));
    expect(years[0]).toBe(2024);

    const byAuthor = await get('/api/books/?author=3&page_size=100');
    expect(byAuthor.body.count).toBe(25);
    for (const b of byAuthor.body.results) expect(b.author).toBe('http://localhost:80/api/authors/3/');

    const seventies = await get('/api/books/?year__gte=1970&year__lte=1979&page_size=100');
    expect(seventies.body.count).toBeGreaterThan(0);
    for (const b of seventies.body.results) expect(b.year >= 1970 && b.year <= 1979).toBe(true);

    const first = (await get('/api/books/1/')).body as unknown as Book;
    const byIsbn = await get(`/api/books/?isbn=${first.isbn}`);
    expect(byIsbn.body.results.map((b) => b.id)).toEqual([1]);

    expect(await get('/api/books/?year__gte=abc&author=x')).toMatchObject({
      status: 400,
      type: 'application/json',
      body: { year__gte: ['Enter a whole number.'], author: ['Enter a whole number.'] },
    });
    const ignored = await get('/api/books/?ordering=password&page_size=3');
    expect(ignored.body.results.map((b) => b.id)).toEqual([1, 2, 3]);
    for (const q of ['%25', '_', 'a%00b', Array.from({ length: 1000 }, (_, i) => `t${i}`).join(' ')]) {
      expect((await get(`/api/books/?search=${encodeURIComponent(q)}`)).status).toBeLessThan(500);
    }

    const paged = await get('/api/books/?search=the&ordering=-year&year__gte=2000&page_size=2');
    expect(paged.body.next).toBe('http://localhost:80/api/books/?ordering=-year&page=2&page_size=2&search=the&year__gte=2000');
  });

  it('authors are searchable and orderable', async () => {
    const res = await app.inject({ url: '/api/authors/?ordering=-name&limit=3' });
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0].name).toMatch(/^Yukio /);
    const asc = await app.inject({ url: '/api/authors/?ordering=name&search=ada&limit=100' });
    const names = asc.json().results.map((a: { name: string }) => a.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n: string) => n.toLowerCase().includes('ada'))).toBe(true);
  });

  it("the feed's cursor honours ?ordering= among the allowed fields", async () => {
    const years: number[] = [];
    const seen = new Set<number>();
    let url: string | null = '/api/feed/?ordering=year';
    for (let page = 0; page < 3 && url; page++) {
      const res: { statusCode: number; json(): { next: string | null; results: { id: number; year: number }[] } } = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      for (const b of res.json().results) {
        expect(seen.has(b.id)).toBe(false);
        seen.add(b.id);
        years.push(b.year);
      }
      const next = res.json().next;
      if (page === 0) expect(next).toContain('ordering=year');
      url = next ? new URL(next).pathname + new URL(next).search : null;
    }
    expect(years.length).toBe(60);
    expect(years).toEqual([...years].sort((a, b) => a - b));
    const next = (await app.inject({ url: '/api/feed/?ordering=year' })).json().next as string;
    const cursor = new URL(next).searchParams.get('cursor')!;
    const other = await app.inject({ url: `/api/feed/?ordering=title&cursor=${encodeURIComponent(cursor)}` });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ detail: 'Invalid cursor' });
    const unknown = await app.inject({ url: '/api/feed/?ordering=isbn' });
    const plain = await app.inject({ url: '/api/feed/' });
    expect(unknown.json().results).toEqual(plain.json().results);
  });

  it('the shelf puts its links in a Link header', async () => {
    const res = await app.inject({ url: '/api/shelf/?page=2' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['link']).toContain('rel="next"');
    expect(Array.isArray(res.json())).toBe(true);
  });

  it('anonymous writes are refused; a signed-in user creates, validates and deletes', async () => {
    const payload = { title: 'A new book', author: 'http://localhost:80/api/authors/1/', year: 2024, isbn: '9780000000001' };
    const anonymous = await app.inject({ method: 'POST', url: '/api/books/', payload });
    // Session is the first scheme, and it has no WWW-Authenticate: 403, as DRF.
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.headers['www-authenticate']).toBeUndefined();
    expect(anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    const auth = basic(DEMO_USER.username, DEMO_USER.password);
    const invalid = await app.inject({ method: 'POST', url: '/api/books/', payload: { title: '', author: 99999 }, headers: { authorization: auth } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({
      title: ['This field may not be blank.'],
      author: ['Incorrect type. Expected URL string, received int.'],
      year: ['This field is required.'],
      isbn: ['This field is required.'],
    });
    const created = await app.inject({ method: 'POST', url: '/api/books/', payload, headers: { authorization: auth } });
    expect(created.statusCode).toBe(201);
    const book = created.json();
    expect(created.headers['location']).toBe(book.url);
    expect(book).toMatchObject({ title: 'A new book', author: 'http://localhost:80/api/authors/1/', year: 2024 });
    const missingAuthor = await app.inject({ method: 'PATCH', url: new URL(book.url).pathname, payload: { author: 'http://localhost:80/api/authors/99999/' }, headers: { authorization: auth } });
    expect(missingAuthor.statusCode).toBe(400);
    expect(missingAuthor.json()).toEqual({ author: ['Invalid hyperlink - Object does not exist.'] });
    const deleted = await app.inject({ method: 'DELETE', url: new URL(book.url).pathname, headers: { authorization: auth } });
    expect(deleted.statusCode).toBe(204);
    const gone = await app.inject({ url: new URL(book.url).pathname });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: 'No Book matches the given query.' });
  });

  it('POST /api/books/<pk>/favourite/ marks a book a favourite of the signed-in user: 201, then 200', async () => {
    const anonymous = await app.inject({ method: 'POST', url: '/api/books/3/favourite/', headers: { accept: 'application/json' } });
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.headers['content-type']).toBe('application/json');
    expect(anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });

    const auth = basic(DEMO_USER.username, DEMO_USER.password);
    const book = (await app.inject({ url: '/api/books/3/' })).json();
    const first = await app.inject({ method: 'POST', url: '/api/books/3/favourite/', headers: { authorization: auth } });
    expect(first.statusCode).toBe(201);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.json()).toEqual(book);
    const again = await app.inject({ method: 'POST', url: '/api/books/3/favourite/', headers: { authorization: auth } });
    expect(again.statusCode).toBe(200);
    expect(again.headers['content-type']).toBe('application/json');
    expect(again.json()).toEqual(book);

    // Another user's mark is their own.
    await new KyselyUserStore(database.db).createUser({ username: 'reader', password: 'reader-password' });
    const other = await app.inject({ method: 'POST', url: '/api/books/3/favourite/', headers: { authorization: basic('reader', 'reader-password') } });
    expect(other.statusCode).toBe(201);
    const rows = await app.trestle.services.get('db').selectFrom('catalogue_favourite').select(['user_id', 'book_id']).where('book_id', '=', 3).execute();
    expect(rows).toHaveLength(2);

    const missing = await app.inject({ method: 'POST', url: '/api/books/999999/favourite/', headers: { authorization: auth } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'No Book matches the given query.' });
    const get = await app.inject({ url: '/api/books/3/favourite/', headers: { authorization: auth } });
    expect(get.statusCode).toBe(405);
    expect(get.headers['allow']).toBe('POST, OPTIONS');
    expect(get.json()).toEqual({ detail: 'Method "GET" not allowed.' });

    // A favourite book can still be deleted: its marks go with it.
    const payload = { title: 'Short-lived', author: 'http://localhost:80/api/authors/1/', year: 2024, isbn: '9780000000002' };
    const created = (await app.inject({ method: 'POST', url: '/api/books/', payload, headers: { authorization: auth } })).json();
    const path = new URL(created.url).pathname;
    expect((await app.inject({ method: 'POST', url: `${path}favourite/`, headers: { authorization: auth } })).statusCode).toBe(201);
    expect((await app.inject({ method: 'DELETE', url: path, headers: { authorization: auth } })).statusCode).toBe(204);
    const left = await app.trestle.services.get('db').selectFrom('catalogue_favourite').selectAll().where('book_id', '=', created.id).execute();
    expect(left).toEqual([]);
  });

  it('the book page of the browsable API offers the favourite action in its "Extra Actions" menu', async () => {
    const res = await app.inject({ url: '/api/books/3/', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(
      '<ul class="dropdown-menu" aria-labelledby="extra-actions-menu"><li><a href="http://localhost:80/api/books/3/favourite/">Favourite</a></li></ul>',
    );
    const list = await app.inject({ url: '/api/books/', headers: { accept: 'text/html' } });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('extra-actions-menu');
  });

  it('fetch-modify-save: a book PUT back as fetched is accepted, author hyperlink included', async () => {
    const auth = basic(DEMO_USER.username, DEMO_USER.password);
    const fetched = await app.inject({ url: '/api/books/2/' });
    expect(fetched.statusCode).toBe(200);
    const book = fetched.json();
    expect(book.author).toMatch(/^http:\/\/localhost:80\/api\/authors\/\d+\/$/);
    const saved = await app.inject({ method: 'PUT', url: '/api/books/2/', payload: { ...book, title: `${book.title} (2nd ed.)` }, headers: { authorization: auth } });
    expect(saved.statusCode).toBe(200);
    expect(saved.headers['content-type']).toBe('application/json');
    expect(saved.json()).toEqual({ ...book, title: `${book.title} (2nd ed.)` });
    const moved = await app.inject({ method: 'PATCH', url: '/api/books/2/', payload: { author: '/api/authors/3/' }, headers: { authorization: auth } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().author).toBe('http://localhost:80/api/authors/3/');
    // A percent-encoded path is decoded before it is resolved, as Django's resolve() sees it.
    const encoded = await app.inject({ method: 'PATCH', url: '/api/books/2/', payload: { author: 'http://localhost:80/api/%61uthors/%34/' }, headers: { authorization: auth } });
    expect(encoded.statusCode).toBe(200);
    expect(encoded.headers['content-type']).toBe('application/json');
    expect(encoded.json().author).toBe('http://localhost:80/api/authors/4/');
    const restore = await app.inject({ method: 'PUT', url: '/api/books/2/', payload: book, headers: { authorization: auth } });
    expect(restore.statusCode).toBe(200);
  });

  it('a hyperlink that names no route, the wrong route or no object gets DRF\'s messages', async () => {
    const auth = basic(DEMO_USER.username, DEMO_USER.password);
    const send = (author: unknown) => app.inject({ method: 'PATCH', url: '/api/books/2/', payload: { author }, headers: { authorization: auth } });
    const cases: [unknown, string][] = [
      ['http://localhost:80/nowhere/', 'Invalid hyperlink - No URL match.'],
      ['http://localhost:80/api/books/1/', 'Invalid hyperlink - Incorrect URL match.'],
      ['http://localhost:80/api/authors/123456/', 'Invalid hyperlink - Object does not exist.'],
      ['%E0%A4%A', 'Invalid hyperlink - No URL match.'],
      [7, 'Incorrect type. Expected URL string, received int.'],
      [{ url: 'x' }, 'Incorrect type. Expected URL string, received dict.'],
    ];
    for (const [author, message] of cases) {
      const res = await send(author);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ author: [message] });
    }
  });

  it('OPTIONS lists the book fields under actions only for a client allowed to write', async () => {
    const anonymous = await app.inject({ method: 'OPTIONS', url: '/api/books/' });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json().actions).toBeUndefined();
    const signedIn = await app.inject({ method: 'OPTIONS', url: '/api/books/', headers: { authorization: basic(DEMO_USER.username, DEMO_USER.password) } });
    expect(signedIn.json()).toMatchObject({
      name: 'Book List',
      actions: { POST: { title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 200 } } },
    });
    const detail = await app.inject({ method: 'OPTIONS', url: '/api/books/1/', headers: { authorization: basic(DEMO_USER.username, DEMO_USER.password) } });
    expect(Object.keys(detail.json().actions)).toEqual(['PUT']);
  });

  it('the demo user gets a token and uses it', async () => {
    const token = await app.inject({ method: 'POST', url: '/api-token-auth/', payload: { username: DEMO_USER.username, password: DEMO_USER.password } });
    expect(token.statusCode).toBe(200);
    const key = token.json().token;
    expect(key).toMatch(/^[0-9a-f]{40}$/);
    const me = await app.inject({ url: '/auth/token/', headers: { authorization: `Token ${key}` } });
    expect(me.statusCode).toBe(200);
    expect(JSON.stringify(me.json())).toContain(DEMO_USER.username);
  });

  it('the versioned API answers v2 by default and marks v1 deprecated', async () => {
    const v2 = await app.inject({ url: '/versioned/v2/books/' });
    expect(v2.statusCode).toBe(200);
    expect(v2.json().results?.[0]?.url ?? v2.json()[0]?.url).toMatch(/^http:\/\/localhost:80\/versioned\/v2\/books\/\d+\/$/);
    const v1 = await app.inject({ url: '/versioned/v1/books/' });
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['deprecation']).toMatch(/^@\d+$/);
    const v9 = await app.inject({ url: '/versioned/v9/books/' });
    expect(v9.statusCode).toBe(404);
    expect(v9.json()).toEqual({ detail: 'Invalid version in URL path.' });
  });

  it('the OpenAPI document gives list operations their search, ordering and filter parameters', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    type Param = { name: string; schema: Record<string, unknown> & { items?: { enum?: string[] } } };
    const params = (path: string): Record<string, Param> =>
      Object.fromEntries((doc.paths[path].get.parameters as Param[]).map((p) => [p.name, p]));
    const books = params('/api/books/');
    expect(books['search']).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
    expect(books['ordering']!.schema).toEqual({ type: 'array', items: { type: 'string', enum: ['id', '-id', 'title', '-title', 'year', '-year', 'created', '-created'] } });
    expect(books['year__gte']!.schema).toEqual({ type: 'integer' });
    expect(books['author__in']).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { type: 'integer' } } });
    expect(books['created__gte']!.schema).toEqual({ type: 'string', format: 'date-time' });
    expect(params('/api/feed/')['ordering']!.schema.items!.enum).toEqual(['created', '-created', 'id', '-id', 'title', '-title', 'year', '-year']);
    expect(params('/api/authors/')['search']).toBeDefined();
    expect(Object.keys(params('/api/books/{pk}/'))).not.toContain('search');
  });

  it('the OpenAPI document lists the catalogue', async () => {
    const res = await app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().paths)).toEqual(expect.arrayContaining(['/api/books/', '/api/books/{pk}/', '/api/feed/']));
  });
});
