import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { adminGet, adminLogin } from './session.js';

const Author = model('shop_author', {
  name: field.char({ maxLength: 100 }),
  email: field.email({ unique: true, null: true }),
  country: field.char({ maxLength: 50, blank: true, default: '', verboseName: 'país' }),
});
const Tag = model('shop_tag', {
  name: field.char({ maxLength: 50 }),
});
const Book = model('shop_book', {
  title: field.char({ maxLength: 200 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
  kind: field.char({ maxLength: 1, choices: [['n', 'Novel'], ['p', 'Poetry']], default: 'n' }),
  year: field.integer({ null: true }),
  published: field.date({ null: true }),
  inPrint: field.boolean({ default: true, verboseName: 'in print' }),
  price: field.decimal({ maxDigits: 6, decimalPlaces: 2, null: true }),
  isbn: field.char({ maxLength: 13, unique: true, null: true }),
  notes: field.text({ blank: true, default: '' }),
  created: field.datetime({ autoNowAdd: true }),
  tags: field.manyToMany(() => Tag, { blank: true }),
});
const Review = model('shop_review', {
  book: field.foreignKey(() => Book, { onDelete: 'cascade', relatedName: 'reviews' }),
  stars: field.integer(),
});
/** One field of each remaining kind, for the widgets and their values on both databases. */
const Event = model('shop_event', {
  starts: field.datetime(),
  at: field.time({ null: true }),
  ref: field.uuid({ null: true }),
  confirmed: field.boolean({ null: true }),
  data: field.json({ null: true }),
  weight: field.float({ null: true }),
  site: field.url({ blank: true, default: '' }),
  slug: field.slug({ blank: true, default: '' }),
});
/** Not registered, only declared: a loan protects its book. */
const Loan = model('shop_loan', {
  book: field.foreignKey(() => Book, { onDelete: 'protect' }),
  borrower: field.char({ maxLength: 50 }),
});

const initial = migration({
  operations: [Author, Tag, Book, Review, Loan, Event].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)),
});

const PASSWORD = 'correct horse battery staple';
const FORM = 'application/x-www-form-urlencoded';
type Db = Kysely<Record<string, Record<string, unknown>>>;

function site(): AdminSite {
  return new AdminSite()
    .register(Author, { listDisplay: ['name', 'email'], searchFields: ['name'], str: (a) => a.name })
    .register(Book, {
      listDisplay: ['title', 'author', 'kind', 'year', 'inPrint', { label: 'Shout', value: (b) => b.title.toUpperCase() }],
      listFilter: ['kind', 'author', 'published', 'inPrint', 'tags'],
      searchFields: ['title', 'author__name', '=isbn', 'tags__name'],
      ordering: ['title'],
      listPerPage: 10,
      readonlyFields: ['isbn'],
      str: (b) => b.title,
      hasPermission: (user, action) => user.isSuperuser || (user.username === 'viewer' && action === 'view'),
    })
    .register(Tag, { str: (t) => t.name })
    .register(Review, {
      listDisplay: ['book', 'stars', function star_bar(r) { return '*'.repeat(r.stars); }],
      sortableBy: ['stars'],
      fields: ['stars', 'book'],
      str: (r) => `${r.stars} stars`,
    })
    .register(Event, { listDisplay: ['starts', 'confirmed'], listFilter: ['starts', 'confirmed'] })
    .declareModels(Loan)
    .registerPermissions();
}

