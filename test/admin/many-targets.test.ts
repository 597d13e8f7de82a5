// A change form's selects list the first thousand targets of a relation; a
// value past them is still shown chosen, and saving the form keeps it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import type { CookieJar } from '../browsable/cookies.js';
import { Label, PASSWORD, Story, Writer } from './desk.js';
import { adminGet, adminLogin, adminPost } from './session.js';

// An inline of the writer's form whose label column has the thousand and more labels to choose from.
const Credit = model('desk_credit', {
  writer: field.foreignKey(() => Writer, { onDelete: 'cascade' }),
  label: field.foreignKey(() => Label, { onDelete: 'cascade' }),
  role: field.char({ maxLength: 50 }),
});

type Db = Kysely<Record<string, Record<string, unknown>>>;

describe.each(testDatabases())('relation selects past a thousand targets on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let root: CookieJar;
  let storyId: number;

  const get = (jar: CookieJar, url: string) => adminGet(app, jar, url);

  const post = (jar: CookieJar, url: string, fields: Record<string, string | string[]>) => adminPost(app, jar, url, fields);

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': migration({ operations: [Writer, Label, Story, Credit].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)) }) });
    const site = new AdminSite()
      .register(Writer, { str: (w) => w.name, inlines: [{ model: Credit, extra: 0 }] })
      .register(Label, { str: (l) => l.name })
      .register(Story, { listDisplay: ['title', 'writer'], listFilter: ['writer', 'labels'], str: (s) => s.title });
    app = await createApp({ settings: { SECRET_KEY: 'test-secret-key-for-many-targets-admin-0123456789' }, routes: [adminRoutes({ site })], database, logger: false });
    await app.trestle.services.get('users').createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    const many = (prefix: string) => Array.from({ length: 1005 }, (_, i) => ({ name: `${prefix} ${i + 1}` }));
    for (let i = 0; i < 1005; i += 335) {
      await db.insertInto('desk_writer').values(many('Writer').slice(i, i + 335)).execute();
      await db.insertInto('desk_label').values(many('Label').slice(i, i + 335)).execute();
    }
    storyId = Number((await db.insertInto('desk_story').values(Story.insertValues({ title: 'Late', writer_id: 1003 }) as never).returning('id').executeTakeFirstOrThrow())['id']);
    await db.insertInto('desk_story_labels').values([{ story_id: storyId, label_id: 2 }, { story_id: storyId, label_id: 1004 }]).execute();
    await db.insertInto('desk_credit').values({ writer_id: 1003, label_id: 1004, role: 'translator' }).execute();
    root = await adminLogin(app, 'root', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('the chosen writer and label past the first thousand are options, chosen, and a save keeps them', async () => {
    const form = await get(root, `/admin/desk/story/${storyId}/change/`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<option value="1000">Writer 1000</option><option value="1003" selected>Writer 1003</option></select>');
    expect(form.body).not.toContain('<option value="1001">');
    expect(form.body).toContain('<option value="1000">Label 1000</option><option value="1004" selected>Label 1004</option></select>');
    expect(form.body).toContain('<option value="2" selected>Label 2</option>');

    const saved = await post(root, `/admin/desk/story/${storyId}/change/`, { title: 'Later', writer: '1003', labels: ['2', '1004'], inPrint: 'on', _save: '' });
    expect(saved.statusCode).toBe(302);
    expect(saved.headers['location']).toBe('/admin/desk/story/');
    expect(await db.selectFrom('desk_story').select(['title', 'writer_id']).where('id', '=', storyId).executeTakeFirstOrThrow()).toEqual({ title: 'Later', writer_id: 1003 });
    expect((await db.selectFrom('desk_story_labels').select('label_id').where('story_id', '=', storyId).orderBy('label_id').execute()).map((r) => Number(r['label_id']))).toEqual([2, 1004]);
  });
  it('a list filtered by a writer and a label past the first hundred lists them in its sidebar, marked', async () => {
    const list = await get(root, '/admin/desk/story/?writer__id__exact=1003&labels__id__exact=1004');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<li><a href="/admin/desk/story/?writer__id__exact=100&amp;labels__id__exact=1004">Writer 100</a></li><li class="selected"><a href="/admin/desk/story/?writer__id__exact=1003&amp;labels__id__exact=1004" aria-current="true">Writer 1003</a></li>');
    expect(list.body).toContain('<li class="selected"><a href="/admin/desk/story/?writer__id__exact=1003&amp;labels__id__exact=1004" aria-current="true">Label 1004</a></li>');
    expect(list.body).not.toContain('>Writer 101<');
    expect(list.body).toContain('<p class="paginator muted" id="paginator">1 story</p>');
    // Without a filter, the first hundred only.
    const plain = await get(root, '/admin/desk/story/');
    expect(plain.body).toContain('>Writer 100</a></li></ul>');
    expect(plain.body).not.toContain('>Writer 1003</a></li>');
  });

  it("an inline's label past the first thousand is an option, chosen, and kept when the form comes back or is saved", async () => {
    const form = await get(root, '/admin/desk/writer/1003/change/');
    expect(form.statusCode).toBe(200);
    const select = /<select name="credit_set-0-label"[^>]*>(.*?)<\/select>/s.exec(form.body)?.[1] ?? '';
    expect(select).toContain('<option value="1000">Label 1000</option><option value="1004" selected>Label 1004</option>');
    expect(select).not.toContain('<option value="1001">');
    const credit = Number((await db.selectFrom('desk_credit').select('id').executeTakeFirstOrThrow())['id']);
    const inline = { 'credit_set-TOTAL_FORMS': '1', 'credit_set-INITIAL_FORMS': '1', 'credit_set-MIN_NUM_FORMS': '0', 'credit_set-MAX_NUM_FORMS': '1000', 'credit_set-0-id': String(credit), 'credit_set-0-writer': '1003', 'credit_set-0-label': '1004', 'credit_set-0-role': 'editor' };
    // A refused form comes back with the label still chosen.
    const refused = await post(root, '/admin/desk/writer/1003/change/', { name: '', ...inline, _continue: '' });
    expect(refused.statusCode).toBe(200);
    expect(/<select name="credit_set-0-label"[^>]*>(.*?)<\/select>/s.exec(refused.body)?.[1]).toContain('<option value="1004" selected>Label 1004</option>');
    const saved = await post(root, '/admin/desk/writer/1003/change/', { name: 'Writer 1003', ...inline, _continue: '' });
    expect(saved.statusCode).toBe(302);
    expect(saved.headers['location']).toBe('/admin/desk/writer/1003/change/');
    expect(await db.selectFrom('desk_credit').select(['label_id', 'role']).where('id', '=', credit).executeTakeFirstOrThrow()).toEqual({ label_id: 1004, role: 'editor' });
    expect((await get(root, '/admin/desk/writer/1003/change/')).body).toMatch(/<select name="credit_set-0-label"[^>]*>.*<option value="1004" selected>Label 1004<\/option>/s);
  });
});
