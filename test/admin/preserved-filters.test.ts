// Django's preserve_filters: the change list's search, filters, order and page
// travel with its links as `_changelist_filters`, and a save or a delete
// returns to the list as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, migration } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { Label, PASSWORD, Story, Writer } from './desk.js';
import { adminGet, adminLogin, adminPost } from './session.js';


const FORM = 'application/x-www-form-urlencoded';
type Db = Kysely<Record<string, Record<string, unknown>>>;

describe.each(testDatabases())('change list filters kept across pages on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let root: CookieJar;
  let storyId: number;
  let writerId: number;

  const get = (jar: CookieJar, url: string) => adminGet(app, jar, url);

  const post = (jar: CookieJar, url: string, fields: Record<string, string | string[]>) => adminPost(app, jar, url, fields);

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': migration({ operations: [Writer, Label, Story].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)) }) });
    const site = new AdminSite()
      .register(Writer, { str: (w) => w.name })
      .register(Label, { str: (l) => l.name })
      .register(Story, { listDisplay: ['title', 'writer', 'year'], listFilter: ['writer'], searchFields: ['title'], str: (s) => s.title });
    app = await createApp({ settings: { SECRET_KEY: 'test-secret-key-for-preserved-filters-0123456789' }, routes: [adminRoutes({ site })], database, logger: false });
    await app.trestle.services.get('users').createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    writerId = Number((await db.insertInto('desk_writer').values({ name: 'Ursula Le Guin' }).returning('id').executeTakeFirstOrThrow())['id']);
    storyId = Number((await db.insertInto('desk_story').values(Story.insertValues({ title: 'The Dispossessed', writer_id: writerId, year: 1974 }) as never).returning('id').executeTakeFirstOrThrow())['id']);
    root = await adminLogin(app, 'root', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('the list links carry its query; the change page keeps it in its form, breadcrumbs and links; each button returns with it', async () => {
    const query = `q=dispossessed&writer__id__exact=${writerId}&o=year`;
    const kept = `_changelist_filters=q%3Ddispossessed%26writer__id__exact%3D${writerId}%26o%3Dyear`;
    const list = await get(root, `/admin/desk/story/?${query}`);
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`<th scope="row" data-label="Title"><a href="/admin/desk/story/${storyId}/change/?${kept}">The Dispossessed</a></th>`);
    expect(list.body).toContain(`<a class="btn btn-primary" id="add-link" href="/admin/desk/story/add/?${kept}">Add story</a>`);
    // Without a query, the links are plain.
    expect((await get(root, '/admin/desk/story/')).body).toContain(`<a href="/admin/desk/story/${storyId}/change/">The Dispossessed</a>`);

    const form = await get(root, `/admin/desk/story/${storyId}/change/?${kept}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`<form method="post" action="/admin/desk/story/${storyId}/change/?${kept}" id="story_form" class="panel" novalidate>`);
    expect(form.body).toContain(`<a href="/admin/desk/story/?${query.replaceAll('&', '&amp;')}">Storys</a>`);
    expect(form.body).toContain(`<a class="btn" href="/admin/desk/story/${storyId}/history/?${kept}">History</a>`);
    expect(form.body).toContain(`<a class="btn btn-danger" href="/admin/desk/story/${storyId}/delete/?${kept}">Delete</a>`);

    const fields = { title: 'The Dispossessed', writer: String(writerId), year: '1974', inPrint: 'on' };
    const saved = await post(root, `/admin/desk/story/${storyId}/change/?${kept}`, { ...fields, _save: '' });
    expect(saved.statusCode).toBe(302);
    expect(saved.headers['location']).toBe(`/admin/desk/story/?${query}`);
    const again = await post(root, `/admin/desk/story/${storyId}/change/?${kept}`, { ...fields, _continue: '' });
    expect(again.headers['location']).toBe(`/admin/desk/story/${storyId}/change/?${kept}`);
    const another = await post(root, `/admin/desk/story/${storyId}/change/?${kept}`, { ...fields, _addanother: '' });
    expect(another.headers['location']).toBe(`/admin/desk/story/add/?${kept}`);
    // A value that is no query string is re-encoded, never echoed raw into Location.
    const odd = await post(root, `/admin/desk/story/${storyId}/change/?_changelist_filters=a%0D%0Ab%22`, { ...fields, _save: '' });
    expect(odd.headers['location']).toBe('/admin/desk/story/?a%0D%0Ab%22=');

    const confirm = await get(root, `/admin/desk/story/${storyId}/delete/?${kept}`);
    expect(confirm.body).toContain(`<form method="post" action="/admin/desk/story/${storyId}/delete/?${kept}">`);
    const deleted = await post(root, `/admin/desk/story/${storyId}/delete/?${kept}`, {});
    expect(deleted.statusCode).toBe(302);
    expect(deleted.headers['location']).toBe(`/admin/desk/story/?${query}`);
    expect(await db.selectFrom('desk_story').selectAll().execute()).toEqual([]);
  });
  it('"Delete selected" posts to the list as it was, and comes back to it; a view-only page closes to it', async () => {
    const ids: number[] = [];
    for (const title of ['A Wizard of Earthsea', 'The Tombs of Atuan']) {
      ids.push(Number((await db.insertInto('desk_story').values(Story.insertValues({ title, writer_id: writerId, year: 1970 }) as never).returning('id').executeTakeFirstOrThrow())['id']));
    }
    const query = `q=of&writer__id__exact=${writerId}&o=-year`;
    const here = `/admin/desk/story/?${query}`;
    const list = await get(root, here);
    expect(list.body).toContain(`<form method="post" action="${here.replaceAll('&', '&amp;')}" id="changelist-form" class="toolbar">`);
    const confirm = await post(root, here, { action: 'delete_selected', _selected_action: ids.map(String) });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`<form method="post" action="${here.replaceAll('&', '&amp;')}">`);
    expect(confirm.body).toContain(`<a class="btn" href="${here.replaceAll('&', '&amp;')}">No, take me back</a>`);
    const done = await post(root, here, { action: 'delete_selected', _selected_action: ids.map(String), post: 'yes' });
    expect(done.statusCode).toBe(302);
    expect(done.headers['location']).toBe(here);
    expect(await db.selectFrom('desk_story').select('id').where('id', 'in', ids).execute()).toEqual([]);
    const nothing = await post(root, here, { action: '' });
    expect(nothing.headers['location']).toBe(here);

    // A user who may only view stories closes the page back to the list as it was.
    const users = app.trestle.services.get('users');
    const reader = Number((await users.createUser({ username: 'reader', password: PASSWORD, isStaff: true })).pk);
    const perm = await db.selectFrom('auth_permission').select('id').where('codename', '=', 'view_story').executeTakeFirstOrThrow();
    await db.insertInto('trestle_user_user_permissions').values({ user_id: reader, permission_id: perm['id'] }).execute();
    const jar = new CookieJar();
    const login = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(login.headers['set-cookie']);
    const signedIn = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(login.body, 'csrfmiddlewaretoken'), username: 'reader', password: PASSWORD }).toString(),
    });
    jar.store(signedIn.headers['set-cookie']);
    const story = Number((await db.insertInto('desk_story').values(Story.insertValues({ title: 'Tehanu', writer_id: writerId, year: 1990 }) as never).returning('id').executeTakeFirstOrThrow())['id']);
    const page = await get(jar, `/admin/desk/story/${story}/change/?_changelist_filters=q%3Dtehanu`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>View story</h1>');
    expect(page.body).toContain('<a class="btn closelink" href="/admin/desk/story/?q=tehanu">Close</a>');
  });
});
