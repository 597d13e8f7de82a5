// trestle import-django carries Django's permissions and groups over to the
// admin's tables (auth_permission, auth_group and the users' pairs), matched
// by model table + codename and by group name, only for users it imported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';
import { importDjango, openDjangoSource } from '../../src/users/django-import.js';
import { testDatabases } from '../helpers/databases.js';

// Django 5's DDL on SQLite for the tables involved.
const DDL = [
  `CREATE TABLE "auth_user" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "password" varchar(128) NOT NULL, "last_login" datetime NULL, "is_superuser" bool NOT NULL, "username" varchar(150) NOT NULL UNIQUE, "last_name" varchar(150) NOT NULL, "email" varchar(254) NOT NULL, "is_staff" bool NOT NULL, "is_active" bool NOT NULL, "date_joined" datetime NOT NULL, "first_name" varchar(150) NOT NULL)`,
  `CREATE TABLE "django_content_type" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "app_label" varchar(100) NOT NULL, "model" varchar(100) NOT NULL)`,
  `CREATE TABLE "auth_permission" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "content_type_id" integer NOT NULL REFERENCES "django_content_type" ("id") DEFERRABLE INITIALLY DEFERRED, "codename" varchar(100) NOT NULL, "name" varchar(255) NOT NULL)`,
  `CREATE TABLE "auth_group" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(150) NOT NULL UNIQUE)`,
  `CREATE TABLE "auth_group_permissions" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "group_id" integer NOT NULL REFERENCES "auth_group" ("id") DEFERRABLE INITIALLY DEFERRED, "permission_id" integer NOT NULL REFERENCES "auth_permission" ("id") DEFERRABLE INITIALLY DEFERRED)`,
  `CREATE TABLE "auth_user_groups" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "user_id" integer NOT NULL REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED, "group_id" integer NOT NULL REFERENCES "auth_group" ("id") DEFERRABLE INITIALLY DEFERRED)`,
  `CREATE TABLE "auth_user_user_permissions" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "user_id" integer NOT NULL REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED, "permission_id" integer NOT NULL REFERENCES "auth_permission" ("id") DEFERRABLE INITIALLY DEFERRED)`,
];

