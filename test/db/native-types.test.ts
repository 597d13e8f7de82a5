/**
 * Migration 0004_native_types: a PostgreSQL database built by the earlier
 * framework migrations (booleans as integer 0/1, timestamps as ISO-8601
 * text) is converted in place to `boolean` and `timestamptz`, every row kept
 * with its values, and the framework keeps answering through HTTP (Basic
 * auth, tokens); `down()` gives the old types and the very same text back.
 * On SQLite the migration changes nothing.
 */
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { describe, expect, it } from 'vitest';
import { apiView, BasicAuthentication, createApp, IsAuthenticated, obtainAuthToken, path, TokenAuthentication, type ApiRequest, type Token } from '../../src/index.js';
import { migrate } from '../../src/db/migrate.js';
import { frameworkMigrations } from '../../src/db/migrations/index.js';
import { nativeTypesMigration } from '../../src/db/migrations/0004-native-types.js';
import type { Database } from '../../src/db/database.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { testDatabases } from '../helpers/databases.js';

const FAST_HASH = { ln: 4, r: 8, p: 1 };
const BEFORE_NATIVE = Object.fromEntries(frameworkMigrations.filter(([name]) => name < '0004').map(([name, m]) => [name, m])) as Record<string, Migration>;

/** The framework tables as the migrations before 0004 built them, bookkept as `migrate` does. */
async function buildOldSchema(database: Database): Promise<void> {
  const schema = database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => BEFORE_NATIVE },
    migrationTableName: 'trestle_migration',
    migrationLockTableName: 'trestle_migration_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

async function columnTypes(database: Database): Promise<Record<string, string>> {
  const db = database.db as unknown as Kysely<unknown>;
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ t: string; c: string; type: string }>`
      select table_name as t, column_name as c, data_type as type from information_schema.columns
      where table_schema = current_schema() and table_name in ('trestle_user', 'trestle_token', 'trestle_session')`.execute(db);
    return Object.fromEntries(rows.map((r) => [`${r.t}.${r.c}`, r.type]));
  }
  const out: Record<string, string> = {};
  for (const t of ['trestle_user', 'trestle_token', 'trestle_session']) {
    const { rows } = await sql<{ name: string; type: string }>`select name, type from pragma_table_info(${t})`.execute(db);
    for (const r of rows) out[`${t}.${r.name}`] = r.type.toLowerCase();
  }
  return out;
}

const BOOLEANS = ['trestle_user.is_active', 'trestle_user.is_staff', 'trestle_user.is_superuser'];
const TIMESTAMPS = ['trestle_user.date_joined', 'trestle_user.last_login', 'trestle_token.created', 'trestle_token.expires', 'trestle_token.last_used', 'trestle_session.expire_date'];

type Row = Record<string, unknown>;

async function rows(database: Database): Promise<Record<string, Row[]>> {
  const db = database.db as unknown as Kysely<Record<string, Row>>;
  return {
    trestle_user: await db.selectFrom('trestle_user').selectAll().orderBy('id').execute(),
    trestle_token: await db.selectFrom('trestle_token').selectAll().orderBy('id').execute(),
    trestle_session: await db.selectFrom('trestle_session').selectAll().orderBy('session_key').execute(),
  };
}

/** A row with booleans as true/false and timestamps as epoch milliseconds, whatever the storage. */
function normalised(table: string, row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    const name = `${table}.${k}`;
    if (BOOLEANS.includes(name)) out[k] = v === true || v === 1;
    else if (TIMESTAMPS.includes(name)) out[k] = v === null ? null : new Date(v as string | Date).getTime();
    else out[k] = v;
  }
  return out;
}

function whoAmI(req: ApiRequest) {
  return { username: req.user.username, staff: req.user.isStaff, key: (req.auth as Token | null)?.key ?? null };
}

async function appOn(database: Database) {
  const users = new KyselyUserStore(database.db, { hashParams: FAST_HASH });
  const app = await createApp({
    logger: false,
    settings: { SECRET_KEY: 'native-types-test-secret' },
    database,
    users,
    routes: [
      path('api-token-auth/', obtainAuthToken),
      path('me/', apiView(['GET'], whoAmI, { authenticationClasses: [TokenAuthentication, BasicAuthentication], permissionClasses: [IsAuthenticated] })),
    ],
  });
  await app.ready();
  return { app, users };
}

