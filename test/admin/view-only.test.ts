// A staff user granted only Django's view permission of a model (Django 2.1+):
// the change list without the add link, checkboxes or action, a read-only
// change page with a Close link, and every write answered 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, migration } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import type { CookieJar } from '../browsable/cookies.js';
import { Label, PASSWORD, Story, Writer } from './desk.js';
import { adminGet, adminLogin, adminPost } from './session.js';


type Db = Kysely<Record<string, Record<string, unknown>>>;

/** The page's main content, without the navigation (whose log-out form has a button). */
const main = (body: string) => body.slice(body.indexOf('<h1>'));

describe.each(testDatabases())('view-only admin pages on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let storyId: number;
  let writerId: number;

  const login = (username: string): Promise<CookieJar> => adminLogin(app, username, PASSWORD);

  const get = (jar: CookieJar, url: string) => adminGet(app, jar, url);

  const post = (jar: CookieJar, url: string, fields: Record<string, string | string[]>) => adminPost(app, jar, url, fields);

  /** Gives `username` the permissions `codenames` of the desk models, as a superuser would in the admin. */
  async function grant(userId: number, ...codenames: string[]) {
    const perms = await db.selectFrom('auth_permission').select(['id', 'codename']).where('codename', 'in', codenames).execute();
    expect(perms.map((p) => p['codename']).sort()).toEqual([...codenames].sort());
    for (const p of perms) await db.insertInto('trestle_user_user_permissions').values({ user_id: userId, permission_id: p['id'] }).execute();
  }

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': migration({ operations: [Writer, Label, Story].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)) }) });
    const site = new AdminSite()
      .register(Writer, { listDisplay: ['name'], str: (w) => w.name })
      .register(Label, { str: (l) => l.name })
      .register(Story, { listDisplay: ['title', 'writer', 'year', 'inPrint'], listFilter: ['writer'], searchFields: ['title'], str: (s) => s.title });
    app = await createApp({ settings: { SECRET_KEY: 'test-secret-key-for-view-only-admin-0123456789' }, routes: [adminRoutes({ site })], database, logger: false });
    const users = app.trestle.services.get('users');
    await users.createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    const reader = Number((await users.createUser({ username: 'reader', password: PASSWORD, isStaff: true })).pk);
    const pruner = Number((await users.createUser({ username: 'pruner', password: PASSWORD, isStaff: true })).pk);
    writerId = Number((await db.insertInto('desk_writer').values({ name: 'Ursula Le Guin' }).returning('id').executeTakeFirstOrThrow())['id']);
    const labels = [];
    for (const name of ['classic', 'sf']) labels.push(Number((await db.insertInto('desk_label').values({ name }).returning('id').executeTakeFirstOrThrow())['id']));
    storyId = Number(
      (await db.insertInto('desk_story').values(Story.insertValues({ title: 'The Dispossessed', writer_id: writerId, year: 1974, published: '1974-05-01', inPrint: (database.dialect === 'postgres' ? false : 0) as boolean, notes: 'Anarres <and> Urras' }) as never).returning('id').executeTakeFirstOrThrow())['id'],
    );
    for (const l of labels) await db.insertInto('desk_story_labels').values({ story_id: storyId, label_id: l }).execute();
    // The first admin page inserts the models' permission rows.
    await get(await login('root'), '/admin/');
    await grant(reader, 'view_story', 'view_writer');
    await grant(pruner, 'view_story', 'delete_story');
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('the index and the change list offer viewing only: no add link, no checkboxes, no delete action', async () => {
    const reader = await login('reader');
    const index = await get(reader, '/admin/');
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('<tr class="model-story"><th scope="row" data-label="Model"><a href="/admin/desk/story/">Storys</a></th><td data-label="Actions"><a href="/admin/desk/story/" class="changelink">View</a></td></tr>');
    expect(index.body).not.toContain('href="/admin/desk/label/"');

    const list = await get(reader, '/admin/desk/story/');
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.body).toContain('<h1>Select story to view</h1>');
    expect(list.body).toContain(`<tr data-pk="${storyId}"><th scope="row" data-label="Title"><a href="/admin/desk/story/${storyId}/change/">The Dispossessed</a></th><td data-label="Writer">Ursula Le Guin</td><td data-label="Year">1974</td><td data-label="In print">No</td></tr>`);
    expect(list.body).not.toContain('id="add-link"');
    expect(list.body).not.toContain('id="changelist-form"');
    expect(list.body).not.toContain('_selected_action');
    expect(list.body).not.toContain('<th scope="col">Select</th>');
    // Searching and filtering are reading: they stay.
    expect(list.body).toContain('id="changelist-search"');
    const found = await get(reader, `/admin/desk/story/?q=dispossessed&writer__id__exact=${writerId}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain('<span class="muted" id="result-count">1 result (<a href="/admin/desk/story/">1 total</a>)</span>');
  });

  it('the change page shows the values as text, with a Close link and neither inputs nor Save buttons', async () => {
    const reader = await login('reader');
    const page = await get(reader, `/admin/desk/story/${storyId}/change/`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>View story – Trestle administration</title>');
    const body = main(page.body);
    expect(body).toContain('<h1>View story</h1>');
    for (const tag of ['<form', '<input', '<select', '<textarea', '<button']) expect(body).not.toContain(tag);
    expect(body).not.toContain('name="_save"');
    expect(body).toContain('<div class="field readonly" id="field-title"><span class="label">Title</span> <div class="readonly-value">The Dispossessed</div></div>');
    // The writer links to its own page: the reader may view writers.
    expect(body).toContain(`<div class="field readonly" id="field-writer"><span class="label">Writer</span> <div class="readonly-value"><a href="/admin/desk/writer/${writerId}/change/">Ursula Le Guin</a></div></div>`);
    expect(body).toContain('<div class="field readonly" id="field-published"><span class="label">Published</span> <div class="readonly-value">1974-05-01</div></div>');
    expect(body).toContain('<div class="field readonly" id="field-inPrint"><span class="label">In print</span> <div class="readonly-value">No</div></div>');
    expect(body).toContain('<div class="readonly-value">Anarres &lt;and&gt; Urras</div>');
    expect(body).toContain('<div class="field readonly" id="field-labels"><span class="label">Labels</span> <div class="readonly-value">classic, sf</div></div>');
    expect(body).toContain('<a class="btn closelink" href="/admin/desk/story/">Close</a>');
    expect(body).not.toContain('btn-danger');
    expect(body).toContain(`<a class="btn" href="/admin/desk/story/${storyId}/history/">History</a>`);
    expect((await get(reader, `/admin/desk/story/${storyId}/history/`)).statusCode).toBe(200);

    // With the delete permission too, the read-only page links to the delete page, and the list has its action.
    const pruner = await login('pruner');
    const pruned = main((await get(pruner, `/admin/desk/story/${storyId}/change/`)).body);
    expect(pruned).toContain('<h1>View story</h1>');
    expect(pruned).not.toContain('<input');
    // Without a permission on writers, the writer is text.
    expect(pruned).toContain('<div class="field readonly" id="field-writer"><span class="label">Writer</span> <div class="readonly-value">Ursula Le Guin</div></div>');
    expect(pruned).toContain(`<a class="btn closelink" href="/admin/desk/story/">Close</a>\n<a class="btn btn-danger" href="/admin/desk/story/${storyId}/delete/">Delete</a>`);
    const list = await get(pruner, '/admin/desk/story/');
    expect(list.body).toContain('id="changelist-form"');
    expect(list.body).not.toContain('id="add-link"');
  });

  it('adding, changing and deleting answer 403 and write nothing', async () => {
    const reader = await login('reader');
    const before = await db.selectFrom('desk_story').selectAll().orderBy('id').execute();
    const refusals = [
      await get(reader, '/admin/desk/story/add/'),
      await get(reader, `/admin/desk/story/${storyId}/delete/`),
      await post(reader, '/admin/desk/story/add/', { title: 'Planet of Exile', writer: String(writerId), year: '1966', _save: '' }),
      await post(reader, `/admin/desk/story/${storyId}/change/`, { title: 'Changed', writer: String(writerId), year: '1974', _save: '' }),
      await post(reader, `/admin/desk/story/${storyId}/delete/`, { post: 'yes' }),
      await post(reader, '/admin/desk/story/', { action: 'delete_selected', _selected_action: String(storyId), post: 'yes' }),
      await get(reader, `/admin/desk/writer/${writerId}/delete/`),
    ];
    for (const res of refusals) {
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('You do not have permission to perform this action.');
    }
    expect(await db.selectFrom('desk_story').selectAll().orderBy('id').execute()).toEqual(before);
    expect(await db.selectFrom('desk_story_labels').select(['story_id', 'label_id']).orderBy('label_id').execute()).toHaveLength(2);
    expect(await db.selectFrom('trestle_admin_log').selectAll().execute()).toEqual([]);
  });
});