describe.each(testDatabases())('import-django: permissions and groups into $name', ({ open }) => {
  let dir: string;
  let url: string;
  let database: Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-django-perms-'));
    url = `sqlite:${join(dir, 'django.sqlite3')}`;
    const db = new BetterSqlite3(join(dir, 'django.sqlite3'));
    db.pragma('foreign_keys = OFF'); // a stale pair below points at no user, as a Django database may hold
    for (const statement of DDL) db.exec(statement);
    const user = db.prepare(`INSERT INTO auth_user (id, password, is_superuser, username, last_name, email, is_staff, is_active, date_joined, first_name) VALUES (?, '!', 0, ?, '', '', 1, 1, '2020-01-02 03:04:05', '')`);
    user.run(3, 'clerk');
    user.run(7, 'editor');
    db.exec(`INSERT INTO django_content_type (id, app_label, model) VALUES (1, 'catalogue', 'book'), (2, 'auth', 'user'), (3, 'catalogue', 'author')`);
    db.exec(`INSERT INTO auth_permission (id, content_type_id, codename, name) VALUES
      (10, 1, 'view_book', 'Can view book'), (11, 1, 'change_book', 'Can change book'),
      (12, 2, 'view_user', 'Can view user'), (13, 3, 'add_author', 'Can add author')`);
    db.exec(`INSERT INTO auth_group (id, name) VALUES (5, 'editors'), (6, 'readers')`);
    db.exec(`INSERT INTO auth_group_permissions (group_id, permission_id) VALUES (5, 10), (5, 11), (6, 10)`);
    // User 99 is not imported (no such user): its pairs are left out.
    db.exec(`INSERT INTO auth_user_groups (user_id, group_id) VALUES (7, 5), (3, 6), (99, 5)`);
    db.exec(`INSERT INTO auth_user_user_permissions (user_id, permission_id) VALUES (3, 13), (3, 12)`);
    db.close();
    database = await open();
    await migrate(database, {});
    // One permission exists already, as the admin creates them for registered models.
    await database.db.insertInto('auth_permission' as never).values({ name: 'Can view book', content_type: 'catalogue_book', codename: 'view_book' } as never).execute();
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (dryRun = false) => {
    const source = await openDjangoSource(url);
    try {
      return await importDjango(source, { db: database.db, dialect: database.dialect, tokens: null }, { tokenTable: null, dryRun });
    } finally {
      await source.close();
    }
  };
  const rows = async () => {
    const db = database.db as never as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    const perms = await db.selectFrom('auth_permission').select(['content_type', 'codename', 'name']).orderBy('content_type').orderBy('codename').execute();
    const groups = await db
      .selectFrom('auth_group_permissions as gp')
      .innerJoin('auth_group as g', 'g.id', 'gp.group_id')
      .innerJoin('auth_permission as p', 'p.id', 'gp.permission_id')
      .select(['g.name as group', 'p.codename as codename'])
      .orderBy('g.name')
      .orderBy('p.codename')
      .execute();
    const members = await db.selectFrom('trestle_user_groups as ug').innerJoin('auth_group as g', 'g.id', 'ug.group_id').select(['ug.user_id as user', 'g.name as group']).orderBy('ug.user_id').execute();
    const own = await db
      .selectFrom('trestle_user_user_permissions as up')
      .innerJoin('auth_permission as p', 'p.id', 'up.permission_id')
      .select(['up.user_id as user', 'p.content_type as table', 'p.codename as codename'])
      .orderBy('p.codename')
      .execute();
    return { perms, groups, members: members.map((m) => ({ user: Number(m['user']), group: m['group'] })), own: own.map((o) => ({ ...o, user: Number(o['user']) })) };
  };

  it('a dry run counts and writes nothing', async () => {
    const summary = await run(true);
    expect(summary.permissions).toEqual({
      permissions: { total: 4, imported: 3, skipped: 1 },
      groups: { total: 2, imported: 2, skipped: 0 },
      groupPermissions: 0,
      memberships: 0,
      userPermissions: 0,
    });
    expect((await rows()).perms).toHaveLength(1);
  });

  it('imports permissions by table and codename, groups by name, and the pairs of imported users', async () => {
    const summary = await run();
    expect(summary.users).toMatchObject({ imported: 2 });
    expect(summary.permissions).toEqual({
      permissions: { total: 4, imported: 3, skipped: 1 },
      groups: { total: 2, imported: 2, skipped: 0 },
      groupPermissions: 3,
      memberships: 2,
      userPermissions: 2,
    });
    expect(await rows()).toEqual({
      perms: [
        { content_type: 'catalogue_author', codename: 'add_author', name: 'Can add author' },
        { content_type: 'catalogue_book', codename: 'change_book', name: 'Can change book' },
        { content_type: 'catalogue_book', codename: 'view_book', name: 'Can view book' },
        { content_type: 'trestle_user', codename: 'view_user', name: 'Can view user' },
      ],
      groups: [
        { group: 'editors', codename: 'change_book' },
        { group: 'editors', codename: 'view_book' },
        { group: 'readers', codename: 'view_book' },
      ],
      members: [
        { user: 3, group: 'readers' },
        { user: 7, group: 'editors' },
      ],
      own: [
        { user: 3, table: 'catalogue_author', codename: 'add_author' },
        { user: 3, table: 'trestle_user', codename: 'view_user' },
      ],
    });
  });

  it('a second run finds everything and writes no pair twice', async () => {
    const before = await rows();
    const summary = await run();
    expect(summary.permissions).toEqual({
      permissions: { total: 4, imported: 0, skipped: 4 },
      groups: { total: 2, imported: 0, skipped: 2 },
      groupPermissions: 0,
      memberships: 0,
      userPermissions: 0,
    });
    expect(await rows()).toEqual(before);
  });
});