describe.each(testDatabases())('0004_native_types on $name', ({ name, open }) => {
  it('converts the framework tables in place: same rows, native types, and HTTP still answers; down() converts back', async () => {
    const database = await open();
    try {
      await buildOldSchema(database);
      const { app, users } = await appOn(database);
      try {
        const alice = await users.createUser({ username: 'alice', password: 'pw-alice-1', isStaff: true });
        await users.createUser({ username: 'bob', password: 'pw-bob-1', isActive: false });
        await users.update(alice.pk, { lastLogin: new Date('2024-05-01T10:11:12.345Z') });
        const obtained = await app.inject({ method: 'POST', url: '/api-token-auth/', headers: { host: 'localhost' }, payload: { username: 'alice', password: 'pw-alice-1' } });
        expect(obtained.statusCode).toBe(200);
        const key = (obtained.json() as { token: string }).token;
        await sql`insert into trestle_session (session_key, session_data, expire_date) values (${'a'.repeat(64)}, '{}', ${'2031-01-02T03:04:05.678Z'})`.execute(database.db);

        const oldTypes = await columnTypes(database);
        for (const c of BOOLEANS) expect(oldTypes[c]).toBe('integer');
        for (const c of TIMESTAMPS) expect(oldTypes[c]).toMatch(/^(character varying|varchar\(32\))$/);
        const before = await rows(database);
        expect(before.trestle_user).toHaveLength(2);
        expect(before.trestle_token).toHaveLength(1);

        const result = await migrate(database);
        expect(result.applied).toEqual([
          { set: 'framework', name: '0004_native_types' },
          { set: 'framework', name: '0005_admin_log' },
          { set: 'framework', name: '0006_permissions' },
        ]);

        const newTypes = await columnTypes(database);
        for (const c of BOOLEANS) expect(newTypes[c]).toBe(name === 'postgres' ? 'boolean' : 'integer');
        for (const c of TIMESTAMPS) expect(newTypes[c]).toBe(name === 'postgres' ? 'timestamp with time zone' : 'varchar(32)');
        const after = await rows(database);
        for (const table of Object.keys(before)) {
          expect(after[table]!.map((r) => normalised(table, r))).toEqual(before[table]!.map((r) => normalised(table, r)));
        }
        if (name === 'postgres') {
          expect(after.trestle_user!.map((u) => [u['username'], u['is_active'], u['is_staff'], u['is_superuser']])).toEqual([
            ['alice', true, true, false],
            ['bob', false, false, false],
          ]);
          expect(after.trestle_user![0]!['last_login']).toEqual(new Date('2024-05-01T10:11:12.345Z'));
        }

        // The stores read and write the converted columns: token and Basic authentication, a new user, its defaults.
        const byToken = await app.inject({ method: 'GET', url: '/me/', headers: { host: 'localhost', authorization: `Token ${key}` } });
        expect([byToken.statusCode, byToken.headers['content-type'], byToken.json()]).toEqual([200, 'application/json', { username: 'alice', staff: true, key }]);
        const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
        const inactive = await app.inject({ method: 'GET', url: '/me/', headers: { host: 'localhost', authorization: basic('bob', 'pw-bob-1') } });
        // As Django's ModelBackend: an inactive user's right password is no login.
        expect([inactive.statusCode, inactive.json()]).toEqual([401, { detail: 'Invalid username/password.' }]);
        const carol = await users.createUser({ username: 'carol', password: 'pw-carol-1' });
        expect([carol.isActive, carol.isStaff, carol.isSuperuser]).toEqual([true, false, false]);
        const ok = await app.inject({ method: 'GET', url: '/me/', headers: { host: 'localhost', authorization: basic('carol', 'pw-carol-1') } });
        expect([ok.statusCode, ok.json()]).toEqual([200, { username: 'carol', staff: false, key: null }]);
        await sql`insert into trestle_user (username, password, date_joined) values ('dave', '!', ${new Date().toISOString()})`.execute(database.db);
        const dave = await users.getByUsername('dave');
        expect([dave?.isActive, dave?.isStaff, dave?.isSuperuser]).toEqual([true, false, false]);

        if (name === 'postgres') {
          // down(): the old types, and exactly the text the old code wrote.
          await sql`delete from trestle_user where username in ('carol', 'dave')`.execute(database.db);
          await nativeTypesMigration.down!(database.db as unknown as Kysely<unknown>);
          expect(await columnTypes(database)).toEqual(oldTypes);
          const back = await rows(database);
          expect(back.trestle_user).toEqual(before.trestle_user);
          expect(back.trestle_session).toEqual(before.trestle_session);
          expect(back.trestle_token!.map((t) => ({ ...t, last_used: null }))).toEqual(before.trestle_token!.map((t) => ({ ...t, last_used: null })));
          expect(back.trestle_user![0]!['last_login']).toBe('2024-05-01T10:11:12.345Z');
        }
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });
});
