import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { adminGet, adminLogin } from './session.js';

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
  text: field.char({ maxLength: 200, unique: true }),
});

/** Not registered: edited only inline on its book, its author chosen by autocomplete. */
const Citation = model('lib_citation', {
  book: field.foreignKey(() => Book, { onDelete: 'cascade', relatedName: 'citations' }),
  cites: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'cited_by' }),
  note: field.char({ maxLength: 100, blank: true, default: '' }),
});

const initial = migration({
  operations: [Author, Tag, Book, Quote, Citation].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)),
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
      inlines: [{ model: Book, fields: ['title', 'year', 'inPrint'], extra: 2 }, { model: Quote, extra: 1, canDelete: false }],
      searchFields: ['name'],
      str: (a) => a.name,
    })
    .register(Tag, { searchFields: ['name'], str: (t) => t.name })
    .register(Book, { autocompleteFields: ['author', 'tags'], searchFields: ['title'], inlines: [{ model: Citation, extra: 1, autocompleteFields: ['cites'] }], str: (b) => b.title })
    .register(Quote, { str: (q) => q.text });
}

describe.each(testDatabases())('more admin options on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let root: CookieJar;
  let le: number;
  let herbert: number;

  const login = (username: string): Promise<CookieJar> => adminLogin(app, username, PASSWORD);

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
  describe('inlines', () => {
    /** The management form and rows of the books and quotes tables as posted back unchanged. */
    const unchanged = (body: string) => {
      const out: Record<string, string> = {};
      for (const m of body.matchAll(/<input type="(?:hidden|text|number)" name="((?:books|quote_set)-[^"]+)" (?:id="[^"]*" aria-label="[^"]*" )?value="([^"]*)"/g)) out[m[1]!] = m[2]!;
      for (const m of body.matchAll(/<input type="checkbox" name="((?:books|quote_set)-[^"]+)" id="[^"]+" aria-label="[^"]+" checked>/g)) out[m[1]!] = 'on';
      return out;
    };

    it('the change form has a table per inline: the management form, the related rows, blank rows and Delete?', async () => {
      const res = await get(root, `/admin/lib/author/${le}/change/`);
      expect(res.statusCode).toBe(200);
      const [first, second] = await books(le);
      expect(res.body).toContain(`<div class="js-inline-admin-formset inline-group" id="books-group">`);
      expect(res.body).toContain('<input type="hidden" name="books-TOTAL_FORMS" value="4" id="id_books-TOTAL_FORMS"><input type="hidden" name="books-INITIAL_FORMS" value="2" id="id_books-INITIAL_FORMS"><input type="hidden" name="books-MIN_NUM_FORMS" value="0" id="id_books-MIN_NUM_FORMS"><input type="hidden" name="books-MAX_NUM_FORMS" value="1000" id="id_books-MAX_NUM_FORMS">');
      expect(res.body).toContain('<legend><h2 class="inline-heading">Books</h2></legend>');
      expect(res.body).toContain('<thead><tr><th class="original"></th><th class="column-title required" scope="col">Title</th><th class="column-year" scope="col">Year</th><th class="column-inPrint" scope="col">In print</th><th scope="col">Delete?</th></tr></thead>');
      expect(res.body).toContain(
        `<tr class="form-row has_original" id="books-0"><td class="original"><p>A Wizard of Earthsea</p><input type="hidden" name="books-0-id" value="${String(first!['id'])}" id="id_books-0-id"><input type="hidden" name="books-0-author" value="${le}" id="id_books-0-author"></td><td class="field-title"><input type="text" name="books-0-title" id="id_books-0-title" aria-label="Title" value="A Wizard of Earthsea" maxlength="200"></td>`,
      );
      expect(res.body).toContain(`<input type="hidden" name="books-1-id" value="${String(second!['id'])}"`);
      expect(res.body).toContain('<td class="delete"><input type="checkbox" name="books-1-DELETE" id="id_books-1-DELETE" aria-label="Delete"></td>');
      // A blank row: no key, the defaults (in print checked), no Delete?.
      expect(res.body).toContain('<tr class="form-row" id="books-3"><td class="original"><input type="hidden" name="books-3-author" value="" id="id_books-3-author"></td><td class="field-title"><input type="text" name="books-3-title" id="id_books-3-title" aria-label="Title" value="" maxlength="200"></td><td class="field-year"><input type="number" name="books-3-year" id="id_books-3-year" aria-label="Year" value=""></td><td class="field-inPrint"><input type="checkbox" name="books-3-inPrint" id="id_books-3-inPrint" aria-label="In print" checked></td><td class="delete"></td></tr>');
      expect(res.body).not.toContain('books-4');
      // Quotes: Django's default prefix, one blank row, no Delete? column.
      expect(res.body).toContain('<input type="hidden" name="quote_set-TOTAL_FORMS" value="1" id="id_quote_set-TOTAL_FORMS"><input type="hidden" name="quote_set-INITIAL_FORMS" value="0"');
      expect(res.body).toContain('<th class="column-text required" scope="col">Text</th><th scope="col"></th>');
      // The tables are inside the form, before its buttons.
      expect(res.body.indexOf('id="books-group"')).toBeGreaterThan(res.body.indexOf('<form method="post"'));
      expect(res.body.indexOf('id="quote_set-group"')).toBeLessThan(res.body.indexOf('name="_save"'));
    });

    it('one post changes, deletes and adds related rows with the parent, and logs them as Django does', async () => {
      const author = Number((await db.insertInto('lib_author').values({ name: 'Octavia Butler', country: 'US', notes: '' }).returning('id').executeTakeFirstOrThrow())['id']);
      for (const title of ['Kindred', 'Dawn']) await db.insertInto('lib_book').values(Book.insertValues({ title, author_id: author, year: 1979 }) as never).execute();
      const page = await get(root, `/admin/lib/author/${author}/change/`);
      const fields = {
        ...unchanged(page.body),
        name: 'Octavia E. Butler',
        country: 'US',
        born: '',
        notes: '',
        'books-0-title': 'Kindred (1979)',
        'books-1-DELETE': 'on',
        'books-2-title': 'Parable of the Sower',
        'books-2-year': '1993',
        'books-2-inPrint': 'on',
        'quote_set-0-text': 'All that you touch you change.',
        _continue: '',
      };
      const res = await post(root, `/admin/lib/author/${author}/change/`, fields);
      expect(res.statusCode).toBe(302);
      expect(res.headers['location']).toBe(`/admin/lib/author/${author}/change/`);
      expect((await books(author)).map((b) => [b['title'], b['year']])).toEqual([
        ['Kindred (1979)', 1979],
        ['Parable of the Sower', 1993],
      ]);
      expect((await db.selectFrom('lib_quote').select('text').where('author_id', '=', author).execute()).map((q) => q['text'])).toEqual(['All that you touch you change.']);
      const log = await lastLog();
      expect(log['object_repr']).toBe('Octavia E. Butler');
      expect(log['change_message']).toBe(
        '[{"changed": {"fields": ["Name"]}}, {"added": {"name": "book", "object": "Parable of the Sower"}}, {"changed": {"name": "book", "object": "Kindred (1979)", "fields": ["Title"]}}, {"deleted": {"name": "book", "object": "Dawn"}}, {"added": {"name": "quote", "object": "All that you touch you change."}}]',
      );
      const history = await get(root, `/admin/lib/author/${author}/history/`);
      expect(history.statusCode).toBe(200);
      expect(history.body).toContain('Changed Name. Added book “Parable of the Sower”. Changed Title for book “Kindred (1979)”. Deleted book “Dawn”. Added quote “All that you touch you change.”.');
      // The page after the redirect shows the rows as saved, the blank rows after them.
      const again = await get(root, `/admin/lib/author/${author}/change/`);
      expect(again.body).toContain('name="books-TOTAL_FORMS" value="4"');
      expect(again.body).toContain('name="books-1-title" id="id_books-1-title" aria-label="Title" value="Parable of the Sower"');
      expect(again.body).toContain('name="quote_set-INITIAL_FORMS" value="1"');
      // A quote cannot be deleted from the table (canDelete: false), even when DELETE is posted.
      const kept = await post(root, `/admin/lib/author/${author}/change/`, { ...unchanged(again.body), name: 'Octavia E. Butler', country: 'US', notes: '', 'quote_set-0-DELETE': 'on', _save: '' });
      expect(kept.statusCode).toBe(302);
      expect(await db.selectFrom('lib_quote').select('id').where('author_id', '=', author).execute()).toHaveLength(1);
      expect((await lastLog())['change_message']).toBe('[]');
    });

    it('a row that fails validation shows its errors in its row and nothing is written, not even the parent', async () => {
      const page = await get(root, `/admin/lib/author/${herbert}/change/`);
      const before = await books(herbert);
      const logs = (await db.selectFrom('trestle_admin_log').select('id').execute()).length;
      const res = await post(root, `/admin/lib/author/${herbert}/change/`, {
        ...unchanged(page.body),
        name: 'F. Herbert',
        'books-0-title': 'Dune Messiah',
        'books-1-year': '1969',
        'books-2-title': 'Children of Dune',
        'books-2-year': 'soon',
        _save: '',
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Please correct the errors below.');
      expect(res.body).toContain('<td class="field-title"><ul class="errorlist"><li>This field may not be blank.</li></ul><input type="text" name="books-1-title" id="id_books-1-title" aria-label="Title" aria-invalid="true" value=""');
      expect(res.body).toContain('<td class="field-year"><ul class="errorlist"><li>A valid integer is required.</li></ul><input type="number" name="books-2-year"');
      // The posted values are kept.
      expect(res.body).toContain('name="books-0-title" id="id_books-0-title" aria-label="Title" value="Dune Messiah"');
      expect(res.body).toContain('name="name" id="id_name" value="F. Herbert"');
      expect(await books(herbert)).toEqual(before);
      expect((await db.selectFrom('lib_author').select('name').where('id', '=', herbert).executeTakeFirstOrThrow())['name']).toBe('Frank Herbert');
      expect((await db.selectFrom('trestle_admin_log').select('id').execute()).length).toBe(logs);
    });

    it('the add form creates the parent and its rows in one transaction; a missing management form is an error', async () => {
      const res = await post(root, '/admin/lib/author/add/', {
        name: 'Italo Calvino',
        country: 'IT',
        born: '1923',
        notes: '',
        'books-TOTAL_FORMS': '3',
        'books-INITIAL_FORMS': '0',
        'books-0-title': 'Invisible Cities',
        'books-0-year': '1972',
        'books-0-inPrint': 'on',
        'books-1-title': 'Cosmicomics',
        'books-1-inPrint': 'on',
        'books-2-inPrint': 'on',
        'quote_set-TOTAL_FORMS': '1',
        'quote_set-INITIAL_FORMS': '0',
        'quote_set-0-text': '',
        _save: '',
      });
      expect(res.statusCode).toBe(302);
      expect(res.headers['location']).toBe('/admin/lib/author/');
      const author = Number((await db.selectFrom('lib_author').select('id').where('name', '=', 'Italo Calvino').executeTakeFirstOrThrow())['id']);
      expect((await books(author)).map((b) => b['title'])).toEqual(['Invisible Cities', 'Cosmicomics']);
      expect((await lastLog())['change_message']).toBe('[{"added": {}}, {"added": {"name": "book", "object": "Invisible Cities"}}, {"added": {"name": "book", "object": "Cosmicomics"}}]');

      const missing = await post(root, '/admin/lib/author/add/', { name: 'Nobody', country: '', notes: '', 'books-0-title': 'Lost', 'quote_set-TOTAL_FORMS': '0', 'quote_set-INITIAL_FORMS': '0', _save: '' });
      expect(missing.statusCode).toBe(200);
      expect(missing.body).toContain('<ul class="errorlist"><li>ManagementForm data is missing or has been tampered with. Missing fields: books-TOTAL_FORMS, books-INITIAL_FORMS. You may need to file a bug report if the issue persists.</li></ul>');
      expect(await db.selectFrom('lib_author').select('id').where('name', '=', 'Nobody').execute()).toEqual([]);
    });

    it('an existing row that is not the parent\'s is refused in its row', async () => {
      const [dune] = await books(herbert);
      const res = await post(root, `/admin/lib/author/${le}/change/`, { name: 'Ursula Le Guin', country: 'US', notes: '', 'books-TOTAL_FORMS': '1', 'books-INITIAL_FORMS': '1', 'books-0-id': String(dune!['id']), 'books-0-title': 'Stolen', 'quote_set-TOTAL_FORMS': '0', 'quote_set-INITIAL_FORMS': '0', _save: '' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<tr class="row-form-errors"><td colspan="5"><ul class="errorlist nonfield"><li>Select a valid choice. That choice is not one of the available choices.</li></ul></td></tr>');
      expect((await books(herbert))[0]!['title']).toBe('Dune');
    });

    it('a unique value twice among the rows posted, or already in another row, is refused in the row', async () => {
      const form = (texts: string[]) => ({
        name: 'Frank Herbert',
        country: 'US',
        notes: '',
        'books-TOTAL_FORMS': '0',
        'books-INITIAL_FORMS': '0',
        'quote_set-TOTAL_FORMS': String(texts.length),
        'quote_set-INITIAL_FORMS': '0',
        ...Object.fromEntries(texts.map((t, i) => [`quote_set-${i}-text`, t])),
        _save: '',
      });
      const twice = await post(root, `/admin/lib/author/${herbert}/change/`, form(['Fear is the mind-killer.', 'Deep in the human unconscious.', 'Fear is the mind-killer.']));
      expect(twice.statusCode).toBe(200);
      expect(twice.body).toContain('<legend><h2 class="inline-heading">Quotes</h2></legend>\n<ul class="errorlist"><li>Please correct the duplicate data for text.</li></ul>');
      expect(twice.body).toContain('<tr class="row-form-errors"><td colspan="3"><ul class="errorlist nonfield"><li>Please correct the duplicate values below.</li></ul></td></tr>\n<tr class="form-row" id="quote_set-2">');
      expect(twice.body).not.toContain('<tr class="row-form-errors"><td colspan="3"><ul class="errorlist nonfield"><li>Please correct the duplicate values below.</li></ul></td></tr>\n<tr class="form-row" id="quote_set-0">');
      expect(await db.selectFrom('lib_quote').select('id').where('author_id', '=', herbert).execute()).toEqual([]);

      const taken = await post(root, `/admin/lib/author/${herbert}/change/`, form(['All that you touch you change.']));
      expect(taken.statusCode).toBe(200);
      expect(taken.body).toContain('<td class="field-text"><ul class="errorlist"><li>quote with this text already exists.</li></ul><input type="text" name="quote_set-0-text"');
      expect(await db.selectFrom('lib_quote').select('id').where('author_id', '=', herbert).execute()).toEqual([]);
    });

    it("the inline model's own permissions: view only shows its rows as text, and the post leaves them alone; a view-only parent shows them too", async () => {
      const users = app.trestle.services.get('users');
      const grant = async (username: string, ...codenames: string[]) => {
        await get(root, '/admin/'); // the first admin page inserts the models' permission rows
        const id = Number((await users.createUser({ username, password: PASSWORD, isStaff: true })).pk);
        const perms = await db.selectFrom('auth_permission').select(['id', 'codename']).where('content_type', 'like', 'lib_%').where('codename', 'in', codenames).execute();
        expect(perms).toHaveLength(codenames.length);
        for (const perm of perms) await db.insertInto('trestle_user_user_permissions').values({ user_id: id, permission_id: perm['id'] }).execute();
        return login(username);
      };
      const editor = await grant('editor', 'change_author', 'view_book');
      const page = await get(editor, `/admin/lib/author/${le}/change/`);
      expect(page.statusCode).toBe(200);
      const [first] = await books(le);
      // Existing rows as text, no blank rows, no Delete?; quotes (no permission of their own) are not shown.
      expect(page.body).toContain(`<tr class="form-row has_original" id="books-0"><td class="original"><p>${String(first!['title'])}</p></td>`);
      expect(page.body).toContain(`<td class="field-title"><p>${String(first!['title'])}</p></td><td class="field-year"><p>${String(first!['year'] ?? '-')}</p></td><td class="field-inPrint"><p>Yes</p></td><td class="delete"></td></tr>`);
      expect(page.body).not.toContain('books-TOTAL_FORMS');
      expect(page.body).not.toContain('name="books-0-title"');
      expect(page.body).not.toContain('quote_set-group');
      const res = await post(editor, `/admin/lib/author/${le}/change/`, { ...unchanged(page.body), name: 'Ursula K. Le Guin', country: 'US', notes: '', 'books-0-title': 'Ignored', 'books-0-DELETE': 'on', 'quote_set-TOTAL_FORMS': '1', 'quote_set-INITIAL_FORMS': '0', 'quote_set-0-text': 'Ignored too', _save: '' });
      expect(res.statusCode).toBe(302);
      expect((await books(le))[0]!['title']).toBe(first!['title']);
      expect(await db.selectFrom('lib_quote').select('id').where('author_id', '=', le).execute()).toEqual([]);
      expect((await lastLog())['change_message']).toBe('[{"changed": {"fields": ["Name"]}}]');
      await db.updateTable('lib_author').set({ name: 'Ursula Le Guin' }).where('id', '=', le).execute();

      const reader = await grant('reader', 'view_author', 'view_book');
      const view = await get(reader, `/admin/lib/author/${le}/change/`);
      expect(view.statusCode).toBe(200);
      expect(view.body).not.toContain('<form method="post" action="/admin/lib/author/');
      expect(view.body).toContain('<legend><h2 class="inline-heading">Books</h2></legend>');
      expect(view.body).toContain(`<tr class="form-row has_original" id="books-0"><td class="original"><p>${String(first!['title'])}</p></td><td class="field-title"><p>${String(first!['title'])}</p></td>`);
      expect(view.body).not.toContain('books-TOTAL_FORMS');
    });

    it('refuses an inline without a foreign key to the parent, or with two and no fkName', () => {
      expect(() => new AdminSite().register(Author, { inlines: [{ model: Tag }] })).toThrow('Admin for lib_author: inline lib_tag has no foreign key to lib_author.');
      const Pair = model('lib_pair', { first: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'firsts' }), second: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'seconds' }) });
      expect(() => new AdminSite().register(Author, { inlines: [{ model: Pair }] })).toThrow('has more than one foreign key to lib_author; give fkName.');
      expect(() => new AdminSite().register(Author, { inlines: [{ model: Pair, fkName: 'nope' }] })).toThrow('fkName "nope" is not a foreign key to lib_author.');
      expect(new AdminSite().register(Author, { inlines: [{ model: Pair, fkName: 'second' }] }).adminFor('lib_author')!.inlines[0]!.prefix).toBe('seconds');
      expect(() => new AdminSite().register(Author, { inlines: [{ model: Book, fields: ['author'] }] })).toThrow('fields names "author", the foreign key to the parent.');
    });
  });
  describe('autocompleteFields', () => {
    const ac = (params: string) => `/admin/autocomplete/?app_label=lib&model_name=book&${params}`;

    it("answers Django's JSON: the target's rows matching term in its searchFields, by key", async () => {
      const res = await get(root, ac('field_name=author&term=GUIN'), 'application/json');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ results: [{ id: String(le), text: 'Ursula Le Guin' }], pagination: { more: false } });
      const all = await get(root, ac('field_name=author'), 'application/json');
      expect(all.statusCode).toBe(200);
      const authors = await db.selectFrom('lib_author').select(['id', 'name']).orderBy('id').execute();
      expect(all.json()).toEqual({ results: authors.map((a) => ({ id: String(a['id']), text: a['name'] })), pagination: { more: false } });
      const none = await get(root, ac('field_name=author&term=zzz'), 'application/json');
      expect(none.json()).toEqual({ results: [], pagination: { more: false } });
    });

    it('pages by twenty with pagination.more; a page past the last is 404', async () => {
      for (let i = 0; i < 22; i++) await db.insertInto('lib_tag').values({ name: `topic ${String(i).padStart(2, '0')}` }).execute();
      const first = await get(root, ac('field_name=tags&term=topic'), 'application/json');
      expect(first.statusCode).toBe(200);
      const one = first.json() as { results: Array<{ id: string; text: string }>; pagination: { more: boolean } };
      expect(one.results.map((r) => r.text)).toEqual(Array.from({ length: 20 }, (_, i) => `topic ${String(i).padStart(2, '0')}`));
      expect(one.pagination).toEqual({ more: true });
      const second = await get(root, ac('field_name=tags&term=topic&page=2'), 'application/json');
      expect(second.statusCode).toBe(200);
      expect(second.json()).toMatchObject({ results: [{ text: 'topic 20' }, { text: 'topic 21' }], pagination: { more: false } });
      for (const page of ['3', 'abc', '0']) expect((await get(root, ac(`field_name=tags&term=topic&page=${page}`), 'application/json')).statusCode).toBe(404);
    });

    it('403 for a missing or unknown parameter, a field that is not a relation, or a user who may not view the target; login first', async () => {
      for (const url of [ac('term=x'), '/admin/autocomplete/?app_label=lib&model_name=nope&field_name=author', ac('field_name=title'), ac('field_name=nope'), ac('field_name=constructor')]) {
        const res = await get(root, url, 'application/json');
        expect(res.statusCode, url).toBe(403);
        expect(res.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
      }
      const clerk = await login('clerk');
      expect((await get(clerk, ac('field_name=author'), 'application/json')).statusCode).toBe(403);
      const anonymous = await app.inject({ url: ac('field_name=author'), headers: { accept: 'application/json' } });
      expect(anonymous.statusCode).toBe(302);
      expect(anonymous.headers['location']).toBe(`/admin/login/?next=${encodeURIComponent(ac('field_name=author'))}`);
    });

    it('404 when the target is registered without searchFields', async () => {
      const other = await createApp({
        settings: { SECRET_KEY: 'test-secret-key-for-more-model-admin-tests-0123456789' },
        routes: [adminRoutes({ site: new AdminSite().register(Author).register(Book) })],
        database,
        logger: false,
      });
      try {
        const page = await other.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
        const jar = new CookieJar();
        jar.store(page.headers['set-cookie']);
        const logged = await other.inject({ method: 'POST', url: '/admin/login/', headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() }, payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'root', password: PASSWORD }).toString() });
        jar.store(logged.headers['set-cookie']);
        const res = await other.inject({ url: ac('field_name=author'), headers: { accept: 'application/json', cookie: jar.header() } });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'AuthorAdmin must have search_fields for the autocomplete_view.' });
      } finally {
        await other.close();
      }
    });

    it('the form shows a select of the chosen rows only, with a search box and the script; it posts keys as before', async () => {
      const [dune] = await books(herbert);
      const res = await get(root, `/admin/lib/book/${String(dune!['id'])}/change/`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(
        `<select name="author" id="id_author" class="admin-autocomplete" data-autocomplete-url="/admin/autocomplete/?app_label=lib&amp;model_name=book&amp;field_name=author" required><option value="">---------</option><option value="${herbert}" selected>Frank Herbert</option></select><input type="search" class="admin-autocomplete-search" id="id_author_search" data-for="id_author" aria-controls="id_author" aria-label="Search authors" placeholder="Search…" autocomplete="off">`,
      );
      expect(res.body).not.toContain('>Ursula Le Guin</option>');
      expect(res.body).toMatch(/<select multiple name="tags" id="id_tags" class="admin-autocomplete" data-autocomplete-url="\/admin\/autocomplete\/\?app_label=lib&amp;model_name=book&amp;field_name=tags" size="3"><\/select><input type="search" class="admin-autocomplete-search" id="id_tags_search"/);
      const script = res.body.match(/<script src="([^"]+admin-autocomplete\.js)" defer><\/script>/);
      expect(script).not.toBeNull();
      const js = await app.inject({ url: script![1]! });
      expect(js.statusCode).toBe(200);
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(js.body).toContain("url + '&term=' + encodeURIComponent(input.value)");

      const tags = await db.selectFrom('lib_tag').select('id').where('name', 'in', ['classic', 'sf']).orderBy('id').execute();
      const saved = await post(root, `/admin/lib/book/${String(dune!['id'])}/change/`, { title: 'Dune', author: String(le), year: '1965', inPrint: 'on', isbn: '', tags: tags.map((t) => String(t['id'])), 'citations-TOTAL_FORMS': '0', 'citations-INITIAL_FORMS': '0', _continue: '' });
      expect(saved.statusCode).toBe(302);
      const again = await get(root, `/admin/lib/book/${String(dune!['id'])}/change/`);
      expect(again.body).toContain(`<option value="${le}" selected>Ursula Le Guin</option></select>`);
      expect(again.body).toContain(`<option value="${String(tags[0]!['id'])}" selected>classic</option><option value="${String(tags[1]!['id'])}" selected>sf</option></select>`);
      expect((await db.selectFrom('lib_book').select('author_id').where('id', '=', dune!['id'] as number).executeTakeFirstOrThrow())['author_id']).toBe(le);
    });

    it("an inline's autocomplete column: the row's own target only, a search box, the endpoint knows the inline model", async () => {
      const [dune] = await books(le);
      const url = `/admin/lib/book/${String(dune!['id'])}/change/`;
      const page = await get(root, url);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(
        '<td class="field-cites"><select name="citations-0-cites" id="id_citations-0-cites" aria-label="Cites" class="admin-autocomplete" data-autocomplete-url="/admin/autocomplete/?app_label=lib&amp;model_name=citation&amp;field_name=cites"><option value="" selected>---------</option></select><input type="search" class="admin-autocomplete-search" id="id_citations-0-cites_search" data-for="id_citations-0-cites" aria-controls="id_citations-0-cites" aria-label="Search authors" placeholder="Search…" autocomplete="off"></td>',
      );
      const found = await get(root, '/admin/autocomplete/?app_label=lib&model_name=citation&field_name=cites&term=herbert', 'application/json');
      expect(found.statusCode).toBe(200);
      expect(found.json()).toEqual({ results: [{ id: String(herbert), text: 'Frank Herbert' }], pagination: { more: false } });

      const saved = await post(root, url, { title: String(dune!['title']), author: String(le), year: String(dune!['year'] ?? ''), inPrint: 'on', isbn: '', 'citations-TOTAL_FORMS': '1', 'citations-INITIAL_FORMS': '0', 'citations-0-cites': String(herbert), 'citations-0-note': 'a nod', _continue: '' });
      expect(saved.statusCode).toBe(302);
      expect(await db.selectFrom('lib_citation').select(['cites_id', 'note']).where('book_id', '=', dune!['id'] as number).execute()).toEqual([{ cites_id: herbert, note: 'a nod' }]);
      expect((await lastLog())['change_message']).toBe('[{"added": {"name": "citation", "object": "Citation object (1)"}}]');
      const again = await get(root, url);
      expect(again.body).toContain(`<select name="citations-0-cites" id="id_citations-0-cites" aria-label="Cites" class="admin-autocomplete" data-autocomplete-url="/admin/autocomplete/?app_label=lib&amp;model_name=citation&amp;field_name=cites"><option value="">---------</option><option value="${herbert}" selected>Frank Herbert</option></select>`);
      expect(() => new AdminSite().register(Author, { searchFields: ['name'] }).register(Book, { inlines: [{ model: Citation, autocompleteFields: ['note'] }] })).toThrow('Admin for lib_book: inline lib_citation: autocompleteFields "note" must be a foreign key column of the inline.');
    });

    it('refuses a field that is not a relation, and a target without searchFields (when registered) or not registered at all (when mounted)', () => {
      expect(() => new AdminSite().register(Book, { autocompleteFields: ['title'] })).toThrow('Admin for lib_book: autocompleteFields "title" must be a foreign key or a many-to-many field.');
      expect(() => new AdminSite().register(Author).register(Book, { autocompleteFields: ['author'] })).toThrow('Admin for lib_author must define searchFields, because admin for lib_book names it in autocompleteFields ("author").');
      const later = new AdminSite().register(Book, { autocompleteFields: ['author'] });
      expect(() => later.register(Author)).toThrow('Admin for lib_author must define searchFields');
      expect(later.adminFor('lib_author')).toBeUndefined();
      expect(() => adminRoutes({ site: later })).toThrow('Admin for lib_book: autocompleteFields "author" needs an admin of lib_author registered.');
    });
  });
});
