import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CamelCasePlugin, sql, type Generated, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('openDatabase on SQLite', () => {
  it('creates the directory on first use and turns on WAL, foreign keys and a busy timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-open-'));
    dirs.push(dir);
    const file = join(dir, 'nested', 'deeper', 'app.sqlite3');
    const database = await openDatabase(`sqlite:${file}`);
    try {
      expect(existsSync(file)).toBe(true);
      expect(database.dialect).toBe('sqlite');
      const pragma = async (name: string) =>
        Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(database.db)).rows[0]!)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBeGreaterThan(0);
    } finally {
      await database.close();
      await database.close(); // twice is fine
    }
  });

  it('?busy_timeout= in the URL sets how long a write waits for the lock; the option overrides it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-open-'));
    dirs.push(dir);
    const file = join(dir, 'app.sqlite3');
    const busy = async (database: Database) =>
      Object.values((await sql.raw<Record<string, unknown>>('pragma busy_timeout').execute(database.db)).rows[0]!)[0];
    const fromUrl = await openDatabase(`sqlite:${file}?busy_timeout=1234`);
    try {
      expect(await busy(fromUrl)).toBe(1234);
      expect(existsSync(file)).toBe(true);
    } finally {
      await fromUrl.close();
    }
    const fromOption = await openDatabase(`sqlite:${file}?busy_timeout=1234`, { sqliteBusyTimeoutMs: 50 });
    try {
      expect(await busy(fromOption)).toBe(50);
    } finally {
      await fromOption.close();
    }
    await expect(openDatabase(`sqlite:${file}?busy_timeout=soon`)).rejects.toThrow(
      'busy_timeout in the database URL must be a whole number of milliseconds, not "soon".',
    );
  });

  it('opens an in-memory database', async () => {
    const database = await openDatabase('sqlite::memory:');
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
    expect(rows[0]!.one).toBe(1);
    await database.close();
  });

  it('uses DATABASE_URL when no URL is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-open-'));
    dirs.push(dir);
    const previous = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = `sqlite:${join(dir, 'env.sqlite3')}`;
    try {
      const database = await openDatabase();
      expect(database.url).toBe(process.env['DATABASE_URL']);
      await database.close();
      expect(existsSync(join(dir, 'env.sqlite3'))).toBe(true);
    } finally {
      if (previous === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previous;
    }
  });
});

describe('SQLite parameters', () => {
  it('are compiled as +?: indexes still apply, values compare as with a bare ?, and LIMIT/OFFSET take them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-param-'));
    dirs.push(dir);
    const file = join(dir, 'p.sqlite3');
    const database = await openDatabase(`sqlite:${file}`);
    const reference = new BetterSqlite3(file, { readonly: true });
    try {
      const db = database.db;
      await sql`create table p (id integer primary key, code text not null, n integer not null)`.execute(db);
      await sql`create unique index p_code on p (code)`.execute(db);
      for (let i = 1; i <= 200; i++) await sql`insert into p (code, n) values (${`c${i}`}, ${i})`.execute(db);
      // Statistics with STAT4 samples: the state in which a bare ? made SQLite re-plan on every run.
      await sql`analyze`.execute(db);
      const byCode = (code: unknown) => db.selectFrom('p' as never).select(['id' as never]).where('code' as never, '=', code as never);
      expect(byCode('c7').compile().sql).toBe('select "id" from "p" where "code" = +?');
      const plan = await sql.raw<{ detail: string }>(`explain query plan select id from p where code = +'c7'`).execute(db);
      expect(plan.rows.map((r) => r.detail).join(' ')).toMatch(/USING (COVERING )?INDEX p_code/);
      expect((await byCode('c7').execute()) as unknown).toEqual([{ id: 7 }]);
      // Every comparison answers as with a bare ? (affinity included): numbers against text, strings against integers.
      await sql`insert into p (code, n) values ('42', 4200)`.execute(db);
      for (const [column, value] of [['code', 42], ['code', '42'], ['n', '12'], ['n', 12], ['n', '12.0'], ['code', 'c9']] as const) {
        const bare = reference.prepare(`select id from p where ${column} = ? order by id`).all(value);
        const plus = await db.selectFrom('p' as never).select(['id' as never]).where(column as never, '=', value as never).orderBy('id' as never).execute();
        expect({ column, value, rows: plus }).toEqual({ column, value, rows: bare });
      }
      const page = db.selectFrom('p' as never).select(['id' as never]).orderBy('id' as never).limit(3).offset(10);
      expect(page.compile().sql).toBe('select "id" from "p" order by "id" limit +? offset +?');
      expect((await page.execute()) as unknown).toEqual([{ id: 11 }, { id: 12 }, { id: 13 }]);
    } finally {
      reference.close();
      await database.close();
    }
  });
});

