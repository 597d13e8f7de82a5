import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';

const Author = model('lib_author', {
  name: field.char({ maxLength: 100 }),
  country: field.char({ maxLength: 50, blank: true, default: '' }),
  born: field.integer({ null: true }),
  notes: field.text({ blank: true, default: '' }),
});
const Tag = model('lib_tag', {
  name: field.char({ maxLength: 50 }),
});
const Book = model('lib_book', {
  title: field.char({ maxLength: 200 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
  year: field.integer({ null: true }),
  inPrint: field.boolean({ default: true, verboseName: 'in print' }),
  isbn: field.char({ maxLength: 13, unique: true, null: true }),
  tags: field.manyToMany(() => Tag, { blank: true }),
});
/** A foreign key without a related name: Django's default prefix `quote_set`. */
const Quote = model('lib_quote', {
  author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
  text: field.char({ maxLength: 200 }),
});

const initial = migration({
  operations: [Author, Tag, Book, Quote].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)),
});

const PASSWORD = 'correct horse battery staple';
const FORM = 'application/x-www-form-urlencoded';
type Db = Kysely<Record<string, Record<string, unknown>>>;

function site(): AdminSite {
  return new AdminSite()
    .register(Author, {
      fieldsets: [
        [null, { fields: ['name'] }],
        ['Where and when', { fields: [['country', 'born']], description: 'Birth <country> & year.', classes: ['collapse'] }],
        ['Notes', { fields: ['notes'] }],
      ],
      // inlines
      searchFields: ['name'],
      str: (a) => a.name,
    })
    .register(Tag, { searchFields: ['name'], str: (t) => t.name })
    .register(Book, { searchFields: ['title'], str: (b) => b.title })
    .register(Quote, { str: (q) => q.text });
}

describe.each(testDatabases())('more admin options on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let root: CookieJar;
  let le: number;
  let herbert: number;

  async function login(username: string): Promise<CookieJar> {
    const jar = new CookieJar();
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const res = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username, password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(302);
    jar.store(res.headers['set-cookie']);
    return jar;
  }

  const get = async (jar: CookieJar, url: string, accept = 'text/html') => {
    const res = await app.inject({ url, headers: { accept, cookie: jar.header() } });
    jar.store(res.headers['set-cookie']);
    return res;
  };

  async function post(jar: CookieJar, url: string, fields: Record<string, string | string[]>) {
    const page = await get(jar, '/admin/');
    const body = new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken') });
    for (const [k, v] of Object.entries(fields)) for (const one of typeof v === 'string' ? [v] : v) body.append(k, one);
    const res = await app.inject({ method: 'POST', url, headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() }, payload: body.toString() });
    jar.store(res.headers['set-cookie']);
    return res;
  }

  const books = (author: number) => db.selectFrom('lib_book').select(['id', 'title', 'year']).where('author_id', '=', author).orderBy('id').execute();
  const lastLog = () => db.selectFrom('trestle_admin_log').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': initial });
    app = await createApp({
      settings: { SECRET_KEY: 'test-secret-key-for-more-model-admin-tests-0123456789' },
      routes: [adminRoutes({ site: site() })],
      database,
      logger: false,
    });
    const users = app.trestle.services.get('users');
    await users.createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    await users.createUser({ username: 'clerk', password: PASSWORD, isStaff: true });
    le = Number((await db.insertInto('lib_author').values({ name: 'Ursula Le Guin', country: 'US', notes: '' }).returning('id').executeTakeFirstOrThrow())['id']);
    herbert = Number((await db.insertInto('lib_author').values({ name: 'Frank Herbert', country: 'US', notes: '' }).returning('id').executeTakeFirstOrThrow())['id']);
    for (const title of ['A Wizard of Earthsea', 'The Dispossessed']) await db.insertInto('lib_book').values(Book.insertValues({ title, author_id: le, year: 1970 }) as never).execute();
    await db.insertInto('lib_book').values(Book.insertValues({ title: 'Dune', author_id: herbert, year: 1965 }) as never).execute();
    for (const name of ['classic', 'sf', 'fantasy']) await db.insertInto('lib_tag').values({ name }).execute();
    root = await login('root');
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  describe('fieldsets', () => {
    it('groups the form in fieldsets with a legend, the description escaped, a line of two fields in one row', async () => {
      const res = await get(root, `/admin/lib/author/${le}/change/`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toMatch(/<fieldset class="module aligned" id="fieldset-0">\n<div class="field" id="field-name"><label for="id_name">Name<\/label><input type="text" name="name" id="id_name" value="Ursula Le Guin"/);
      expect(res.body).toContain('<fieldset class="module aligned collapse" id="fieldset-1">\n<legend><h2 class="fieldset-heading">Where and when</h2></legend>\n<div class="description">Birth &lt;country&gt; &amp; year.</div>\n<div class="form-row"><div class="field" id="field-country">');
      expect(res.body).toMatch(/<div class="field" id="field-born">.*<\/div>\n<\/div>\n<\/fieldset>/);
      expect(res.body).toContain('<legend><h2 class="fieldset-heading">Notes</h2></legend>');
      expect(res.body.indexOf('id="field-name"')).toBeLessThan(res.body.indexOf('id="field-country"'));
      expect(res.body.indexOf('id="field-born"')).toBeLessThan(res.body.indexOf('id="field-notes"'));
      expect(res.body.match(/<fieldset class="module aligned/g)).toHaveLength(3);
    });

    it('a form posted with fieldsets saves every field of every fieldset', async () => {
      const res = await post(root, '/admin/lib/author/add/', { name: 'Mary Oliver', country: 'US', born: '1935', notes: 'poet', 'books-TOTAL_FORMS': '0', 'books-INITIAL_FORMS': '0', 'quote_set-TOTAL_FORMS': '0', 'quote_set-INITIAL_FORMS': '0', _save: '' });
      expect(res.statusCode).toBe(302);
      expect(res.headers['location']).toBe('/admin/lib/author/');
      const row = await db.selectFrom('lib_author').selectAll().where('name', '=', 'Mary Oliver').executeTakeFirstOrThrow();
      expect([row['country'], row['born'], row['notes']]).toEqual(['US', 1935, 'poet']);
    });

    it('refuses fieldsets naming a non-field, a field twice, or given with fields', () => {
      expect(() => new AdminSite().register(Author, { fieldsets: [[null, { fields: ['name', 'nope'] }]] })).toThrow('Admin for lib_author: fieldsets names "nope", which is not a field.');
      expect(() => new AdminSite().register(Author, { fieldsets: [[null, { fields: ['name'] }], ['Again', { fields: [['country', 'name']] }]] })).toThrow('fieldsets names "name" more than once');
      expect(() => new AdminSite().register(Author, { fields: ['name'], fieldsets: [[null, { fields: ['name'] }]] })).toThrow('both fields and fieldsets');
    });
  });
});
