// The change list's custom actions (Django's `ModelAdmin.actions`): listed
// after "Delete selected …" for the users who hold their permissions, run on
// the checked rows in one transaction, their message shown after the
// redirect, no history row written; bad input comes back as a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, Conflict, adminRoutes, createApp, type ChangeListActionContext, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { adminGet, adminLogin } from './session.js';

const Writer = model('desk_writer', { name: field.char({ maxLength: 100 }) });
const Story = model('desk_story', {
  title: field.char({ maxLength: 200 }),
  writer: field.foreignKey(() => Writer, { onDelete: 'cascade' }),
  inPrint: field.boolean({ default: true, verboseName: 'in print' }),
});
const Memo = model('desk_memo', { text: field.char({ maxLength: 100 }) });

const PASSWORD = 'correct horse battery staple';
const FORM = 'application/x-www-form-urlencoded';
type Db = Kysely<Record<string, Record<string, unknown>>>;

describe.each(testDatabases())('change-list actions on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  let db: Db;
  let ids: number[];
  // What the last action's handler was given.
  let seen: Array<{ titles: string[]; writers: string[]; user: string }> = [];
  const jars = new Map<string, CookieJar>();

  const get = (jar: CookieJar, url: string) => adminGet(app, jar, url);

  async function post(jar: CookieJar, url: string, fields: Record<string, string | string[]>, token?: string) {
    const body = new URLSearchParams({ csrfmiddlewaretoken: token ?? inputValue((await get(jar, '/admin/')).body, 'csrfmiddlewaretoken') });
    for (const [k, v] of Object.entries(fields)) for (const one of typeof v === 'string' ? [v] : v) body.append(k, one);
    const res = await app.inject({ method: 'POST', url, headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() }, payload: body.toString() });
    jar.store(res.headers['set-cookie']);
    return res;
  }

  async function login(username: string): Promise<CookieJar> {
    const known = jars.get(username);
    if (known) return known;
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
    jars.set(username, jar);
    return jar;
  }

  async function grant(userId: number, ...codenames: string[]) {
    const perms = await db.selectFrom('auth_permission').select(['id', 'codename']).where('codename', 'in', codenames).execute();
    expect(perms.map((p) => p['codename']).sort()).toEqual([...codenames].sort());
    for (const p of perms) await db.insertInto('trestle_user_user_permissions').values({ user_id: userId, permission_id: p['id'] }).execute();
  }

  // SQLite stores a boolean as 0 or 1.
  const flag = (b: boolean) => (database.dialect === 'postgres' ? b : Number(b)) as never;
  const inPrint = async () =>
    (await db.selectFrom('desk_story').select(['id', 'inPrint']).orderBy('id').execute()).map((r) => [Number(r['id']), Boolean(r['inPrint'])]);
  const logCount = async () => Number((await db.selectFrom('trestle_admin_log').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow())['n']);

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': migration({ operations: [Writer, Story, Memo].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)) }) });
    const remember = ({ req, rows }: ChangeListActionContext<typeof Story.$inferSelect>) => {
      seen.push({ titles: rows.map((r) => r.title), writers: rows.map((r) => String((r as { writer?: { name: string } }).writer?.name)), user: String((req.user as { username?: string }).username) });
    };
    const site = new AdminSite()
      .register(Writer, { str: (w) => w.name })
      .register(Story, {
        listDisplay: ['title', 'writer', 'inPrint'],
        searchFields: ['title'],
        str: (s) => s.title,
        actions: [
          {
            name: 'mark_out_of_print',
            description: 'Mark selected stories as out of print',
            permissions: ['change'],
            handler: async (ctx) => {
              remember(ctx);
              await ctx.db.updateTable('desk_story').set({ inPrint: flag(false) }).where('id', 'in', ctx.rows.map((r) => r.id)).execute();
              return `${ctx.rows.length} ${ctx.rows.length === 1 ? 'story was' : 'stories were'} marked as out of print.`;
            },
          },
          { name: 'note', description: 'Note selected stories', handler: (ctx) => void remember(ctx) },
          {
            name: 'half_done',
            description: 'Reprint, then give up',
            permissions: ['change', 'delete'],
            handler: async ({ db: trx, rows }) => {
              await trx.updateTable('desk_story').set({ inPrint: flag(true) }).where('id', 'in', rows.map((r) => r.id)).execute();
              throw new Conflict('The printer is busy.');
            },
          },
        ],
      })
      .register(Memo, { actions: null, str: (m) => m.text });
    app = await createApp({ settings: { SECRET_KEY: 'test-secret-key-for-admin-actions-0123456789' }, routes: [adminRoutes({ site })], database, logger: false });
    const users = app.trestle.services.get('users');
    await users.createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    const reader = Number((await users.createUser({ username: 'reader', password: PASSWORD, isStaff: true })).pk);
    const editor = Number((await users.createUser({ username: 'editor', password: PASSWORD, isStaff: true })).pk);
    const writer = Number((await db.insertInto('desk_writer').values({ name: 'Ursula Le Guin' }).returning('id').executeTakeFirstOrThrow())['id']);
    ids = [];
    for (const title of ['The Dispossessed', 'The Lathe of Heaven', 'Always Coming Home']) {
      ids.push(Number((await db.insertInto('desk_story').values(Story.insertValues({ title, writer_id: writer }) as never).returning('id').executeTakeFirstOrThrow())['id']));
    }
    await db.insertInto('desk_memo').values({ text: 'Call the printer' }).execute();
    await get(await login('root'), '/admin/');
    await grant(reader, 'view_story');
    await grant(editor, 'view_story', 'change_story');
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('lists "Delete selected …" first, then the custom actions the user may run', async () => {
    const root = await get(await login('root'), '/admin/desk/story/');
    expect(root.statusCode).toBe(200);
    expect(root.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(root.body).toContain(
      '<select name="action" id="id_action"><option value="">---------</option><option value="delete_selected">Delete selected storys</option><option value="mark_out_of_print">Mark selected stories as out of print</option><option value="note">Note selected stories</option><option value="half_done">Reprint, then give up</option></select>',
    );
    expect(root.body).toContain(`<input type="checkbox" name="_selected_action" value="${ids[0]}" form="changelist-form" aria-label="Select The Dispossessed">`);
    // The editor may change but not delete: no delete, and not the action that needs both.
    const editor = await get(await login('editor'), '/admin/desk/story/');
    expect(editor.statusCode).toBe(200);
    expect(editor.body).toContain('<select name="action" id="id_action"><option value="">---------</option><option value="mark_out_of_print">Mark selected stories as out of print</option><option value="note">Note selected stories</option></select>');
    // The reader may only view: the action without permissions, and the rows' checkboxes for it.
    const reader = await get(await login('reader'), '/admin/desk/story/');
    expect(reader.statusCode).toBe(200);
    expect(reader.body).toContain('<select name="action" id="id_action"><option value="">---------</option><option value="note">Note selected stories</option></select>');
    expect(reader.body).toContain(`name="_selected_action" value="${ids[2]}"`);
  });

  it('runs an action on the checked rows, with its message after the redirect, and writes no history', async () => {
    const editor = await login('editor');
    const logs = await logCount();
    seen = [];
    const res = await post(editor, '/admin/desk/story/?q=the', { action: 'mark_out_of_print', _selected_action: [String(ids[1]), String(ids[0])], index: '0' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/desk/story/?q=the');
    expect(res.body).toBe('');
    expect(seen).toEqual([{ titles: ['The Dispossessed', 'The Lathe of Heaven'], writers: ['Ursula Le Guin', 'Ursula Le Guin'], user: 'editor' }]);
    expect(await inPrint()).toEqual([
      [ids[0], false],
      [ids[1], false],
      [ids[2], true],
    ]);
    expect(await logCount()).toBe(logs);
    const list = await get(editor, '/admin/desk/story/?q=the');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<div class="messages"><p class="info" role="status">2 stories were marked as out of print.</p></div>');
    // The message is shown once.
    expect((await get(editor, '/admin/desk/story/')).body).not.toContain('marked as out of print');
    await db.updateTable('desk_story').set({ inPrint: flag(true) }).execute();
  });

  it('an action without a message redirects without one; an action that throws rolls back', async () => {
    const reader = await login('reader');
    seen = [];
    const noted = await post(reader, '/admin/desk/story/', { action: 'note', _selected_action: String(ids[2]) });
    expect(noted.statusCode).toBe(302);
    expect(noted.headers['location']).toBe('/admin/desk/story/');
    expect(seen).toEqual([{ titles: ['Always Coming Home'], writers: ['Ursula Le Guin'], user: 'reader' }]);
    expect((await get(reader, '/admin/desk/story/')).body).not.toContain('<div class="messages">');

    const root = await login('root');
    await db.updateTable('desk_story').set({ inPrint: flag(false) }).execute();
    const failed = await post(root, '/admin/desk/story/', { action: 'half_done', _selected_action: ids.map(String) });
    expect(failed.statusCode).toBe(409);
    expect(failed.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(failed.body).toContain('The printer is busy.');
    expect(await inPrint()).toEqual(ids.map((id) => [id, false]));
    await db.updateTable('desk_story').set({ inPrint: flag(true) }).execute();
  });

  it('refuses an action the user may not run (403) and changes nothing', async () => {
    const reader = await login('reader');
    const before = await inPrint();
    for (const action of ['mark_out_of_print', 'delete_selected']) {
      const res = await post(reader, '/admin/desk/story/', { action, _selected_action: String(ids[0]), post: 'yes' });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('You do not have permission to perform this action.');
    }
    expect(await inPrint()).toEqual(before);
  });

  it('no checked rows, an unknown action or a forged token come back without a change', async () => {
    const editor = await login('editor');
    const before = await inPrint();
    const logs = await logCount();
    const inputs: Array<Record<string, string | string[]>> = [{ action: 'mark_out_of_print' }, { action: 'mark_out_of_print', _selected_action: ['x', '999999'] }, { action: 'no_such_action' }];
    for (const fields of inputs) {
      const res = await post(editor, '/admin/desk/story/', fields);
      expect(res.statusCode).toBe(302);
      expect(res.headers['location']).toBe('/admin/desk/story/');
      const list = await get(editor, '/admin/desk/story/');
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain('<p class="info" role="status">Items must be selected in order to perform actions on them. No items have been changed.</p>');
    }
    for (const action of ['no_such_action', '']) {
      const res = await post(editor, '/admin/desk/story/', { action, _selected_action: String(ids[0]) });
      expect(res.statusCode).toBe(302);
      expect(res.headers['location']).toBe('/admin/desk/story/');
      expect((await get(editor, '/admin/desk/story/')).body).toContain('<p class="info" role="status">No action selected.</p>');
    }
    const forged = await post(editor, '/admin/desk/story/', { action: 'mark_out_of_print', _selected_action: String(ids[0]) }, 'x'.repeat(64));
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(forged.body).toContain('CSRF');
    expect(await inPrint()).toEqual(before);
    expect(await logCount()).toBe(logs);
  });

  it('actions: null removes every action, "Delete selected …" too', async () => {
    const root = await login('root');
    const list = await get(root, '/admin/desk/memo/');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Call the printer');
    expect(list.body).not.toContain('id="changelist-form"');
    expect(list.body).not.toContain('_selected_action');
    const memo = Number((await db.selectFrom('desk_memo').select('id').executeTakeFirstOrThrow())['id']);
    const res = await post(root, '/admin/desk/memo/', { action: 'delete_selected', _selected_action: String(memo), post: 'yes' });
    expect(res.statusCode).toBe(302);
    expect((await get(root, '/admin/desk/memo/')).body).toContain('<p class="info" role="status">No action selected.</p>');
    expect(await db.selectFrom('desk_memo').select('id').execute()).toHaveLength(1);
  });
});

describe('change-list action options', () => {
  const handler = () => undefined;
  it('refuses a name given twice, the built-in name, a bad name or permission, and a missing description', () => {
    const register = (actions: unknown) => new AdminSite().register(Story, { actions: actions as never });
    expect(() => register([{ name: 'a', description: 'A', handler }, { name: 'a', description: 'B', handler }])).toThrow('Admin for desk_story: action "a" is given twice.');
    expect(() => register([{ name: 'delete_selected', description: 'Mine', handler }])).toThrow('the name is the built-in "Delete selected" action\'s.');
    expect(() => register([{ name: 'mark out', description: 'A', handler }])).toThrow('name must be letters, digits and _.');
    expect(() => register([{ name: 'a', description: 'A', permissions: ['publish'], handler }])).toThrow('permissions names "publish"');
    expect(() => register([{ name: 'a', description: ' ', handler }])).toThrow('action "a" needs a description.');
    expect(() => register([{ name: 'a', description: 'A' }])).toThrow('action "a" needs a handler function.');
    expect(register([]).adminFor('desk_story')!.availableActions(() => true).map((a) => a.name)).toEqual(['delete_selected']);
  });
});