describe.each(testDatabases())('admin of models on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let root: CookieJar;
  let rootId: number;
  let clerkId: number;

  const login = (username: string): Promise<CookieJar> => adminLogin(app, username, PASSWORD);

  const get = (jar: CookieJar, url: string) => adminGet(app, jar, url);

  /** Posts `fields` with the CSRF token of the page at `formUrl` (unless `csrf` is false). */
  async function post(jar: CookieJar, url: string, fields: Record<string, string | string[]>, csrf = true) {
    const page = await get(jar, '/admin/');
    const token = inputValue(page.body, 'csrfmiddlewaretoken');
    const body = new URLSearchParams(csrf ? { csrfmiddlewaretoken: token } : {});
    for (const [k, v] of Object.entries(fields)) for (const one of typeof v === 'string' ? [v] : v) body.append(k, one);
    const res = await app.inject({
      method: 'POST',
      url,
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: body.toString(),
    });
    jar.store(res.headers['set-cookie']);
    return res;
  }

  /** The primary keys of the change list's rows, in order. */
  const pks = (body: string) => [...body.matchAll(/<tr data-pk="([^"]+)">/g)].map((m) => Number(m[1]));
  const titles = (body: string) => [...body.matchAll(/<tr data-pk="[^"]+"><th scope="row" data-label="Title"><a href="[^"]+">([^<]*)<\/a>/g)].map((m) => m[1]);
  const bool = (v: boolean) => (database.dialect === 'postgres' ? v : v ? 1 : 0);
  const logRows = () => db.selectFrom('trestle_admin_log').selectAll().orderBy('id').execute();

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': initial });
    app = await createApp({
      settings: { SECRET_KEY: 'test-secret-key-for-model-admin-tests-0123456789' },
      routes: [adminRoutes({ site: site() })],
      database,
      logger: false,
    });
    const users = app.trestle.services.get('users');
    rootId = Number((await users.createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true })).pk);
    clerkId = Number((await users.createUser({ username: 'clerk', password: PASSWORD, isStaff: true })).pk);
    await users.createUser({ username: 'viewer', password: PASSWORD, isStaff: true });
    const authors = [];
    for (const name of ['Ursula Le Guin', 'Frank Herbert', 'Mary Oliver']) {
      authors.push((await db.insertInto('shop_author').values({ name }).returningAll().executeTakeFirstOrThrow()) as { id: number });
    }
    for (let i = 0; i < 25; i++) {
      await db
        .insertInto('shop_book')
        .values(
          Book.insertValues({
            title: `Book ${String(i).padStart(2, '0')}`,
            author_id: authors[i % 3]!.id,
            kind: i % 5 === 0 ? 'p' : 'n',
            year: 1960 + i,
            published: `${1960 + i}-0${(i % 9) + 1}-15`,
            inPrint: bool(i % 2 === 0) as boolean,
          }) as never,
        )
        .execute();
    }
    await db.insertInto('shop_book').values(Book.insertValues({ title: 'Dune', author_id: authors[1]!.id, year: 1965, published: '1965-08-01', isbn: '9780441013593' }) as never).execute();
    for (const name of ['classic', 'sf']) await db.insertInto('shop_tag').values({ name }).execute();
    root = await login('root');
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('the index lists each app with its models the user may see; users and tokens keep their place', async () => {
    const res = await get(root, '/admin/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>Site administration</h1>');
    expect(res.body.indexOf('>Users</a>')).toBeLessThan(res.body.indexOf('id="app-shop"'));
    expect(res.body).toContain('<caption>Shop</caption>');
    expect(res.body).toContain('<tr class="model-book"><th scope="row" data-label="Model"><a href="/admin/shop/book/">Books</a></th><td data-label="Actions"><a href="/admin/shop/book/add/" class="addlink">Add</a> <a href="/admin/shop/book/" class="changelink">Change</a></td></tr>');
    expect(res.body).toContain('href="/admin/shop/author/">Authors</a>');
    expect(res.body).toContain('href="/admin/shop/review/">Reviews</a>');
    expect(res.body).toContain('href="/admin/shop/tag/">Tags</a>');
    expect(res.body).not.toContain('shop/loan');
    expect(res.body).toContain('<caption>Auth</caption>');
    expect(res.body).toContain('href="/admin/auth/group/">Groups</a>');
    expect(res.body).toContain('href="/admin/trestle/usergroup/">Group memberships</a>');
    expect(res.body).toContain('<h2 id="recent-actions-heading">Recent actions</h2>');

    // A staff user without permissions sees no model and is refused on its pages.
    const clerk = await login('clerk');
    const index = await get(clerk, '/admin/');
    expect(index.statusCode).toBe(200);
    expect(index.body).not.toContain('id="app-shop"');
    for (const url of ['/admin/shop/book/', '/admin/shop/book/add/', '/admin/shop/author/1/change/', '/admin/shop/author/1/delete/']) {
      const refused = await get(clerk, url);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.body).toContain('You do not have permission to perform this action.');
    }
    // A view permission: the list and a read-only form, no add link.
    const viewer = await login('viewer');
    const vIndex = await get(viewer, '/admin/');
    expect(vIndex.body).toContain('<a href="/admin/shop/book/" class="changelink">View</a>');
    expect(vIndex.body).not.toContain('href="/admin/shop/author/"');
    const vList = await get(viewer, '/admin/shop/book/');
    expect(vList.statusCode).toBe(200);
    expect(vList.body).not.toContain('id="add-link"');
    expect(vList.body).toContain('<h1>Select book to view</h1>');
    expect((await get(viewer, '/admin/shop/book/add/')).statusCode).toBe(403);
    const dune = (await db.selectFrom('shop_book').select('id').where('title', '=', 'Dune').executeTakeFirstOrThrow()).id;
    const vForm = await get(viewer, `/admin/shop/book/${dune}/change/`);
    expect(vForm.statusCode).toBe(200);
    expect(vForm.body).toContain('<h1>View book</h1>');
    expect(vForm.body).not.toContain('name="_save"');
    expect((await post(viewer, `/admin/shop/book/${dune}/change/`, { title: 'x' })).statusCode).toBe(403);
  });

  it('Django\'s permissions: a group with change and view of authors, a membership, a permission of one user; each grants exactly its pages', async () => {
    const perms = Object.fromEntries(
      (await db.selectFrom('auth_permission').selectAll().where('content_type', '=', 'shop_author').execute()).map((p) => [p['codename'] as string, p]),
    );
    expect(Object.keys(perms).sort()).toEqual(['add_author', 'change_author', 'delete_author', 'view_author']);
    expect(perms['change_author']).toMatchObject({ name: 'Can change author', content_type: 'shop_author' });

    const form = await get(root, '/admin/auth/group/add/');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`<option value="${perms['view_author']!['id']}">shop_author | Can view author</option>`);
    const group = await post(root, '/admin/auth/group/add/', { name: 'editors', permissions: [String(perms['change_author']!['id']), String(perms['view_author']!['id'])], _save: '' });
    expect(group.statusCode).toBe(302);
    const groupId = (await db.selectFrom('auth_group').select('id').where('name', '=', 'editors').executeTakeFirstOrThrow())['id'];
    expect((await db.selectFrom('auth_group_permissions').select('permission_id').where('group_id', '=', groupId as number).orderBy('permission_id').execute()).map((r) => r['permission_id'])).toEqual(
      [perms['change_author']!['id'], perms['view_author']!['id']].sort((a, b) => Number(a) - Number(b)),
    );
    const membershipForm = await get(root, '/admin/trestle/usergroup/add/');
    expect(membershipForm.body).toContain(`<option value="${clerkId}">clerk</option>`);
    const membership = await post(root, '/admin/trestle/usergroup/add/', { user: String(clerkId), group: String(groupId), _save: '' });
    expect(membership.statusCode).toBe(302);
    const memberships = await get(root, '/admin/trestle/usergroup/');
    expect(memberships.body).toContain('<p class="success" role="status">The group membership “clerk in editors” was added successfully.</p>');
    expect(memberships.body).toContain('<td data-label="Group">editors</td>');
    expect((await logRows()).at(-1)).toMatchObject({ content_type: 'trestle_user_groups', object_repr: 'clerk in editors', action_flag: 1 });

    const clerk = await login('clerk');
    const index = await get(clerk, '/admin/');
    expect(index.body).toContain('<tr class="model-author"><th scope="row" data-label="Model"><a href="/admin/shop/author/">Authors</a></th><td data-label="Actions"><a href="/admin/shop/author/" class="changelink">Change</a></td></tr>');
    expect(index.body).not.toContain('href="/admin/shop/book/"');
    const author = await db.selectFrom('shop_author').selectAll().where('name', '=', 'Mary Oliver').executeTakeFirstOrThrow();
    expect((await get(clerk, '/admin/shop/author/')).statusCode).toBe(200);
    expect((await get(clerk, `/admin/shop/author/${author['id']}/change/`)).body).not.toContain('>Delete</a>');
    expect((await get(clerk, '/admin/shop/author/add/')).statusCode).toBe(403);
    expect((await get(clerk, `/admin/shop/author/${author['id']}/delete/`)).statusCode).toBe(403);
    expect((await get(clerk, '/admin/shop/book/')).statusCode).toBe(403);
    const changed = await post(clerk, `/admin/shop/author/${author['id']}/change/`, { name: 'Mary Oliver', email: 'mary@example.com', country: 'USA', _save: '' });
    expect(changed.statusCode).toBe(302);
    // Django's JSON: Python's separators, non-ASCII escaped.
    expect((await logRows()).at(-1)).toMatchObject({ user_id: clerkId, action_flag: 2, change_message: '[{"changed": {"fields": ["Email", "Pa\\u00eds"]}}]' });
    const history = await get(clerk, `/admin/shop/author/${author['id']}/history/`);
    expect(history.body).toContain('<td data-label="User">clerk</td><td data-label="Action">Changed Email and País.</td>');

    // A permission given to the user alone.
    const direct = await post(root, '/admin/trestle/userpermission/add/', { user: String(clerkId), permission: String(perms['delete_author']!['id']), _save: '' });
    expect(direct.statusCode).toBe(302);
    const again = await login('clerk');
    const page = await get(again, `/admin/shop/author/${author['id']}/delete/`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Are you sure you want to delete the author “Mary Oliver”?');
    // Out of the group: the group's permissions are gone, the user's own stays.
    const membershipId = (await db.selectFrom('trestle_user_groups').select('id').where('user_id', '=', clerkId).executeTakeFirstOrThrow())['id'];
    expect((await post(root, `/admin/trestle/usergroup/${membershipId}/delete/`, {})).statusCode).toBe(302);
    expect((await get(again, '/admin/shop/author/')).statusCode).toBe(403);
    expect((await get(again, `/admin/shop/author/${author['id']}/delete/`)).statusCode).toBe(200);
    await db.deleteFrom('trestle_user_user_permissions').where('user_id', '=', clerkId).execute();
  });

  it('the change list pages through the table with a count; a page past the end is a 404 page', async () => {
    const first = await get(root, '/admin/shop/book/');
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toContain('<h1>Select book to change</h1>');
    expect(first.body).toContain('<p class="paginator muted" id="paginator">26 books</p>');
    expect(titles(first.body)).toEqual(['Book 00', 'Book 01', 'Book 02', 'Book 03', 'Book 04', 'Book 05', 'Book 06', 'Book 07', 'Book 08', 'Book 09']);
    expect(first.body).toContain('<td data-label="Author">Ursula Le Guin</td><td data-label="Kind">Poetry</td><td data-label="Year">1960</td><td data-label="In print">Yes</td><td data-label="Shout">BOOK 00</td>');
    expect(first.body).toContain('<li class="active"><a href="/admin/shop/book/" aria-current="page">1</a></li>');
    const third = await get(root, '/admin/shop/book/?p=3');
    expect(third.statusCode).toBe(200);
    expect(titles(third.body)).toEqual(['Book 20', 'Book 21', 'Book 22', 'Book 23', 'Book 24', 'Dune']);
    for (const p of ['4', '99999999999', '0', 'abc']) {
      const res = await get(root, `/admin/shop/book/?p=${p}`);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Invalid page.');
    }
  });

  it('searches own fields and a relation through a subquery, every word in any field', async () => {
    const own = await get(root, '/admin/shop/book/?q=dUnE');
    expect(own.statusCode).toBe(200);
    expect(titles(own.body)).toEqual(['Dune']);
    expect(own.body).toContain('<span class="muted" id="result-count">1 result (<a href="/admin/shop/book/">26 total</a>)</span>');
    const related = await get(root, `/admin/shop/book/?q=${encodeURIComponent('herbert')}`);
    const herbert = (await db.selectFrom('shop_book').innerJoin('shop_author', 'shop_author.id', 'shop_book.author_id').select('shop_book.title').where('shop_author.name', '=', 'Frank Herbert').orderBy('shop_book.title').execute()).map((r) => r.title);
    expect(titles(related.body)).toEqual(herbert.slice(0, 10));
    expect(related.body).toContain(`${herbert.length} books</p>`);
    const both = await get(root, `/admin/shop/book/?q=${encodeURIComponent('herbert dune')}`);
    expect(titles(both.body)).toEqual(['Dune']);
    const exact = await get(root, '/admin/shop/book/?q=9780441013593');
    expect(titles(exact.body)).toEqual(['Dune']);
    // Markup in the query is text on every page that shows it.
    const XSS = '<script>window.__xss = 1</script>';
    for (const url of [`/admin/shop/book/?q=${encodeURIComponent(XSS)}&kind__exact=p`, `/admin/shop/book/?${encodeURIComponent(XSS)}=1`]) {
      const res = await get(root, url);
      expect([200, 400, 404]).toContain(res.statusCode);
      expect(res.body).not.toContain('<script>window');
      expect(res.body, `${url} ${res.statusCode}`).toContain('&lt;script&gt;window.__xss = 1&lt;/script&gt;');
    }
    const missing = await get(root, `/admin/shop/book/${encodeURIComponent('<b>bold')}/change/`);
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain('<b>bold');
    expect(missing.body).toContain('Book with ID “&lt;b&gt;bold” doesn’t exist.');
    const nul = await get(root, '/admin/shop/book/?q=du%00ne');
    expect(nul.statusCode).toBe(200);
    expect(titles(nul.body)).toEqual(['Dune']);
    const none = await get(root, `/admin/shop/book/?q=${encodeURIComponent('%_')}`);
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('Nothing found.');
    expect(none.body).toContain('0 books</p>');
  });

  it('filters by choices, foreign keys, year and month, and booleans; any other lookup is a 400 page', async () => {
    const poetry = await get(root, '/admin/shop/book/?kind__exact=p');
    expect(poetry.statusCode).toBe(200);
    expect(titles(poetry.body)).toEqual(['Book 00', 'Book 05', 'Book 10', 'Book 15', 'Book 20']);
    expect(poetry.body).toContain('<h3>By kind</h3>');
    expect(poetry.body).toContain('<li class="selected"><a href="/admin/shop/book/?kind__exact=p" aria-current="true">Poetry</a></li>');
    const oliver = (await db.selectFrom('shop_author').select('id').where('name', '=', 'Mary Oliver').executeTakeFirstOrThrow()).id;
    const byAuthor = await get(root, `/admin/shop/book/?author__id__exact=${oliver}`);
    expect(titles(byAuthor.body)).toEqual(['Book 02', 'Book 05', 'Book 08', 'Book 11', 'Book 14', 'Book 17', 'Book 20', 'Book 23']);
    expect(byAuthor.body).toContain(`<a href="/admin/shop/book/?author__id__exact=${oliver}" aria-current="true">Mary Oliver</a>`);
    const year = await get(root, '/admin/shop/book/?published__year=1965');
    expect(titles(year.body)).toEqual(['Book 05', 'Dune']);
    expect(year.body).toContain('June 1965</a>');
    expect(year.body).toContain('August 1965</a>');
    const month = await get(root, '/admin/shop/book/?published__year=1965&published__month=8');
    expect(titles(month.body)).toEqual(['Dune']);
    const out = await get(root, '/admin/shop/book/?inPrint__exact=0&kind__exact=p');
    expect(titles(out.body)).toEqual(['Book 05', 'Book 15']);
    for (const bad of ['title__exact=Dune', 'kind__exact=x', 'published__month=5', 'inPrint__exact=maybe', 'author__id__exact=one', 'author__id__exact=2147483648', 'tags__id__exact=99999999999999999999', 'kind__exact=%00']) {
      const res = await get(root, `/admin/shop/book/?${bad}`);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Incorrect lookup parameters: the books cannot be filtered by');
    }
  });

  it('sorts by a listed field both ways with ?o=; an unknown column is ignored', async () => {
    const asc = await get(root, '/admin/shop/book/?o=year');
    expect(asc.statusCode).toBe(200);
    expect(titles(asc.body).slice(0, 3)).toEqual(['Book 00', 'Book 01', 'Book 02']);
    expect(asc.body).toContain('<th scope="col" aria-sort="ascending"><a href="/admin/shop/book/?o=-year">Year ▲</a></th>');
    const desc = await get(root, '/admin/shop/book/?o=-year');
    expect(titles(desc.body).slice(0, 3)).toEqual(['Book 24', 'Book 23', 'Book 22']);
    // Filters and the search stay in the sort links.
    const kept = await get(root, '/admin/shop/book/?o=-year&kind__exact=p&q=book');
    expect(titles(kept.body)).toEqual(['Book 20', 'Book 15', 'Book 10', 'Book 05', 'Book 00']);
    expect(kept.body).toContain('href="/admin/shop/book/?kind__exact=p&amp;q=book&amp;o=year"');
    const unknown = await get(root, '/admin/shop/book/?o=notes');
    expect(unknown.statusCode).toBe(200);
    expect(titles(unknown.body)[0]).toBe('Book 00');
    expect(unknown.body).not.toContain('aria-sort');
  });

  it('fields orders the form; sortableBy limits the sorting headers; a function column is named after the function', async () => {
    const dune = await db.selectFrom('shop_book').select('id').where('title', '=', 'Dune').executeTakeFirstOrThrow();
    await db.insertInto('shop_review').values([{ book_id: dune['id'], stars: 5 }, { book_id: dune['id'], stars: 2 }]).execute();
    const form = await get(root, '/admin/shop/review/add/');
    expect(form.statusCode).toBe(200);
    expect(form.body.indexOf('id="field-stars"')).toBeLessThan(form.body.indexOf('id="field-book"'));
    const list = await get(root, '/admin/shop/review/?o=-stars');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<thead><tr><th scope="col">Book</th><th scope="col" aria-sort="descending"><a href="/admin/shop/review/?o=stars">Stars ▼</a></th><th scope="col">Star bar</th><th scope="col">Select</th></tr></thead>');
    expect(list.body).toMatch(/<th scope="row" data-label="Book"><a href="\/admin\/shop\/review\/\d+\/change\/\?_changelist_filters=o%3D-stars">Dune<\/a><\/th><td data-label="Stars">5<\/td><td data-label="Star bar">\*\*\*\*\*<\/td>/);
    expect([...list.body.matchAll(/<td data-label="Stars">(\d)<\/td>/g)].map((m) => m[1])).toEqual(['5', '2']);
    // `book` is listed but not sortable: ?o=book is ignored.
    expect((await get(root, '/admin/shop/review/?o=book')).body).not.toContain('aria-sort');
    await db.deleteFrom('shop_review').where('book_id', '=', dune['id'] as number).execute();
  });

  it('every kind of field: its widget, its value read back on the form, and its messages', async () => {
    const form = await get(root, '/admin/shop/event/add/');
    expect(form.body).toContain('<input type="datetime-local" name="starts" id="id_starts" value="" step="1" required>');
    expect(form.body).toContain('<input type="time" name="at" id="id_at" value="" step="1">');
    expect(form.body).toContain('<select name="confirmed" id="id_confirmed"><option value="" selected>---------</option><option value="true">Yes</option><option value="false">No</option></select>');
    expect(form.body).toContain('<textarea name="data" id="id_data" rows="6"></textarea>');
    expect(form.body).toContain('<input type="number" name="weight" id="id_weight" value="" step="any">');
    expect(form.body).toContain('<input type="url" name="site" id="id_site" value="" maxlength="200">');
    const bad = await post(root, '/admin/shop/event/add/', { starts: 'soon', at: '25:99', ref: 'nope', confirmed: '', data: '{oops', weight: 'heavy', site: 'not a url', slug: 'no spaces', _save: '' });
    expect(bad.statusCode).toBe(200);
    const errors = Object.fromEntries([...bad.body.matchAll(/<ul class="field-errors errorlist" id="id_(\w+)_errors"><li>([^<]+)<\/li>/g)].map((m) => [m[1], m[2]]));
    expect(errors).toEqual({
      starts: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      at: 'Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].',
      ref: 'Must be a valid UUID.',
      data: 'Value must be valid JSON.',
      weight: 'A valid number is required.',
      site: 'Enter a valid URL.',
      slug: 'Enter a valid &quot;slug&quot; consisting of letters, numbers, underscores or hyphens.',
    });
    const good = await post(root, '/admin/shop/event/add/', {
      starts: '2024-05-01T10:30:15',
      at: '09:15:00',
      ref: '12345678-1234-5678-1234-567812345678',
      confirmed: 'false',
      data: '{"seats": [1, 2]}',
      weight: '1.5',
      site: 'https://example.com/',
      slug: 'may-day',
      _continue: '',
    });
    expect(good.statusCode).toBe(302);
    const page = await get(root, good.headers['location'] as string);
    expect(page.body).toContain('<input type="datetime-local" name="starts" id="id_starts" value="2024-05-01T10:30:15" step="1" required>');
    expect(page.body).toContain('<input type="time" name="at" id="id_at" value="09:15:00" step="1">');
    expect(page.body).toContain('value="12345678-1234-5678-1234-567812345678"');
    expect(page.body).toContain('<option value="false" selected>No</option>');
    expect(page.body).toMatch(/<textarea name="data" id="id_data" rows="6">\{&quot;seats&quot;: ?\[1, ?2\]\}<\/textarea>/);
    expect(page.body).toContain('<input type="number" name="weight" id="id_weight" value="1.5" step="any">');
    const list = await get(root, '/admin/shop/event/?starts__year=2024&starts__month=5&confirmed__exact=0');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<td data-label="Confirmed">No</td>');
    expect(list.body).toMatch(/<a href="\/admin\/shop\/event\/\d+\/change\/\?_changelist_filters=starts__year%3D2024%26starts__month%3D5%26confirmed__exact%3D0">2024-05-01 10:30:15<\/a>/);
    expect((await get(root, '/admin/shop/event/?starts__year=2024&starts__month=6')).body).toContain('0 events</p>');
  });

  it('adds a row: field errors inline with the serializer messages and nothing written, then fixed; the history records it', async () => {
    const form = await get(root, '/admin/shop/book/add/');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<h1>Add book</h1>');
    expect(form.body).toContain('<input type="text" name="title" id="id_title" value="" maxlength="200" required>');
    expect(form.body).toMatch(/<select name="author" id="id_author" required><option value="" selected>---------<\/option><option value="\d+">Ursula Le Guin<\/option>/);
    expect(form.body).toContain('<select name="kind" id="id_kind" required><option value="n" selected>Novel</option><option value="p">Poetry</option></select>');
    expect(form.body).toContain('<input type="number" name="year" id="id_year" value="">');
    expect(form.body).toContain('<input type="date" name="published" id="id_published" value="">');
    expect(form.body).toContain('<input type="checkbox" name="inPrint" id="id_inPrint" checked><label for="id_inPrint">In print</label>');
    expect(form.body).toContain('<input type="number" name="price" id="id_price" value="" step="0.01">');
    expect(form.body).toContain('<textarea name="notes" id="id_notes" rows="6"></textarea>');
    expect(form.body).not.toContain('name="created"');
    expect(form.body).toMatch(/<select multiple name="tags" id="id_tags" size="3"><option value="\d+">classic<\/option><option value="\d+">sf<\/option><\/select>/);
    expect(form.body).toContain('<button type="submit" name="_addanother" class="btn">Save and add another</button>');
    const before = (await db.selectFrom('shop_book').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n;

    const author = (await db.selectFrom('shop_author').select('id').where('name', '=', 'Ursula Le Guin').executeTakeFirstOrThrow()).id;
    const bad = await post(root, '/admin/shop/book/add/', { title: '', author: '999999', kind: 'n', year: 'nineteen', published: '1969-13-45', price: '12.345', notes: '', _save: '' });
    expect(bad.statusCode).toBe(200);
    expect(bad.body).toContain('<p class="error" role="alert">Please correct the errors below.</p>');
    expect(bad.body).toContain('<ul class="field-errors errorlist" id="id_title_errors"><li>This field may not be blank.</li></ul>');
    expect(bad.body).toContain('<li>Invalid pk &quot;999999&quot; - object does not exist.</li>');
    expect(bad.body).toContain('<li>A valid integer is required.</li>');
    expect(bad.body).toContain('<li>Date has wrong format. Use one of these formats instead: YYYY-MM-DD.</li>');
    expect(bad.body).toContain('<li>Ensure that there are no more than 2 decimal places.</li>');
    expect(bad.body).toContain('value="nineteen"');
    expect(bad.body).toContain('aria-invalid="true"');
    expect((await db.selectFrom('shop_book').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n).toEqual(before);

    // Values no column can hold are the serializer's errors, never a database error.
    const huge = await post(root, '/admin/shop/book/add/', { title: 'Nul\u0000led', author: '2147483648', kind: 'n', year: '99999999999', tags: ['99999999999999999999'], _save: '' });
    expect(huge.statusCode).toBe(200);
    expect(huge.body).toMatch(/id="id_title_errors"><li>[^<]+<\/li>/);
    expect(huge.body).toMatch(/id="id_author_errors"><li>[^<]+<\/li>/);
    expect(huge.body).toMatch(/id="id_year_errors"><li>Ensure this value is less than or equal to 2147483647\.<\/li>/);
    expect(huge.body).toMatch(/id="id_tags_errors"><li>[^<]+<\/li>/);
    const tags = Object.fromEntries((await db.selectFrom('shop_tag').selectAll().execute()).map((t) => [t['name'] as string, String(t['id'])]));
    const badTag = await post(root, '/admin/shop/book/add/', { title: 'Tagged', author: String(author), kind: 'n', tags: [tags['sf']!, '424242'], _save: '' });
    expect(badTag.statusCode).toBe(200);
    expect(badTag.body).toContain('<ul class="field-errors errorlist" id="id_tags_errors"><li>Invalid pk &quot;424242&quot; - object does not exist.</li></ul>');
    expect(badTag.body).toContain(`<option value="${tags['sf']}" selected>sf</option>`);
    expect((await db.selectFrom('shop_book').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n).toEqual(before);

    const good = await post(root, '/admin/shop/book/add/', { title: 'The Dispossessed', author: String(author), kind: 'n', year: '1974', published: '1974-05-01', inPrint: 'on', price: '12.50', notes: 'An ambiguous utopia', tags: [tags['sf']!], _continue: '' });
    expect(good.statusCode).toBe(302);
    const row = await db.selectFrom('shop_book').selectAll().where('title', '=', 'The Dispossessed').executeTakeFirstOrThrow();
    expect(good.headers['location']).toBe(`/admin/shop/book/${row['id']}/change/`);
    expect(row).toMatchObject({ author_id: author, kind: 'n', year: 1974, published: '1974-05-01', inPrint: bool(true), notes: 'An ambiguous utopia' });
    expect(Number(row['price'])).toBe(12.5);
    expect(await db.selectFrom('shop_book_tags').select('tag_id').where('book_id', '=', row['id'] as number).execute()).toEqual([{ tag_id: Number(tags['sf']) }]);
    const page = await get(root, good.headers['location'] as string);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p class="success" role="status">The book “The Dispossessed” was added successfully. You may edit it again below.</p>');
    expect(page.body).toContain('<input type="text" name="title" id="id_title" value="The Dispossessed" maxlength="200" required>');
    expect(page.body).toContain(`<option value="${tags['sf']}" selected>sf</option>`);
    expect(page.body).toContain(`<option value="${tags['classic']}">classic</option>`);
    expect(page.body).toContain('<div class="field readonly" id="field-isbn"><span class="label">Isbn</span> <div class="readonly-value">-</div></div>');
    // The message is shown once.
    expect((await get(root, good.headers['location'] as string)).body).not.toContain('was added successfully');

    const log = (await logRows()).at(-1)!;
    expect(log).toMatchObject({ user_id: rootId, content_type: 'shop_book', object_id: String(row['id']), object_repr: 'The Dispossessed', action_flag: 1, change_message: '[{"added": {}}]' });

    const another = await post(root, '/admin/shop/book/add/', { title: 'Lathe of Heaven', author: String(author), kind: 'n', _addanother: '' });
    expect(another.statusCode).toBe(302);
    expect(another.headers['location']).toBe('/admin/shop/book/add/');
  });

  it('changes a row, records which fields changed, and shows the history; a unique value already taken is a field error', async () => {
    const row = await db.selectFrom('shop_book').selectAll().where('title', '=', 'The Dispossessed').executeTakeFirstOrThrow();
    const url = `/admin/shop/book/${row['id']}/change/`;
    const tags = (await db.selectFrom('shop_tag').select('id').orderBy('id').execute()).map((t) => String(t['id']));
    const res = await post(root, url, { title: 'The Dispossessed: An Ambiguous Utopia', author: String(row['author_id']), kind: 'n', year: '1975', published: '1974-05-01', inPrint: 'on', price: '12.50', notes: 'An ambiguous utopia', tags, _save: '' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/shop/book/');
    const list = await get(root, '/admin/shop/book/?q=ambiguous');
    expect(list.body).toContain('<p class="success" role="status">The book “The Dispossessed: An Ambiguous Utopia” was changed successfully.</p>');
    const changed = await db.selectFrom('shop_book').selectAll().where('id', '=', row['id'] as number).executeTakeFirstOrThrow();
    expect(changed).toMatchObject({ title: 'The Dispossessed: An Ambiguous Utopia', year: 1975 });
    const log = (await logRows()).at(-1)!;
    expect(log).toMatchObject({ action_flag: 2, object_repr: 'The Dispossessed: An Ambiguous Utopia', change_message: '[{"changed": {"fields": ["Title", "Year", "Tags"]}}]' });
    expect((await db.selectFrom('shop_book_tags').select('tag_id').where('book_id', '=', row['id'] as number).orderBy('tag_id').execute()).map((t) => String(t['tag_id']))).toEqual(tags);
    // The tags filter and a search through them.
    const tagged = await get(root, `/admin/shop/book/?tags__id__exact=${tags[0]}`);
    expect(tagged.statusCode).toBe(200);
    expect(titles(tagged.body)).toEqual(['The Dispossessed: An Ambiguous Utopia']);
    expect(titles((await get(root, '/admin/shop/book/?q=classic')).body)).toEqual(['The Dispossessed: An Ambiguous Utopia']);
    const untagged = await get(root, '/admin/shop/book/?tags__isnull=True&q=dune');
    expect(titles(untagged.body)).toEqual(['Dune']);

    const history = await get(root, `/admin/shop/book/${row['id']}/history/`);
    expect(history.statusCode).toBe(200);
    expect(history.body).toContain('<h1>Change history: The Dispossessed: An Ambiguous Utopia</h1>');
    const actions = [...history.body.matchAll(/<td data-label="User">([^<]+)<\/td><td data-label="Action">([^<]+)<\/td>/g)].map((m) => [m[1], m[2]]);
    expect(actions).toEqual([
      ['root', 'Added.'],
      ['root', 'Changed Title, Year and Tags.'],
    ]);
    const index = await get(root, '/admin/');
    expect(index.body).toContain(`<li class="changelink"><a href="/admin/shop/book/${row['id']}/change/">The Dispossessed: An Ambiguous Utopia</a> <span class="muted">Book — Changed Title, Year and Tags.</span></li>`);

    // Author e-mails are unique: DRF's UniqueValidator message, inline.
    await db.insertInto('shop_author').values({ name: 'Taken', email: 'taken@example.com' }).execute();
    const other = await db.insertInto('shop_author').values({ name: 'Other' }).returningAll().executeTakeFirstOrThrow();
    const dup = await post(root, `/admin/shop/author/${other['id']}/change/`, { name: 'Other', email: 'taken@example.com' });
    expect(dup.statusCode).toBe(200);
    expect(dup.body).toContain('<li>author with this email already exists.</li>');
    const invalid = await post(root, `/admin/shop/author/${other['id']}/change/`, { name: 'Other', email: 'not-an-address' });
    expect(invalid.body).toContain('<li>Enter a valid email address.</li>');
    expect((await db.selectFrom('shop_author').select('email').where('id', '=', other['id'] as number).executeTakeFirstOrThrow()).email).toBeNull();
  });

  it('asks before deleting and lists what the cascade removes; the delete is logged', async () => {
    const author = await db.insertInto('shop_author').values({ name: 'Doomed Author' }).returningAll().executeTakeFirstOrThrow();
    const books = [];
    for (const title of ['Doomed One', 'Doomed Two']) {
      const b = await db.insertInto('shop_book').values(Book.insertValues({ title, author_id: author['id'] as number }) as never).returningAll().executeTakeFirstOrThrow();
      books.push(b);
      await db.insertInto('shop_review').values({ book_id: b['id'], stars: 4 }).execute();
    }
    const tag = await db.selectFrom('shop_tag').select('id').where('name', '=', 'classic').executeTakeFirstOrThrow();
    const pair = await db.insertInto('shop_book_tags').values({ book_id: books[0]!['id'], tag_id: tag['id'] }).returningAll().executeTakeFirstOrThrow();
    const url = `/admin/shop/author/${author['id']}/delete/`;
    const page = await get(root, url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Are you sure?</h1>');
    expect(page.body).toContain('Are you sure you want to delete the author “Doomed Author”? All of the following related items will be deleted:');
    expect(page.body).toContain('<ul id="deleted-summary"><li>Authors: 1</li><li>Books: 2</li><li>Book-tag relationships: 1</li><li>Reviews: 2</li></ul>');
    expect(page.body).toContain(
      `<li><a href="/admin/shop/author/${author['id']}/change/">Author: Doomed Author</a><ul><li><a href="/admin/shop/book/${books[0]!['id']}/change/">Book: Doomed One</a><ul><li>Book-tag relationship: Book_tags object (${pair['id']})</li><li><a href="/admin/shop/review/`,
    );
    expect(page.body).toContain('>Review: 4 stars</a></li></ul></li>');
    // The question itself deletes nothing.
    expect(await db.selectFrom('shop_author').select('id').where('id', '=', author['id'] as number).executeTakeFirst()).toBeDefined();

    const res = await post(root, url, {});
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/shop/author/');
    expect(await db.selectFrom('shop_author').select('id').where('id', '=', author['id'] as number).executeTakeFirst()).toBeUndefined();
    expect(await db.selectFrom('shop_book').select('id').where('author_id', '=', author['id'] as number).execute()).toEqual([]);
    expect(await db.selectFrom('shop_book_tags').select('id').where('id', '=', pair['id'] as number).execute()).toEqual([]);
    const list = await get(root, '/admin/shop/author/');
    expect(list.body).toContain('<p class="success" role="status">The author “Doomed Author” was deleted successfully.</p>');
    const log = (await logRows()).at(-1)!;
    expect(log).toMatchObject({ action_flag: 3, content_type: 'shop_author', object_id: String(author['id']), object_repr: 'Doomed Author', change_message: '' });
    const index = await get(root, '/admin/');
    expect(index.body).toContain('<li class="deletelink">Doomed Author <span class="muted">Author — Deleted.</span></li>');
  });

  it('"Delete selected books": asks with what the cascade removes, then deletes and logs each row; none selected or a protected row changes nothing', async () => {
    const author = await db.insertInto('shop_author').values({ name: 'Batch Author' }).returningAll().executeTakeFirstOrThrow();
    const ids: number[] = [];
    for (const title of ['Batch One', 'Batch Two', 'Batch Three']) {
      ids.push(Number((await db.insertInto('shop_book').values(Book.insertValues({ title, author_id: author['id'] as number }) as never).returningAll().executeTakeFirstOrThrow())['id']));
    }
    await db.insertInto('shop_review').values({ book_id: ids[0], stars: 3 }).execute();
    const list = await get(root, '/admin/shop/book/?q=batch');
    expect(list.body).toContain('<select name="action" id="id_action"><option value="">---------</option><option value="delete_selected">Delete selected books</option></select>');
    expect(list.body).toContain(`<td data-label="Select"><input type="checkbox" name="_selected_action" value="${ids[0]}" form="changelist-form" aria-label="Select Batch One"></td>`);

    const none = await post(root, '/admin/shop/book/', { action: 'delete_selected' });
    expect(none.statusCode).toBe(302);
    expect((await get(root, '/admin/shop/book/?q=batch')).body).toContain('Items must be selected in order to perform actions on them. No items have been changed.');

    const selected = [String(ids[0]), String(ids[1])];
    const ask = await post(root, '/admin/shop/book/', { action: 'delete_selected', _selected_action: selected });
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('Are you sure you want to delete the selected books? All of the following objects and their related items will be deleted:');
    expect(ask.body).toContain('<ul id="deleted-summary"><li>Books: 2</li><li>Reviews: 1</li></ul>');
    expect(ask.body).toContain(`<input type="hidden" name="_selected_action" value="${ids[1]}">`);
    expect((await db.selectFrom('shop_book').select('id').where('id', 'in', ids).execute()).length).toBe(3);

    const done = await post(root, '/admin/shop/book/', { action: 'delete_selected', _selected_action: selected, post: 'yes' });
    expect(done.statusCode).toBe(302);
    expect(done.headers['location']).toBe('/admin/shop/book/');
    expect((await get(root, '/admin/shop/book/?q=batch')).body).toContain('<p class="success" role="status">Successfully deleted 2 books.</p>');
    expect((await db.selectFrom('shop_book').select('title').where('id', 'in', ids).execute()).map((r) => r['title'])).toEqual(['Batch Three']);
    const logged = (await logRows()).filter((l) => l['action_flag'] === 3 && l['content_type'] === 'shop_book').map((l) => l['object_repr']);
    expect(logged).toEqual(expect.arrayContaining(['Batch One', 'Batch Two']));

    // A protected row: nothing is deleted, 409 with the reason.
    await db.insertInto('shop_loan').values({ book_id: ids[2], borrower: 'Ged' }).execute();
    const refused = await post(root, '/admin/shop/book/', { action: 'delete_selected', _selected_action: [String(ids[2])], post: 'yes' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('<h1>Cannot delete book</h1>');
    expect(refused.body).toContain('Deleting the selected book would require deleting the following protected related objects:');
    expect(await db.selectFrom('shop_book').select('id').where('id', '=', ids[2]!).executeTakeFirst()).toBeDefined();
    // Without the delete permission the action is refused.
    const viewer = await login('viewer');
    expect((await get(viewer, '/admin/shop/book/')).body).not.toContain('changelist-form');
    expect((await post(viewer, '/admin/shop/book/', { action: 'delete_selected', _selected_action: [String(ids[2])], post: 'yes' })).statusCode).toBe(403);
  });

  it('refuses a protected delete with the reason, and deletes nothing', async () => {
    const dune = await db.selectFrom('shop_book').selectAll().where('title', '=', 'Dune').executeTakeFirstOrThrow();
    await db.insertInto('shop_loan').values({ book_id: dune['id'], borrower: 'Paul' }).execute();
    const url = `/admin/shop/book/${dune['id']}/delete/`;
    const page = await get(root, url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Cannot delete book</h1>');
    expect(page.body).toContain('Deleting the book “Dune” would require deleting the following protected related objects:');
    expect(page.body).toMatch(/<div id="protected-objects"><ul><li>Loan: Loan object \(\d+\)<\/li><\/ul><\/div>/);
    expect(page.body).not.toContain('Yes, I’m sure');
    const res = await post(root, url, {});
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('would require deleting the following protected related objects:');
    expect(await db.selectFrom('shop_book').select('id').where('id', '=', dune['id'] as number).executeTakeFirst()).toBeDefined();
    expect((await logRows()).filter((l) => l['action_flag'] === 3 && l['content_type'] === 'shop_book' && l['object_id'] === String(dune['id']))).toEqual([]);
  });

  it('a post without the CSRF token is a 403 page and writes nothing; a missing id is a 404 page', async () => {
    const count = async () => Number((await db.selectFrom('shop_author').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const logs = (await logRows()).length;
    const res = await post(root, '/admin/shop/author/add/', { name: 'Forged' }, false);
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('CSRF Failed: CSRF token missing.');
    expect(await count()).toBe(before);
    expect((await logRows()).length).toBe(logs);

    for (const url of ['/admin/shop/author/999999/change/', '/admin/shop/author/999999/delete/', '/admin/shop/author/999999/history/', '/admin/shop/author/abc/change/', '/admin/shop/author/2147483648/change/', '/admin/shop/author/99999999999999999999/delete/']) {
      const missing = await get(root, url);
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(missing.body).toMatch(/Author with ID “(999999|abc|2147483648|99999999999999999999)” doesn’t exist\. Perhaps it was deleted\?/);
    }
    const anonymous = await app.inject({ url: '/admin/shop/book/', headers: { accept: 'text/html' } });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers['location']).toBe('/admin/login/?next=%2Fadmin%2Fshop%2Fbook%2F');
  });
});

describe('admin registration', () => {
  it('refuses options that name no field, a field a list cannot show, filter or search, and a model registered twice', () => {
    expect(() => new AdminSite().register(Book, { listDisplay: ['nope'] })).toThrow('Admin for shop_book: listDisplay names "nope", which is not a field.');
    expect(() => new AdminSite().register(Book, { listDisplay: ['tags'] })).toThrow('Admin for shop_book: listDisplay names "tags", a manyToMany field; show it with a computed column.');
    expect(() => new AdminSite().register(Book, { listFilter: ['title'] })).toThrow('Admin for shop_book: listFilter "title" must be a boolean, a field with choices, a foreign key or a date.');
    expect(() => new AdminSite().register(Book, { searchFields: ['title__name'] })).toThrow('Admin for shop_book: searchFields "title__name" follows "title", which is not a relation.');
    expect(() => new AdminSite().register(Book, { ordering: ['-tags'] })).toThrow('Admin for shop_book: "tags" is a manyToMany field and cannot sort.');
    expect(() => new AdminSite().register(Book, { listPerPage: 0 })).toThrow('Admin for shop_book: listPerPage must be a positive integer.');
    expect(() => new AdminSite().register(Book).register(Book)).toThrow('The model shop_book is already registered with the admin.');
    const site = new AdminSite().register(Book).register(Author);
    expect(site.registry.map((a) => [a.appLabel, a.modelName, a.routeName('changelist')])).toEqual([
      ['shop', 'book', 'shop_book_changelist'],
      ['shop', 'author', 'shop_author_changelist'],
    ]);
  });
});
