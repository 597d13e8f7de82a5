/**
 * No row lost or repeated by pagination, on SQLite and PostgreSQL: orderings
 * end in the primary key, NULLs sort in one place, and cursors carry values
 * exactly as the database stores them (timestamps with microseconds).
 */
import { CompiledQuery, sql, type Kysely, type KyselyPlugin } from 'kysely';
import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorPagination, LimitOffsetPagination, OrderingFilter, PageNumberPagination, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { cursorKey, signCursor } from '../../src/pagination/cursor-signing.js';
import { testDatabases } from '../helpers/databases.js';
import { BASE, get, listView, serve, walk } from './helpers.js';

interface TaskTable {
  id: number;
  title: string;
  year: number;
  due_date: string | null;
  created: string | null;
  local: string | null;
  price: string | null;
}
type DB = { task: TaskTable; big: { id: number; created: string | null } };

const ids = (body: Record<string, unknown> | null) => (body!['results'] as { id: number }[]).map((r) => r.id);

describe.each(testDatabases())('exact paging on $name', ({ name, open }) => {
  let database: Database;
  let db: Kysely<DB>;
  const apps: TrestleApp[] = [];
  const pg = name === 'postgres';

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('task')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('year', 'integer', (c) => c.notNull())
      .addColumn('due_date', pg ? 'date' : 'text')
      .addColumn('created', pg ? sql`timestamptz` : 'text')
      .addColumn('local', pg ? 'timestamp' : 'text')
      .addColumn('price', pg ? 'numeric(10, 4)' : 'numeric')
      .execute();
    await db.schema.createIndex('task_created_id').on('task').columns(['created', 'id']).execute();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await database.close();
  });

  async function app(view: Parameters<typeof serve>[0], more: Parameters<typeof serve>[2] = []) {
    const s = await serve(view, { SECRET_KEY: 'exact', PAGE_SIZE: 3 }, more);
    apps.push(s.app);
    return s.app;
  }

  async function fill(rows: Partial<TaskTable>[]) {
    await db.deleteFrom('task').execute();
    if (rows.length === 0) return;
    await db
      .insertInto('task')
      .values(rows.map((r, i) => ({ id: i + 1, title: `Task ${i + 1}`, year: 2000, due_date: null, created: null, local: null, price: null, ...r })))
      .execute();
  }
  const tasks = () => db.selectFrom('task').selectAll();

  describe('page-number and limit/offset under OrderingFilter', () => {
    class Pages extends PageNumberPagination {
      override pageSize = 7;
    }
    class Slices extends LimitOffsetPagination {
      override defaultLimit = 7;
    }
    const options = { filterBackends: [OrderingFilter], orderingFields: ['year', 'due_date', 'title', 'id'], ordering: 'year' };

    it('ties are broken by the primary key, ascending, so walks see every row once in one order', async () => {
      // 300 rows in 4 years: PostgreSQL's top-N sort does not keep ties in any order by itself.
      await fill(Array.from({ length: 300 }, (_, i) => ({ year: 2000 + ((i * 7) % 4) })));
      const all = await tasks().execute();
      const a = await app(listView(tasks, Pages, options), [['lo/', listView(tasks, Slices, options)]]);
      for (const [ordering, sign] of [['year', 1], ['-year', -1]] as const) {
        const expected = [...all].sort((x, y) => sign * (x.year - y.year) || x.id - y.id).map((r) => r.id);
        for (const start of [`/items/?ordering=${ordering}`, `/lo/?ordering=${ordering}`]) {
          const { forward, backward } = await walk(a, start);
          expect(forward).toEqual(expected);
          expect(backward).toEqual(expected);
        }
      }
      const res = await get(a, '/items/?ordering=-year&page=2');
      expect(res).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' }, body: { count: 300, next: `${BASE}/items/?ordering=-year&page=3`, previous: `${BASE}/items/?ordering=-year` } });
    });

    it('NULLs sort last ascending and first descending, on every database', async () => {
      await fill([{ due_date: '2024-03-01' }, {}, { due_date: '2024-01-01' }, {}, { due_date: '2024-03-01' }, { due_date: '2024-02-01' }]);
      const a = await app(listView(tasks, Pages, options));
      const up = await get(a, '/items/?ordering=due_date');
      expect(up).toMatchObject({ status: 200, body: { count: 6, next: null, previous: null } });
      expect(ids(up.body)).toEqual([3, 6, 1, 5, 2, 4]);
      expect(ids((await get(a, '/items/?ordering=-due_date')).body)).toEqual([2, 4, 1, 5, 6, 3]);
    });

    it("primaryKey names the tie-breaker (through orderingFields); null keeps the ordering as given", async () => {
      const items = [
        { id: 1, code: 'c', v: 1 },
        { id: 2, code: 'a', v: 1 },
        { id: 3, code: 'b', v: 0 },
        { id: 4, code: 'd', v: 1 },
      ];
      const byCode = { filterBackends: [OrderingFilter], orderingFields: { v: 'v', key: 'code' }, ordering: 'v', primaryKey: 'key' };
      const a = await app(listView(() => [...items].reverse(), Pages, byCode), [['asis/', listView(() => [...items].reverse(), Pages, { ...byCode, primaryKey: null })]]);
      expect(ids((await get(a, '/items/')).body)).toEqual([3, 2, 1, 4]);
      expect(ids((await get(a, '/asis/')).body)).toEqual([3, 4, 2, 1]);
    });
  });

  describe('cursor pages', () => {
    const dates = ['2024-05-01', null, '2024-01-01', '2024-03-01', null, '2024-03-01', '2024-02-01', null, '2024-04-01', '2024-01-01'];

    it("a nullable date column (ordering ['due_date', 'id'], page size 3): every row once, forward and back", async () => {
      await fill(dates.map((due_date) => ({ due_date })));
      class ByDue extends CursorPagination {
        override ordering = ['due_date', 'id'];
      }
      class ByDueDesc extends CursorPagination {
        override ordering = ['-due_date', '-id'];
      }
      const a = await app(listView(tasks, ByDue), [['desc/', listView(tasks, ByDueDesc)]]);
      const up = await walk(a, '/items/');
      expect(up.forward).toEqual([3, 10, 7, 4, 6, 9, 1, 2, 5, 8]);
      expect(up.backward).toEqual(up.forward);
      const down = await walk(a, '/desc/');
      expect(down.forward).toEqual([8, 5, 2, 1, 9, 6, 4, 7, 10, 3]);
      expect(down.backward).toEqual(down.forward);
    });

    it('?ordering=due_date from the OrderingFilter: the same, with the pk appended', async () => {
      await fill(dates.map((due_date) => ({ due_date })));
      const a = await app(listView(tasks, CursorPagination, { filterBackends: [OrderingFilter], orderingFields: ['due_date'], ordering: ['-id'] }));
      const up = await walk(a, '/items/?ordering=due_date');
      expect(up.forward).toEqual([3, 10, 7, 4, 6, 9, 1, 2, 5, 8]);
      expect(up.backward).toEqual(up.forward);
      const down = await walk(a, '/items/?ordering=-due_date');
      expect(down.forward).toEqual([8, 5, 2, 1, 9, 6, 4, 7, 10, 3]);
      expect(down.backward).toEqual(down.forward);
    });

    it.each([
      ['timestamptz', 'created'],
      ['timestamp', 'local'],
    ] as const)('%s with microseconds: pages neither stop early nor repeat', async (_type, column) => {
      const at = (n: number) => (pg && column === 'created' ? `2024-01-01 00:00:00.123${n}+00` : `2024-01-01 00:00:00.123${n}`);
      await fill([1, 2, 3, 4, 5].map((n) => ({ [column]: at(n) })));
      class Newest extends CursorPagination {
        override ordering = [`-${column}`, '-id'];
        override pageSize = 2;
      }
      class Oldest extends CursorPagination {
        override ordering = [column, 'id'];
        override pageSize = 2;
      }
      const a = await app(listView(tasks, Newest), [['asc/', listView(tasks, Oldest)]]);
      const p1 = await get(a, '/items/');
      expect(p1).toMatchObject({ status: 200, body: { previous: null } });
      expect(ids(p1.body)).toEqual([5, 4]);
      const p2 = await get(a, String(p1.body!['next']).replace(BASE, ''));
      expect(ids(p2.body)).toEqual([3, 2]);
      const down = await walk(a, '/items/');
      expect(down.forward).toEqual([5, 4, 3, 2, 1]);
      expect(down.backward).toEqual(down.forward);
      const up = await walk(a, '/asc/');
      expect(up.forward).toEqual([1, 2, 3, 4, 5]);
      expect(up.backward).toEqual(up.forward);
      // The rows themselves are unchanged: no extra column leaks into the page.
      expect(Object.keys((p1.body!['results'] as object[])[0]!).sort()).toEqual(['created', 'due_date', 'id', 'local', 'price', 'title', 'year']);
    });

    it('numeric and text columns with ties and NULLs page exactly', async () => {
      const prices = ['1.5000', null, '1.5000', '0.0001', '10.0000', null, '2.2500', '1.5000'];
      await fill(prices.map((price, i) => ({ price, title: `t${i % 3}` })));
      class ByPrice extends CursorPagination {
        override ordering = ['-price', '-id'];
        override pageSize = 2;
      }
      class ByTitle extends CursorPagination {
        override ordering = 'title';
        override pageSize = 2;
      }
      const a = await app(listView(tasks, ByPrice), [['title/', listView(tasks, ByTitle)]]);
      const byPrice = await walk(a, '/items/');
      expect(byPrice.forward).toEqual([6, 2, 5, 7, 8, 3, 1, 4]);
      expect(byPrice.backward).toEqual(byPrice.forward);
      const byTitle = await walk(a, '/title/');
      expect(byTitle.forward).toEqual([1, 4, 7, 2, 5, 8, 3, 6]);
      expect(byTitle.backward).toEqual(byTitle.forward);
    });

    it('a cursor signed before positions were exact (an older format) is 404 Invalid cursor', async () => {
      await fill([1, 2, 3, 4, 5].map((n) => ({ created: `2024-01-01 00:00:0${n}` })));
      class Newest extends CursorPagination {
        override ordering = ['-created', '-id'];
        override pageSize = 2;
      }
      const a = await app(listView(tasks, Newest));
      const payload = { p: ['2024-01-01 00:00:04', 4] };
      const old = signCursor(cursorKey(a.trestle), '/items/|-created,-id', { p: [{ d: '2024-01-01T00:00:04.000Z' }, 4] });
      const res = await get(a, `/items/?cursor=${old}`);
      expect(res).toMatchObject({ status: 404, headers: { 'content-type': 'application/json' }, body: { detail: 'Invalid cursor' } });
      const current = signCursor(cursorKey(a.trestle), '2|/items/|-created:nf,-id', payload);
      expect(ids((await get(a, `/items/?cursor=${current}`)).body)).toEqual([3, 2]);
    });
  });

  describe.runIf(pg)('text copies of the position columns on PostgreSQL', () => {
    /** The SQL of each cursor page read while `run` runs (node-postgres' `query`, the texts that select from `task`). */
    async function pagesRead(run: () => Promise<void>): Promise<string[]> {
      const seen: string[] = [];
      const real = pgDriver.Client.prototype.query;
      pgDriver.Client.prototype.query = function recording(this: pgDriver.Client, config: unknown, ...rest: unknown[]) {
        const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
        if (typeof text === 'string' && /from "task".* order by /.test(text)) seen.push(text);
        return (real as (...args: unknown[]) => unknown).call(this, config, ...rest);
      } as typeof real;
      try {
        await run();
      } finally {
        pgDriver.Client.prototype.query = real;
      }
      return seen;
    }

    it('a text, numeric or varchar ordering drops them once its rows have shown they are that text; a timestamptz keeps them', async () => {
      const prices = ['1.5000', null, '1.5000', '0.0001', '10.0000', null, '2.2500', '1.5000'];
      await fill(prices.map((price, i) => ({ price, title: `t${i % 3}`, created: `2024-01-01 00:00:00.12345${i}+00` })));
      class ByTitle extends CursorPagination {
        override ordering = ['title', 'id'];
        override pageSize = 2;
      }
      class ByPrice extends CursorPagination {
        override ordering = ['-price', '-id'];
        override pageSize = 2;
      }
      class ByCreated extends CursorPagination {
        override ordering = ['-created', '-id'];
        override pageSize = 2;
      }
      // A listing of this test's own (what a listing has shown is kept per SQL text and database).
      const listing = () => db.selectFrom('task').selectAll().where('year', '=', 2000);
      const a = await app(listView(listing, ByTitle), [['price/', listView(listing, ByPrice)], ['created/', listView(listing, ByCreated)]]);
      const cases = [
        ['/items/', [1, 4, 7, 2, 5, 8, 3, 6], '"title"::text'],
        ['/price/', [6, 2, 5, 7, 8, 3, 1, 4], '"price"::text'],
      ] as const;
      for (const [start, expected, copy] of cases) {
        let walked: Awaited<ReturnType<typeof walk>> | null = null;
        const texts = await pagesRead(async () => {
          walked = await walk(a, start);
        });
        expect(walked!.forward).toEqual(expected);
        expect(walked!.backward).toEqual(expected);
        // The first page forwards and the first backwards read the copy (each ordering learns on its own); no page after them does.
        // Each direction (the walk back reads the reversed ordering, learnt on its own) reads the copy on its first page only.
        const orderOf = (t: string) => t.slice(t.indexOf(' order by '));
        const withCopy = texts.map((t, i) => [t, i] as const).filter(([t]) => t.includes(copy));
        expect(withCopy.length).toBeGreaterThanOrEqual(1);
        for (const [t, i] of withCopy) expect(texts.slice(0, i).some((u) => orderOf(u) === orderOf(t))).toBe(false);
        expect(texts.length - withCopy.length).toBeGreaterThanOrEqual(5);
        expect(texts.filter((t) => t.includes('::text'))).toEqual(withCopy.map(([t]) => t));
        // Cursors are the same either way: the second page's `next` is what the text would have made.
        const p2 = await get(a, String((await get(a, start)).body!['next']).replace(BASE, ''));
        expect(p2).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
        expect(ids(p2.body)).toEqual(expected.slice(2, 4));
      }
      // A timestamptz reaches JavaScript as a Date, with milliseconds only: every page reads the exact text.
      let down: Awaited<ReturnType<typeof walk>> | null = null;
      const texts = await pagesRead(async () => {
        down = await walk(a, '/created/');
      });
      expect(down!.forward).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
      expect(down!.backward).toEqual(down!.forward);
      expect(texts.length).toBeGreaterThan(6);
      expect(texts.every((t) => t.includes('"created"::text'))).toBe(true);
    });
  });

  describe.runIf(pg)('index use on PostgreSQL', () => {
    it('a deep cursor page, either direction, NULL rows included, reads the (created, id) index by range', async () => {
      await sql`create table big (id integer primary key, created timestamptz)`.execute(db);
      await sql`insert into big select g, case when g % 10 = 0 then null else timestamptz '2024-01-01' + g * interval '1.000001 second' end from generate_series(1, 20000) g`.execute(db);
      await sql`create index big_created_id on big (created, id)`.execute(db);
      await sql`analyze big`.execute(db);
      // The statements run (compiling alone is not running): compiled when transformed, kept when their result comes back.
      const compiled = new Map<unknown, CompiledQuery>();
      const seen: CompiledQuery[] = [];
      const capture: KyselyPlugin = {
        transformQuery: (args) => {
          compiled.set(args.queryId, db.getExecutor().compileQuery(args.node, args.queryId));
          return args.node;
        },
        transformResult: async (args) => {
          seen.push(compiled.get(args.queryId)!);
          return args.result;
        },
      };
      const big = () => db.selectFrom('big').selectAll().withPlugin(capture);
      class Newest extends CursorPagination {
        override ordering = ['-created', '-id'];
        override pageSize = 20;
      }
      class Oldest extends CursorPagination {
        override ordering = ['created', 'id'];
        override pageSize = 20;
      }
      const a = await app(listView(big, Newest), [['asc/', listView(big, Oldest)]]);
      const plans = async (url: string) => {
        seen.length = 0;
        const res = await get(a, url);
        expect(res.status).toBe(200);
        const out: string[] = [];
        for (const q of seen) {
          const rows = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
          out.push(rows.rows.map((r) => r['QUERY PLAN']).join('\n'));
        }
        return { res, out };
      };
      // A cursor deep in the listing: the page after the 10,000th row of each direction.
      const at = (dir: 'asc' | 'desc') =>
        db.selectFrom('big').select(['id', sql<string>`created::text`.as('t')]).where('created', 'is not', null).orderBy('created', dir).orderBy('id', dir).limit(1).offset(10_000).executeTakeFirstOrThrow();
      // Start-up (the system checks read the table's columns through the builder) before anything is counted.
      expect((await get(a, '/asc/')).status).toBe(200);
      const deep = await at('desc');
      const deepAsc = await at('asc');
      for (const url of [
        `/items/?cursor=${signCursor(cursorKey(a.trestle), '2|/items/|-created:nf,-id', { p: [deep.t, deep.id] })}`,
        `/asc/?cursor=${signCursor(cursorKey(a.trestle), '2|/asc/|created:nl,id', { p: [deepAsc.t, deepAsc.id] })}`,
      ]) {
        const { res, out } = await plans(url);
        expect(res.body!['previous']).not.toBeNull();
        expect(out).toHaveLength(1);
        expect(out[0]).toMatch(/Index (Only )?Scan (Backward )?using big_created_id on big/);
        expect(out[0]).toMatch(/Index Cond: \(ROW\(created, id\) [<>] ROW\(/);
        expect(out[0]).not.toMatch(/Filter:|Sort/);
      }
      // The last page ascending runs into the NULL rows: a second range, `created IS NULL`, on the same index.
      const last = await db.selectFrom('big').select(['id', sql<string>`created::text`.as('t')]).where('created', 'is not', null).orderBy('created', 'desc').orderBy('id', 'desc').limit(1).offset(5).executeTakeFirstOrThrow();
      const edge = signCursor(cursorKey(a.trestle), '2|/asc/|created:nl,id', { p: [last.t, last.id] });
      const { res, out } = await plans(`/asc/?cursor=${edge}`);
      expect(ids(res.body)).toHaveLength(20);
      expect(ids(res.body).slice(0, 5).some((id) => id % 10 === 0)).toBe(false);
      expect(ids(res.body).slice(5)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150]);
      expect(out).toHaveLength(2);
      expect(out[1]).toMatch(/Index (Only )?Scan using big_created_id on big/);
      expect(out[1]).toMatch(/Index Cond: \(created IS NULL\)/);
    });
  });
});
