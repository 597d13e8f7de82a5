/**
 * SQLite reads with an explicit column list are read as arrays and made into
 * objects by a function compiled per statement (src/db/database.ts,
 * `RowReaders`). Each answer must be what better-sqlite3 itself gives for the
 * same SQL, on the same file: names, order, repeated names, values of every
 * type; `*` reads and writes keep their way; a schema changed by another
 * connection never puts a value under the wrong name. A `select` is read
 * through a wrapper that hands each row's values to an SQL function
 * (`wrappedRead`): its rows must come in the statement's own order, for
 * every shape of query that orders, limits, groups or joins.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, rowMaker, wrappedRead, type Database } from '../../src/db/database.js';
import { readFirstNow, readNow } from '../../src/db/direct.js';

let dir: string;
let database: Database;
let other: BetterSqlite3.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-rows-'));
  const file = join(dir, 'db.sqlite3');
  database = await openDatabase(`sqlite://${file}`);
  other = new BetterSqlite3(file);
  other.exec(`create table t (id integer primary key, a text, b real, c blob, d integer);
    insert into t values (1, 'one', 1.5, x'0102', 9007199254740993), (2, null, null, null, null), (3, 'th"ree', -0.25, x'', 42);`);
});
afterEach(async () => {
  other.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = async (sql: string, parameters: unknown[] = []) =>
  (await (database.db as unknown as Kysely<never>).executeQuery(CompiledQuery.raw(sql, parameters))).rows;
const direct = (sql: string, parameters: unknown[] = []) => other.prepare(sql).all(...parameters);

describe('SQLite rows read as arrays', () => {
  it('answer what better-sqlite3 answers: every type, null, no row, repeated and numeric names, key order', async () => {
    const queries: [string, unknown[]][] = [
      ['select "id", "a", "b", "c", "d" from "t" order by "id"', []],
      ['select "d", "c", "b", "a", "id" from "t" where "id" = +?', [1]],
      ['select "id", "a" from "t" where "id" = +?', [99]],
      ['select "id", "a" as "x", "b" as "x", "d" as "1", "c" as "0" from "t" order by "id" desc', []],
      ['select "a" || \'!\' as "shout", length("c") as "n", "id" + 0.5 from "t" order by 1', []],
      ['select 1 as "constructor", 2 as "toString", 3 as "hasOwnProperty", \'\' as "", 4 as "a b"', []],
    ];
    for (const [sql, parameters] of queries) {
      const rows = await run(sql, parameters);
      const expected = direct(sql, parameters);
      expect(rows).toEqual(expected);
      expect(rows.map((r) => Object.keys(r as object))).toEqual(expected.map((r) => Object.keys(r as object)));
      for (const row of rows) expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    }
    const [first] = (await run('select "c", "d" from "t" where "id" = 1')) as { c: Buffer; d: number }[];
    expect(Buffer.isBuffer(first!.c)).toBe(true);
    expect([...first!.c]).toEqual([1, 2]);
    expect(first!.d).toBe(9007199254740992); // a number, as better-sqlite3 answers without safeIntegers
  });

  it('keep better-sqlite3\'s way for a `__proto__` column, `*` and `RETURNING *`, and write once', async () => {
    const proto = (await run('select "a" as "__proto__", "id" from "t" where "id" = 1')) as object[];
    expect(proto).toEqual(direct('select "a" as "__proto__", "id" from "t" where "id" = 1'));
    expect(Object.getPrototypeOf(proto[0])).toBe(Object.prototype);
    expect(await run('select * from "t" order by "id"')).toEqual(direct('select * from "t" order by "id"'));
    expect(await run('insert into "t" ("a") values (+?) returning "id", "a"', ['four'])).toEqual([{ id: 4, a: 'four' }]);
    expect(await run('insert into "t" ("a") values (+?) returning *', ['five'])).toEqual([{ id: 5, a: 'five', b: null, c: null, d: null }]);
    expect(direct('select count(*) as "n" from "t"')).toEqual([{ n: 5 }]);
    const updated = await (database.db as unknown as Kysely<never>).executeQuery(CompiledQuery.raw('update "t" set "a" = +? where "id" > +?', ['x', 3]));
    expect(updated.numAffectedRows).toBe(2n);
    expect(rowMaker(['a', '__proto__'])).toBeNull();
  });

  it('never label a value with another column\'s name after another connection changes the table', async () => {
    const sql = 'select "id", "a", "d" from "t" where "id" = +?';
    const star = 'select * from "t" where "id" = +?';
    expect(await run(sql, [1])).toEqual([{ id: 1, a: 'one', d: 9007199254740992 }]);
    expect(await run(star, [1])).toEqual([{ id: 1, a: 'one', b: 1.5, c: Buffer.from([1, 2]), d: 9007199254740992 }]);
    other.exec('alter table t drop column b; alter table t add column e text default \'new\'');
    expect(await run(sql, [1])).toEqual([{ id: 1, a: 'one', d: 9007199254740992 }]);
    expect(await run(star, [1])).toEqual([{ id: 1, a: 'one', c: Buffer.from([1, 2]), d: 9007199254740992, e: 'new' }]);
    other.exec('alter table t rename column a to z');
    await expect(run(sql, [1])).rejects.toThrow(/no such column: "?a/);
    expect(await run(star, [1])).toEqual([{ id: 1, z: 'one', c: Buffer.from([1, 2]), d: 9007199254740992, e: 'new' }]);
  });

  it('bind each count of parameters as better-sqlite3 binds them as an array, a Buffer and a bigint included', async () => {
    const executor = database.db.getExecutor();
    for (let n = 0; n <= 8; n++) {
      // `id` in (…) with n parameters: 1, 2, 3 … and the rows they name.
      const marks = Array.from({ length: n }, () => '+?').join(', ');
      const sql = `select "id", "a" from "t" where "id" in (${marks || 'null'}) order by "id"`;
      const parameters = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? i + 1 : BigInt(i + 1)));
      expect(readNow(executor, { sql, parameters })).toEqual(direct(sql, [parameters]));
      expect(readFirstNow(executor, { sql, parameters })).toEqual(direct(sql, [parameters])[0] ?? null);
    }
    const blob = 'select "id" from "t" where "c" = +? and "id" > +?';
    expect(readNow(executor, { sql: blob, parameters: [Buffer.from([1, 2]), 0] })).toEqual([{ id: 1 }]);
    // A plain object is no value to bind: refused as better-sqlite3 refuses it in an array, not read as named parameters.
    expect(() => readNow(executor, { sql: blob, parameters: [{ c: 1 }, 0] })).toThrow(/can only bind/);
    expect(() => readFirstNow(executor, { sql: blob, parameters: [{ c: 1 }, 0] })).toThrow(/can only bind/);
  });

  it('read the first row alone: null when there is none, undefined inside a transaction (Kysely\'s way then)', async () => {
    const executor = database.db.getExecutor();
    const sql = 'select "id", "a" from "t" where "id" >= +? order by "id"';
    expect(readFirstNow(executor, { sql, parameters: [2] })).toEqual({ id: 2, a: null });
    expect(readFirstNow(executor, { sql, parameters: [9] })).toBeNull();
    expect(readFirstNow(executor, { sql: 'select * from "t" where "id" = +?', parameters: [3] })).toEqual(direct('select * from "t" where "id" = 3')[0]);
    // The statement is left ready: the same read again, and all of it, give the same rows.
    expect(readFirstNow(executor, { sql, parameters: [2] })).toEqual({ id: 2, a: null });
    expect(readNow(executor, { sql, parameters: [2] })).toEqual(direct(sql, [2]));
    await database.db.transaction().execute(async (trx) => {
      expect(readFirstNow(trx.getExecutor(), { sql, parameters: [2] })).toBeUndefined();
      expect(readFirstNow(executor, { sql, parameters: [2] })).toBeUndefined();
    });
  });
});

describe('SQLite reads handed over row by row (wrappedRead)', () => {
  // Rows whose order each query decides: sorted by a column without an index (SQLite's sorter), by an index, by several keys.
  const shapes: [string, unknown[]][] = [
    ['select "id", "k", "v" from "w" order by "k" desc, "id"', []],
    ['select "id", "k", "v" from "w" order by "v", "id" desc limit +? offset +?', [20, 40]],
    ['select "id", "k" from "w" where "k" >= +? order by "k", "id" limit +?', [7, 25]],
    ['select "id", "v" from "w" indexed by "w_k" where "k" = +? order by "k", "id" desc', [3]],
    ['select distinct "k", "v" % 3 as "m" from "w" order by "m" desc, "k"', []],
    ['select "k", count(*) as "n", sum("v") as "s" from "w" group by "k" order by "n", "k" desc', []],
    ['select "id", \'a\' as "src" from "w" where "id" < 20 union all select "id" + 1000, \'b\' from "w" where "id" > 180 order by "id" desc', []],
    ['select "w"."id", "x"."id" as "other" from "w" inner join "w" as "x" on "x"."k" = "w"."k" and "x"."id" < "w"."id" where "w"."id" < 40 order by "w"."v", "x"."id"', []],
    ['select "id", row_number() over (order by "v" desc, "id") as "rank" from "w" order by "rank" desc limit 30', []],
    ['with "top" as (select "id", "v" from "w" order by "v" desc limit 50) select "id", "v" from "top" order by "id"', []],
    ['select "id", (select count(*) from "w" as "y" where "y"."v" < "w"."v") as "below" from "w" order by "below", "id" limit 60', []],
    ['select "id", "k" from "w" where "id" in (+?, +?, +?)', [5, 150, 77]],
    ['select "id", "k" from "w" where "id" = +?', [12]],
    ['select "id", "k" from "w" where "id" = +?', [999]],
  ];

  beforeEach(() => {
    // 200 rows in an order unrelated to any sort key: 37 is prime to 200.
    other.exec('create table w (id integer primary key, k integer, v real); create index w_k on w (k);');
    const insert = other.prepare('insert into w values (?, ?, ?)');
    for (let i = 0; i < 200; i++) insert.run(((i * 37) % 200) + 1, (i * 7) % 11, ((i * 53) % 97) / 4);
  });

  it('answer each ordered, limited, grouped, compound and joined read in the statement\'s own order, first row included', () => {
    const executor = database.db.getExecutor();
    for (const [sql, parameters] of shapes) {
      const expected = direct(sql, parameters);
      expect(readNow(executor, { sql, parameters }), sql).toEqual(expected);
      expect(readFirstNow(executor, { sql, parameters }), sql).toEqual(expected[0] ?? null);
      // The same twice: the wrapped statement is left ready, and the rows of one read never leak into the next.
      expect(readNow(executor, { sql, parameters }), sql).toEqual(expected);
    }
  });

  it('wrap what SQLite reads through the function in the same order, and leave other SQL as it is', () => {
    // The wrapper's SQL run on a plain better-sqlite3 connection with a function of the same name.
    let handed: unknown[][] = [];
    other.function('trestle_read_row', { varargs: true, directOnly: true }, (...values: unknown[]) => {
      handed.push(values);
      return null;
    });
    for (const [sql, parameters] of shapes) {
      const columns = other.prepare(sql).columns().length;
      const expected = other.prepare(sql).raw(true).all(...parameters);
      for (const first of [false, true]) {
        const wrapped = wrappedRead(sql, columns, first);
        expect(wrapped, sql).not.toBeNull();
        handed = [];
        expect(other.prepare(wrapped!).pluck().get(...parameters)).toBeNull();
        expect(handed, `${first ? 'first of ' : ''}${sql}`).toEqual(first ? expected.slice(0, 1) : expected);
      }
    }
    // Left to the array reader: not a select, a second statement or a comment that could swallow the wrapper, its own names, too many columns,
    // a `returning` list that is not names alone.
    expect(wrappedRead('insert into "w" ("k") values (1) returning "id"', 1, false)).toBe('insert into "w" ("k") values (1) returning trestle_read_row("id")');
    expect(wrappedRead('pragma table_info("w")', 6, false)).toBeNull();
    expect(wrappedRead('select "id" from "w"; select 1', 1, false)).toBeNull();
    expect(wrappedRead('select "id" from "w" -- the ids', 1, false)).toBeNull();
    expect(wrappedRead('select "id" from "trestle_read_rows"', 1, false)).toBeNull();
    expect(wrappedRead('select "id" from "w"', 101, false)).toBeNull();
    expect(wrappedRead('update "w" set "k" = 1 returning "id" as "x"', 1, false)).toBeNull();
    expect(wrappedRead('update "w" set "k" = 1 returning "id" + 1', 1, false)).toBeNull();
    expect(wrappedRead('update "w" set "k" = 1 returning "id", "k"', 1, false)).toBeNull();
    expect(wrappedRead('insert into "w" ("k") values (\' returning "k"\') returning "w"."id", "v"', 2, true)).toBe(
      'insert into "w" ("k") values (\' returning "k"\') returning trestle_read_row("w"."id", "v")',
    );
    expect(wrappedRead('  WITH "a" as (select 1 as "x") SELECT "x" from "a"', 1, true)).toMatch(/^with "trestle_read_rows"\("c0"\) as \(  WITH/);
  });

  it('hand over every row an insert, update or delete returns, in SQLite\'s order, changing each row once', async () => {
    const executor = database.db.getExecutor();
    const count = () => (other.prepare('select count(*) from "w"').pluck().get() as number);
    const sum = () => other.prepare('select sum("k") from "w"').pluck().get() as number;
    // The same statements on a copy of the table through better-sqlite3 give the rows to expect.
    other.exec('create table w2 as select * from w');
    const pairs: [string, unknown[]][] = [
      ['insert into "%" ("id", "k", "v") values (+?, +?, +?), (+?, +?, +?) returning "id", "k", "v"', [501, 1, 0.5, 502, 2, null]],
      ['update "%" set "k" = "k" + 100 where "k" = +? returning "id", "k"', [3]],
      ['insert into "%" ("id", "k") select +?, +? where exists (select 1 from "%" where "id" = +?) returning "id", "k"', [503, 9, 12345]],
      ['delete from "%" where "v" > +? returning "id", "v"', [20]],
    ];
    for (const [template, parameters] of pairs) {
      const before = count();
      const sumBefore = sum();
      const expected = other.prepare(template.replaceAll('%', 'w2')).all(...parameters);
      const sql = template.replaceAll('%', 'w');
      const rows = readNow(executor, { sql, parameters });
      expect(rows, sql).toEqual(expected);
      expect(count() - before, sql).toBe(sql.startsWith('delete') ? -expected.length : sql.startsWith('insert') ? expected.length : 0);
      if (sql.startsWith('update')) expect(sum() - sumBefore).toBe(100 * expected.length);
    }
    expect(other.prepare('select * from "w" order by "id"').all()).toEqual(other.prepare('select * from "w2" order by "id"').all());
  });

  it('read a row of 100 columns through the wrapper and one of 101 as arrays, both as better-sqlite3 answers', async () => {
    for (const n of [100, 101]) {
      const sql = `select ${Array.from({ length: n }, (_, i) => `"id" + ${i} as "c${i}"`).join(', ')} from "w" where "id" <= +? order by "id"`;
      expect(await run(sql, [3])).toEqual(direct(sql, [3]));
    }
  });
});
