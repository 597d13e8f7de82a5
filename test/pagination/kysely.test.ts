import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CursorPagination, LimitOffsetPagination, ListAPIView, PageNumberPagination, type CountStrategy, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { promisesOfFramework } from '../helpers/promises.js';
import { keysetPredicate, type OrderTerm } from '../../src/pagination/source.js';
import { BASE, get, listView, serve, walk } from './helpers.js';

interface BookTable {
  id: number;
  title: string;
  rank: number | null;
  created: string | Date | null;
}
type DB = { book: BookTable };

describe.each(testDatabases())('pagination over a Kysely builder on $name', ({ name, open }) => {
  let database: Database;
  let db: Kysely<DB>;
  const apps: TrestleApp[] = [];

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('book')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('rank', 'integer')
      .addColumn('created', name === 'postgres' ? 'timestamp' : 'text')
      .execute();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await database.close();
  });

  async function fill(n: number, rank: (i: number) => number | null = () => 1) {
    await db.deleteFrom('book').execute();
    if (n === 0) return;
    await db
      .insertInto('book')
      .values(Array.from({ length: n }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}`, rank: rank(i + 1), created: `2024-01-01 00:00:${String(i % 60).padStart(2, '0')}` })))
      .execute();
  }
  const books = () => db.selectFrom('book').select(['id', 'title', 'rank']).orderBy('id');
  const ids = (body: Record<string, unknown> | null) => (body!['results'] as { id: number }[]).map((b) => b.id);
  async function app(view: typeof ListAPIView<unknown>, settings: Record<string, unknown> = { PAGE_SIZE: 5, SECRET_KEY: 's' }) {
    const s = await serve(view, settings);
    apps.push(s.app);
    return s.app;
  }

  describe('page number', () => {
    beforeEach(() => fill(12));

    it('counts with a subquery and slices with LIMIT/OFFSET, honouring the builder WHERE', async () => {
      const a = await app(listView(() => books().where('id', '>', 2), PageNumberPagination));
      const res = await get(a, '/items/?page=2');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 10, next: null, previous: `${BASE}/items/` });
      expect(ids(res.body)).toEqual([8, 9, 10, 11, 12]);
      expect(await get(a, '/items/?page=3')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    });

    it('fetches a page with its count (one round trip on PostgreSQL) and still refuses what Django refuses', async () => {
      const a = await app(listView(() => books(), PageNumberPagination));
      const first = await get(a, '/items/');
      expect(first).toMatchObject({ status: 200, body: { count: 12, next: `${BASE}/items/?page=2`, previous: null } });
      expect(first.headers['content-type']).toBe('application/json');
      expect(ids(first.body)).toEqual([1, 2, 3, 4, 5]);
      const last = await get(a, '/items/?page=3');
      expect(last).toMatchObject({ status: 200, body: { count: 12, next: null, previous: `${BASE}/items/?page=2` } });
      expect(ids(last.body)).toEqual([11, 12]);
      expect(ids((await get(a, '/items/?page=last')).body)).toEqual([11, 12]);
      expect(ids((await get(a, '/items/?page=%202%20')).body)).toEqual([6, 7, 8, 9, 10]);
      for (const page of ['4', '0', '-1', 'abc', '1.5', '99999999999999999999999']) {
        expect(await get(a, `/items/?page=${page}`)).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
      }
      await fill(0);
      expect(await get(a, '/items/')).toMatchObject({ status: 200, body: { count: 0, next: null, previous: null, results: [] } });
      expect(await get(a, '/items/?page=2')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    });

    it("countStrategy 'none': count is null, next is decided by one extra row, an empty page past the end is 404", async () => {
      const a = await app(listView(() => books(), PageNumberPagination, { countStrategy: 'none' satisfies CountStrategy }));
      expect(await get(a, '/items/?page=2')).toMatchObject({ status: 200, body: { count: null, next: `${BASE}/items/?page=3`, previous: `${BASE}/items/` } });
      expect(await get(a, '/items/?page=3')).toMatchObject({ status: 200, body: { count: null, next: null } });
      expect(await get(a, '/items/?page=4')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
      expect(await get(a, '/items/?page=last')).toMatchObject({ status: 200, body: { count: 12, next: null, previous: `${BASE}/items/?page=2` } });
    });

    it('countStrategy { capped: N }: count N and count_capped true past the cap, exact below it', async () => {
      const capped = await app(listView(() => books(), PageNumberPagination, { countStrategy: { capped: 6 } }));
      const res = await get(capped, '/items/?page=3');
      expect(res).toMatchObject({ status: 200, body: { count: 6, count_capped: true, next: null, previous: `${BASE}/items/?page=2` } });
      expect(Object.keys(res.body!)).toEqual(['count', 'count_capped', 'next', 'previous', 'results']);
      expect(ids(res.body)).toEqual([11, 12]);
      const roomy = await app(listView(() => books(), PageNumberPagination, { countStrategy: { capped: 50 } }));
      expect(await get(roomy, '/items/')).toMatchObject({ status: 200, body: { count: 12, count_capped: false, next: `${BASE}/items/?page=2` } });
    });

    // On SQLite the capped count and the page (or slice) are read at once; on PostgreSQL each waits.
    it(`a capped count with its page, and with a limit/offset slice: ${name === 'sqlite' ? 'without a promise in the pipeline' : 'waiting on their queries'}`, async () => {
      const paged = await app(listView(() => books(), PageNumberPagination, { countStrategy: { capped: 6 } }));
      const sliced = await app(listView(() => books(), LimitOffsetPagination, { countStrategy: { capped: 6 } }));
      await Promise.all([paged.ready(), sliced.ready()]); // the start-up checks, which query, run before the first request
      const page = await promisesOfFramework(() => get(paged, '/items/?page=2'));
      expect(page.result).toMatchObject({ status: 200, body: { count: 6, count_capped: true, next: `${BASE}/items/?page=3`, previous: `${BASE}/items/` } });
      expect(page.result.headers['content-type']).toBe('application/json');
      expect(ids(page.result.body)).toEqual([6, 7, 8, 9, 10]);
      const slice = await promisesOfFramework(() => get(sliced, '/items/?limit=4&offset=4'));
      expect(slice.result).toMatchObject({ status: 200, body: { count: 6, count_capped: true, next: `${BASE}/items/?limit=4&offset=8`, previous: `${BASE}/items/?limit=4` } });
      expect(ids(slice.result.body)).toEqual([5, 6, 7, 8]);
      const created = [...page.created, ...slice.created];
      if (name === 'sqlite') expect(created).toEqual([]);
      else expect(created.length).toBeGreaterThan(2);
    });

    it("countStrategy 'estimated': exact under the threshold; the planner's estimate above it on PostgreSQL", async () => {
      const a = await app(listView(() => books(), PageNumberPagination, { countStrategy: 'estimated' }));
      expect(await get(a, '/items/')).toMatchObject({ status: 200, body: { count: 12 } });
      class Eager extends PageNumberPagination {
        override countStrategy: CountStrategy = 'estimated';
        override estimatedCountThreshold = 0;
      }
      const b = await app(listView(() => books(), Eager));
      const res = await get(b, '/items/?page=3');
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([11, 12]);
      expect(res.body!['next']).toBeNull();
      if (name === 'sqlite') expect(res.body!['count']).toBe(12);
      else expect(Number.isInteger(res.body!['count'])).toBe(true);
    });
  });

  describe('limit/offset', () => {
    beforeEach(() => fill(12));

    it('slices and links as DRF', async () => {
      const a = await app(listView(() => books(), LimitOffsetPagination));
      const res = await get(a, '/items/?limit=4&offset=6');
      expect(res).toMatchObject({ status: 200, body: { count: 12, next: `${BASE}/items/?limit=4&offset=10`, previous: `${BASE}/items/?limit=4&offset=2` } });
      expect(ids(res.body)).toEqual([7, 8, 9, 10]);
      expect(await get(a, '/items/?limit=4&offset=12')).toMatchObject({ status: 200, body: { count: 12, next: null, previous: `${BASE}/items/?limit=4&offset=8`, results: [] } });
      expect(await get(a, '/items/?limit=4&offset=99999999999999999999')).toMatchObject({ status: 200, body: { count: 12, next: null, results: [] } });
      const tail = await get(a, '/items/?limit=4&offset=10');
      expect(tail).toMatchObject({ status: 200, body: { count: 12, next: null, previous: `${BASE}/items/?limit=4&offset=6` } });
      expect(ids(tail.body)).toEqual([11, 12]);
    });

    it("countStrategy 'none' finds the end by one extra row", async () => {
      const a = await app(listView(() => books(), LimitOffsetPagination, { countStrategy: 'none' }));
      expect(await get(a, '/items/?limit=4&offset=4')).toMatchObject({ status: 200, body: { count: null, next: `${BASE}/items/?limit=4&offset=8` } });
      expect(await get(a, '/items/?limit=4&offset=8')).toMatchObject({ status: 200, body: { count: null, next: null } });
    });
  });

  describe('cursor', () => {
    class Keyset extends CursorPagination {
      override ordering = ['-created', '-id'];
    }
    const all = () => db.selectFrom('book').select(['id', 'title', 'rank', 'created']);

    it('keyset walk over a timestamp/id ordering visits every row once, forward and back', async () => {
      await fill(23);
      const a = await app(listView(all, Keyset));
      const { forward, backward } = await walk(a, '/items/');
      expect(forward).toHaveLength(23);
      expect(new Set(forward).size).toBe(23);
      expect(backward).toEqual(forward);
    });

    it('rows inserted between requests are not repeated and old rows are not skipped', async () => {
      await fill(10);
      const a = await app(listView(all, Keyset));
      const p1 = await get(a, '/items/');
      expect(ids(p1.body)).toEqual([10, 9, 8, 7, 6]);
      await db.insertInto('book').values([
        { id: 11, title: 'newest', rank: 1, created: '2025-01-01 00:00:00' },
        { id: 12, title: 'middle', rank: 1, created: '2024-01-01 00:00:03' },
      ]).execute();
      const p2 = await get(a, String(p1.body!['next']).replace(BASE, ''));
      expect(ids(p2.body)).toEqual([5, 12, 4, 3, 2]); // 12 ties with 4 on created; -id puts it first
      const p3 = await get(a, String(p2.body!['next']).replace(BASE, ''));
      expect(p3.body).toMatchObject({ next: null });
      expect(ids(p3.body)).toEqual([1]);
    });

    it("NULLs in a column declared nullable (nulls: 'last') are kept in both directions", async () => {
      await fill(9, (i) => (i % 3 === 0 ? null : i % 2));
      class ByRank extends CursorPagination {
        override ordering = ['rank', 'id'];
        override pageSize = 2;
        override nulls = 'last' as const;
      }
      const a = await app(listView(all, ByRank));
      const { forward, backward } = await walk(a, '/items/');
      expect(forward).toEqual([2, 4, 8, 1, 5, 7, 3, 6, 9]);
      expect(backward).toEqual(forward);
    });

    it('a tampered cursor is 404 Invalid cursor, never a 500', async () => {
      await fill(8);
      const a = await app(listView(all, Keyset));
      const token = new URL(String((await get(a, '/items/')).body!['next'])).searchParams.get('cursor')!;
      expect(await get(a, `/items/?cursor=${token}x`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    });

    it('random tables walked with random page sizes: no duplicate, no gap (unique and non-unique orderings, NOT NULL and nullable)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), { maxLength: 25 }),
          fc.integer({ min: 1, max: 6 }),
          fc.constantFrom<readonly string[]>(['rank', 'id'], ['-rank', '-id'], ['-id'], ['rank', '-id']),
          fc.constantFrom<'first' | 'last' | null>('first', 'last', null),
          async (raw, size, ordering, nulls) => {
            // With nulls: null the columns are declared NOT NULL, so the data must be.
            const ranks = nulls === null ? raw.map((r) => r ?? 0) : raw;
            await fill(ranks.length, (i) => ranks[i - 1]!);
            class P extends CursorPagination {
              override pageSize = size;
              override ordering = ordering;
              override nulls = nulls;
            }
            const a = await app(listView(all, P));
            const { forward, backward } = await walk(a, '/items/');
            expect([...forward].sort((x, y) => Number(x) - Number(y))).toEqual(ranks.map((_, i) => i + 1));
            expect(backward).toEqual(forward);
          },
        ),
        { numRuns: 24 },
      );
    });

    it('a NOT NULL keyset ordering seeks with a row-value comparison the index can answer', () => {
      const notNull = (field: string) => ({ field, descending: true, nullsFirst: false, nullable: false });
      const nullable = (field: string) => ({ field, descending: true, nullsFirst: false, nullable: true });
      const seekSql = (terms: OrderTerm[]) => all().where(keysetPredicate(terms, ['2024-01-01', 3])).compile().sql;
      expect(seekSql([notNull('created'), notNull('id')])).toMatch(/\("created", "id"\) < \((\+\?|\$\d+), (\+\?|\$\d+)\)/);
      expect(seekSql([nullable('created'), notNull('id')])).toMatch(/"created" is null/);
    });
  });
});

