/**
 * On PostgreSQL the app's own executor sends several reads of one request
 * (a page and its count) in one round trip on a pipelined connection; each
 * keeps its own result and error, and a connection with pipelining turned
 * off runs them one after the other.
 */
import pg from 'pg';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../../src/db/database.js';
import { executeTogetherOn } from '../../src/db/direct.js';
import { freshPgUrl, type TestDatabaseUrl } from '../helpers/databases.js';
import { pgAvailable, requirePgInCi } from '../helpers/pg.js';

requirePgInCi();
if (!pgAvailable()) console.warn('PostgreSQL is not reachable: the pipelining tests are skipped.');

type Tables = { item: { id: number; name: string } };

interface Sent {
  text: string;
  client: unknown;
  /** Whether the client was waiting for nothing when the query was handed to it. */
  idle: boolean;
}

const opened: { database: Database; target: TestDatabaseUrl }[] = [];
let sent: Sent[] = [];
let warnings: Error[] = [];
const originalQuery = pg.Client.prototype.query;
const onWarning = (w: Error) => warnings.push(w);

beforeEach(() => {
  sent = [];
  warnings = [];
  process.on('warning', onWarning);
  // Records every query handed to a client, and whether that client had an answer outstanding.
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client & { readyForQuery?: boolean; _activeQuery?: unknown }, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    sent.push({ text, client: this, idle: this.readyForQuery === true && !this._activeQuery });
    return (originalQuery as (...a: unknown[]) => unknown).call(this, config, ...rest);
  };
});
afterEach(async () => {
  pg.Client.prototype.query = originalQuery;
  process.off('warning', onWarning);
  for (const { database, target } of opened.splice(0)) {
    await database.close();
    await target.cleanup();
  }
});

/** One connection, so every query meets the same client. */
async function open(options: OpenDatabaseOptions = {}): Promise<Kysely<Tables>> {
  const target = await freshPgUrl();
  const database = await openDatabase(target.url, { ...options, pgPool: { max: 1, ...options.pgPool } });
  opened.push({ database, target });
  const db = database.db as unknown as Kysely<Tables>;
  await sql`create table item (id integer primary key, name text not null)`.execute(db);
  await sql`insert into item values (1, 'one'), (2, 'two'), (3, 'three')`.execute(db);
  return db;
}

const COUNT = CompiledQuery.raw('select count(*)::int as n from item');
const PAGE = CompiledQuery.raw('select id, name from item order by id limit $1 offset $2', [2, 1]);

describe.runIf(pgAvailable())('reads sent together on PostgreSQL', () => {
  it('go out before the first is answered, on one connection, and come back in order', async () => {
    const db = await open();
    const together = executeTogetherOn(db.getExecutor())!;
    expect(together).toBeTypeOf('function');
    sent = [];
    const [count, page] = await together([COUNT, PAGE]);
    expect(count!.rows).toEqual([{ n: 3 }]);
    expect(page!.rows).toEqual([{ id: 2, name: 'two' }, { id: 3, name: 'three' }]);
    const mine = sent.filter((s) => s.text === COUNT.sql || s.text === PAGE.sql);
    expect(mine.map((s) => s.text)).toEqual([COUNT.sql, PAGE.sql]);
    expect(mine[1]!.client).toBe(mine[0]!.client);
    expect(mine[1]!.idle).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('keep each error to its own query: the first error rejects, the connection stays usable, nothing is queued behind a failure', async () => {
    const db = await open();
    const together = executeTogetherOn(db.getExecutor())!;
    const failing = CompiledQuery.raw('select 1 / (id - id) as boom from item');
    await expect(together([failing, PAGE])).rejects.toMatchObject({ code: '22012' });
    await expect(together([PAGE, failing])).rejects.toMatchObject({ code: '22012' });
    const [count] = await together([COUNT]);
    expect(count!.rows).toEqual([{ n: 3 }]);
    expect(await db.selectFrom('item').select('name').where('id', '=', 1).execute()).toEqual([{ name: 'one' }]);
    expect(warnings).toEqual([]);
  });

  it('run one after the other on the same connection when pipelining is turned off', async () => {
    const db = await open({ pgPool: { pipeline: false } });
    const together = executeTogetherOn(db.getExecutor())!;
    sent = [];
    const [count, page] = await together([COUNT, PAGE]);
    expect(count!.rows).toEqual([{ n: 3 }]);
    expect(page!.rows).toEqual([{ id: 2, name: 'two' }, { id: 3, name: 'three' }]);
    const mine = sent.filter((s) => s.text === COUNT.sql || s.text === PAGE.sql);
    expect(mine.map((s) => s.idle)).toEqual([true, true]);
    expect(warnings).toEqual([]);
  });

  it('plan prepared statements afresh when a migration changed the table under them', async () => {
    const db = await open({ pgPrepareThreshold: 0 });
    const together = executeTogetherOn(db.getExecutor())!;
    const all = CompiledQuery.raw('select * from item where id = $1', [1]);
    expect((await together([all, COUNT]))[0]!.rows).toEqual([{ id: 1, name: 'one' }]);
    await sql`alter table item add column note text default 'n'`.execute(db);
    const [row, count] = await together([all, COUNT]);
    expect(row!.rows).toEqual([{ id: 1, name: 'one', note: 'n' }]);
    expect(count!.rows).toEqual([{ n: 3 }]);
    expect(warnings).toEqual([]);
  });

  it('are not offered for an executor with plug-ins', async () => {
    const db = await open();
    expect(executeTogetherOn(db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => a.result }).getExecutor())).toBeNull();
  });
});
