/**
 * SQLite reads with an explicit column list are read as arrays and made into
 * objects by a function compiled per statement (src/db/database.ts,
 * `RowReaders`). Each answer must be what better-sqlite3 itself gives for the
 * same SQL, on the same file: names, order, repeated names, values of every
 * type; `*` reads and writes keep their way; a schema changed by another
 * connection never puts a value under the wrong name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, rowMaker, type Database } from '../../src/db/database.js';
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