describe('SQLite reads outside Kysely\'s driver', () => {
  it('wait for an open transaction, keep plug-ins working, and fail as rejected promises', async () => {
    const database = await openDatabase('sqlite::memory:');
    try {
      const db = database.db as unknown as Kysely<{ thing: { thing_id: Generated<number>; thing_name: string } }>;
      await sql`create table thing (thing_id integer primary key, thing_name text not null)`.execute(db);
      await db.insertInto('thing').values({ thing_name: 'first' }).execute();
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const writer = db.transaction().execute(async (trx) => {
        await trx.insertInto('thing').values({ thing_name: 'uncommitted' }).execute();
        order.push('inserted');
        await held;
        order.push('committing');
      });
      while (order.length === 0) await new Promise((r) => setTimeout(r, 1));
      // The transaction holds the one connection: this read waits for it instead of seeing its row early.
      const reader = db.selectFrom('thing').select('thing_name').orderBy('thing_id').execute().then((rows) => {
        order.push(`read ${rows.length}`);
        return rows;
      });
      await new Promise((r) => setTimeout(r, 20));
      release();
      await writer;
      expect(await reader).toEqual([{ thing_name: 'first' }, { thing_name: 'uncommitted' }]);
      expect(order).toEqual(['inserted', 'committing', 'read 2']);
      // An executor with a plug-in goes Kysely's way: its results are transformed.
      const camel = db.withPlugin(new CamelCasePlugin()) as unknown as Kysely<{ thing: { thingId: number; thingName: string } }>;
      expect(await camel.selectFrom('thing').select(['thingId', 'thingName']).orderBy('thingId').limit(1).execute()).toEqual([{ thingId: 1, thingName: 'first' }]);
      await expect(sql`select * from missing_table`.execute(db)).rejects.toThrow(/no such table: missing_table/);
    } finally {
      await database.close();
    }
  });
});

describe('closing a SQLite database', () => {
  it('closes the connection even when every query read it directly', async () => {
    const database = await openDatabase('sqlite::memory:');
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    await Promise.all([database.close(), database.close()]);
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(/not open|destroyed/);
  });
});

describe('openDatabase errors', () => {
  it('names the URL, password redacted, when PostgreSQL does not answer', async () => {
    const attempt = openDatabase('postgres://bob:hunter2@127.0.0.1:1/db');
    await expect(attempt).rejects.toThrow('Cannot connect to database postgres://bob:***@127.0.0.1:1/db: ECONNREFUSED');
    await expect(attempt).rejects.not.toThrow(/hunter2/);
  });

  it('refuses an unknown scheme', async () => {
    await expect(openDatabase('mongodb://u:pw@h/db')).rejects.toThrow(/mongodb:\/\/u:\*\*\*@h\/db/);
  });

  it('reports a SQLite path that cannot be opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-open-'));
    dirs.push(dir);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const url = `sqlite:${file}/sub/db.sqlite3`;
    await expect(openDatabase(url)).rejects.toThrow(`Cannot connect to database ${url}: `);
  });
});

describe.each(testDatabases())('test databases on $name', ({ name, open }) => {
  it('gives each open() its own empty database', async () => {
    const a: Database = await open();
    const b: Database = await open();
    try {
      expect(a.dialect).toBe(name);
      await a.db.schema.createTable('only_in_a').addColumn('id', 'integer').execute();
      await sql`insert into only_in_a (id) values (1)`.execute(a.db);
      // Unqualified names resolve inside each database's own schema / file.
      await expect(sql`select id from only_in_a`.execute(b.db)).rejects.toThrow();
      await b.db.schema.createTable('only_in_a').addColumn('id', 'integer').execute();
      expect((await sql`select id from only_in_a`.execute(b.db)).rows).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
