/**
 * PostgreSQL statements are prepared per connection once they have run
 * `prepare_threshold` times (psycopg 3's scheme), at most `pgPreparedMax`
 * of them, and a table changed under one is planned afresh.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { freshPgUrl, type TestDatabaseUrl } from '../helpers/databases.js';
import { pgAvailable, requirePgInCi } from '../helpers/pg.js';

requirePgInCi();
if (!pgAvailable()) console.warn('PostgreSQL is not reachable: the prepared-statement tests are skipped.');

type Tables = { item: { id: number; name: string } };

const opened: { database: Database; target: TestDatabaseUrl }[] = [];
afterEach(async () => {
  for (const { database, target } of opened.splice(0)) {
    await database.close();
    await target.cleanup();
  }
});

/** One connection, so every query meets the same prepared statements. */
async function open(options: Parameters<typeof openDatabase>[1] = {}, urlSuffix = ''): Promise<Kysely<Tables>> {
  const target = await freshPgUrl();
  const database = await openDatabase(target.url + urlSuffix, { pgPool: { max: 1 }, ...options });
  opened.push({ database, target });
  const db = database.db as unknown as Kysely<Tables>;
  await sql`create table item (id integer primary key, name text not null)`.execute(db);
  await sql`insert into item values (1, 'one'), (2, 'two'), (3, 'three')`.execute(db);
  return db;
}

async function prepared(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements order by prepare_time`.execute(db);
  return rows.map((r) => r.statement);
}

const byId = (db: Kysely<Tables>, id: number) => db.selectFrom('item').select(['id', 'name']).where('id', '=', id);

describe.runIf(pgAvailable())('prepared statements on PostgreSQL', () => {
  it('prepare a statement after it has run prepare_threshold times, with the same answers', async () => {
    const db = await open({ pgPrepareThreshold: 2 });
    const text = byId(db, 1).compile().sql;
    expect(await byId(db, 1).execute()).toEqual([{ id: 1, name: 'one' }]);
    expect(await byId(db, 2).execute()).toEqual([{ id: 2, name: 'two' }]);
    expect(await prepared(db)).not.toContain(text);
    expect(await byId(db, 3).execute()).toEqual([{ id: 3, name: 'three' }]);
    expect(await prepared(db)).toContain(text);
    expect(await byId(db, 2).execute()).toEqual([{ id: 2, name: 'two' }]);
    const updated = await db.updateTable('item').set({ name: 'uno' }).where('id', '=', 1).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(1n);
  });

  it('keep at most pgPreparedMax per connection, the least recently used deallocated', async () => {
    // Every statement counts, the set-up's two included: create, insert, then a, b, a, c; listing them is one more.
    const db = await open({ pgPrepareThreshold: 0, pgPreparedMax: 3 });
    const a = db.selectFrom('item').select('id').where('id', '=', 1);
    const b = db.selectFrom('item').select('name').where('id', '=', 1);
    const c = db.selectFrom('item').select(['id', 'name']).where('name', '=', 'one');
    await a.execute();
    await b.execute();
    await a.execute(); // a is now the most recently used
    await c.execute();
    const now = await prepared(db); // evicts b, the least recently used
    expect(now).toHaveLength(3);
    expect(now).toContain(a.compile().sql);
    expect(now).toContain(c.compile().sql);
    expect(now).not.toContain(b.compile().sql);
    expect(await b.execute()).toEqual([{ name: 'one' }]);
  });

  it('never prepare with prepare_threshold=none in the URL; prepare at once with 0', async () => {
    const none = await open({}, '&prepare_threshold=none');
    for (let i = 0; i < 8; i++) await byId(none, 1).execute();
    expect(await prepared(none)).toEqual([]);
    const eager = await open({}, '&prepare_threshold=0');
    await byId(eager, 1).execute();
    expect(await prepared(eager)).toContain(byId(eager, 1).compile().sql);
    const target = await freshPgUrl();
    await expect(openDatabase(`${target.url}&prepare_threshold=often`)).rejects.toThrow(/prepare_threshold .* whole number or none, not "often"/);
    await target.cleanup();
  });

  it('plan a statement afresh when a migration changed its table', async () => {
    const db = await open({ pgPrepareThreshold: 0 });
    const all = () => db.selectFrom('item').selectAll().where('id', '=', 1);
    expect(await all().execute()).toEqual([{ id: 1, name: 'one' }]);
    await sql`alter table item add column note text default 'n'`.execute(db);
    expect(await all().execute()).toEqual([{ id: 1, name: 'one', note: 'n' }]);
    expect(await all().execute()).toEqual([{ id: 1, name: 'one', note: 'n' }]);
  });

  it('close() ends the pool even when no query went through Kysely\'s driver', async () => {
    const target = await freshPgUrl();
    const database = await openDatabase(target.url, { pgPool: { max: 1 } });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
      await Promise.all([database.close(), database.close()]);
      await expect(sql`select 1`.execute(database.db)).rejects.toThrow(/end on the pool/);
    } finally {
      await target.cleanup();
    }
  });
});
