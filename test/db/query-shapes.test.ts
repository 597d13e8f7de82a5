/**
 * Derived queries (a cursor page's seek, a numbered page's slice) are built
 * and compiled once per shape, then only bound: the SQL and parameters must
 * be exactly what compiling the derived query afresh gives, for listings
 * with parameters anywhere (SELECT, WHERE, GROUP BY/HAVING), and pages
 * served that way must be the right rows.
 */
import fc from 'fast-check';
import { CamelCasePlugin, sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorPagination, PageNumberPagination, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { compileDerived } from '../../src/db/query-shapes.js';
import { keysetPredicate, type OrderTerm } from '../../src/pagination/source.js';
import { testDatabases } from '../helpers/databases.js';
import { BASE, get, listView, serve } from '../pagination/helpers.js';

interface ItemTable {
  id: number;
  grp: number;
  score: number | null;
}
type DB = { shaped_item: ItemTable };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyQuery = SelectQueryBuilder<any, any, any>;

const ORDER: OrderTerm[] = [
  { field: 'score', descending: true, nullable: true, nullsFirst: false },
  { field: 'id', descending: false, nullsFirst: false, nullable: false },
];

/** The SQL of every query `db`'s executor compiles until `restore()`. */
function recordCompiles(db: Kysely<DB>): { compiled: string[]; restore: () => void } {
  const executor = db.getExecutor();
  const compiled: string[] = [];
  const compile = executor.compileQuery;
  (executor as { compileQuery: typeof compile }).compileQuery = (node, id) => {
    const c = compile.call(executor, node, id);
    compiled.push(c.sql);
    return c;
  };
  return { compiled, restore: () => void ((executor as { compileQuery: typeof compile }).compileQuery = compile) };
}

describe.each(testDatabases())('query shapes on $name', ({ open }) => {
  let database: Database;
  let db: Kysely<DB>;
  const apps: TrestleApp[] = [];

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('shaped_item')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('grp', 'integer', (c) => c.notNull())
      .addColumn('score', 'integer')
      .execute();
    await db
      .insertInto('shaped_item')
      .values(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, grp: i % 4, score: i % 5 === 0 ? null : (i * 7) % 11 })))
      .execute();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await database.close();
  });

  /** Listings with parameters before, inside and after the place a seek's WHERE goes. */
  const listings: [string, (k: number) => AnyQuery][] = [
    ['plain', () => db.selectFrom('shaped_item').select(['id', 'grp', 'score'])],
    ['where', (k) => db.selectFrom('shaped_item').select(['id', 'grp', 'score']).where('id', '>', k).where('grp', '!=', k % 4)],
    ['select', (k) => db.selectFrom('shaped_item').select(['id', 'score', sql<number>`${k} + 1`.as('grp')]).where('id', '<', 25)],
    [
      'having',
      (k) =>
        db
          .selectFrom('shaped_item')
          .select(['grp as id', 'grp', (eb) => eb.fn.max('score').as('score')])
          .where('id', '>', k)
          .groupBy('grp')
          .having((eb) => eb.fn.count('id'), '>', k % 3),
    ],
  ];

  function seekOf(listing: AnyQuery, after: readonly unknown[] | null, values: readonly unknown[], inclusive: boolean): CompiledQuery {
    const n = after?.length ?? 0;
    let q = listing.orderBy(sql`"score" desc nulls last, "id" asc`);
    if (after) q = q.where(keysetPredicate(ORDER, values.slice(0, n), inclusive));
    return q
      .limit(values[n] as number)
      .offset(values[n + 1] as number)
      .compile();
  }

  it.each(listings)('a warm seek shape over a %s listing binds exactly what a fresh compile gives', (label, listing) => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.option(fc.tuple(fc.option(fc.integer({ min: -5, max: 15 }), { nil: null }), fc.integer({ min: 0, max: 40 })), { nil: null }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 9 }),
        fc.boolean(),
        (k, after, limit, offset, inclusive) => {
          const base = listing(k).clearOrderBy();
          const values = [...(after ?? []), limit, offset];
          const kind = `test-seek-${label}-${after === null ? '-' : after.length}${inclusive ? '=' : ''}`;
          let builds = 0;
          const derived = compileDerived(base.compile(), kind, values, (v) => {
            builds++;
            return seekOf(base, after, v, inclusive);
          });
          const fresh = seekOf(base, after, values, inclusive);
          expect(derived).not.toBeNull();
          expect(derived!.query.sql).toBe(fresh.sql);
          expect(derived!.query.parameters).toEqual(fresh.parameters);
          // Once a shape is known (same listing SQL, same nulls), nothing is built again.
          const again = compileDerived(base.compile(), kind, values, (v) => {
            builds++;
            return seekOf(base, after, v, inclusive);
          });
          expect(again!.query.sql).toBe(fresh.sql);
          expect(again!.query.parameters).toEqual(fresh.parameters);
          expect(builds).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('leaves a listing with plug-ins to Kysely', () => {
    const listing = db.withPlugin(new CamelCasePlugin()).selectFrom('shaped_item').select(['id']);
    expect(compileDerived(listing.compile(), 'test-plugin', [5, 0], ([l, o]) => listing.limit(l as number).offset(o as number).compile())).toBeNull();
  });

  it('builds every time when a value does not come back as a parameter', () => {
    const listing = db.selectFrom('shaped_item').select(['id']);
    let builds = 0;
    // The builder looks at the value (Number(stand-in) is NaN): no shape is kept, and the real value is used.
    const build = ([l]: readonly unknown[]) => {
      builds++;
      return listing.limit(Number.isNaN(Number(l)) ? 1 : (l as number)).compile();
    };
    for (const limit of [3, 4]) {
      const derived = compileDerived(listing.compile(), 'test-inspecting', [limit], build);
      expect(derived!.query.parameters).toEqual([limit]);
    }
    // Learning (with stand-ins) plus the real build the first time, the real build alone after.
    expect(builds).toBe(3);
  });

  it('serves cursor pages through warm shapes: every row once forward and back, LIMIT never compiled again', async () => {
    const { compiled, restore } = recordCompiles(db);
    try {
      class ScoreCursor extends CursorPagination<ItemTable> {
        override ordering = ['-score', 'id'];
        override pageSize = 4;
        override nulls = 'last' as const;
      }
      const s = await serve(listView(() => db.selectFrom('shaped_item').select(['id', 'grp', 'score']).where('grp', '!=', 3), ScoreCursor), { SECRET_KEY: 's' });
      apps.push(s.app);
      const expected = (await db.selectFrom('shaped_item').select(['id', 'score']).where('grp', '!=', 3).execute())
        .sort((a, b) => (a.score === b.score ? a.id - b.id : a.score === null ? 1 : b.score === null ? -1 : b.score - a.score))
        .map((r) => r.id);
      const walkOnce = async () => {
        const seen: number[] = [];
        let url: string | null = `${BASE}/items/`;
        let last: string | null = null;
        while (url !== null) {
          const res = await get(s.app, url.slice(BASE.length));
          expect(res.status).toBe(200);
          expect(res.headers['content-type']).toBe('application/json');
          seen.push(...(res.body!['results'] as { id: number }[]).map((r) => r.id));
          last = url;
          url = res.body!['next'] as string | null;
        }
        const back: number[] = [];
        url = ((await get(s.app, last!.slice(BASE.length))).body!['previous'] as string | null) ?? null;
        while (url !== null) {
          const res = await get(s.app, url.slice(BASE.length));
          expect(res.status).toBe(200);
          back.unshift(...(res.body!['results'] as { id: number }[]).map((r) => r.id));
          url = res.body!['previous'] as string | null;
        }
        return { seen, back };
      };
      const first = await walkOnce();
      expect(first.seen).toEqual(expected);
      compiled.length = 0;
      const second = await walkOnce();
      expect(second.seen).toEqual(expected);
      expect(second.back).toEqual(expected.slice(0, second.back.length));
      expect(second.back.length).toBeGreaterThan(0);
      // Every shape was learnt on the first walk: the second compiled only the listings.
      expect(compiled.length).toBeGreaterThan(0);
      expect(compiled.filter((q) => /\blimit\b/i.test(q))).toEqual([]);
    } finally {
      restore();
    }
  });

  it('serves numbered pages through warm shapes: the listing compiled once per request, never the count or the page', async () => {
    const { compiled, restore } = recordCompiles(db);
    try {
      const s = await serve(listView(() => db.selectFrom('shaped_item').select(['id']).where('id', '>', 10).orderBy('id'), PageNumberPagination), { SECRET_KEY: 's', PAGE_SIZE: 6 });
      apps.push(s.app);
      for (let round = 0; round < 2; round++) {
        compiled.length = 0;
        const page2 = await get(s.app, '/items/?page=2');
        expect(page2).toMatchObject({ status: 200, body: { count: 20, next: `${BASE}/items/?page=3`, previous: `${BASE}/items/` } });
        expect(page2.headers['content-type']).toBe('application/json');
        expect((page2.body!['results'] as { id: number }[]).map((r) => r.id)).toEqual([17, 18, 19, 20, 21, 22]);
        const page4 = await get(s.app, '/items/?page=4');
        expect(page4).toMatchObject({ status: 200, body: { count: 20, next: null, previous: `${BASE}/items/?page=3` } });
        expect((page4.body!['results'] as { id: number }[]).map((r) => r.id)).toEqual([29, 30]);
        if (round === 1) {
          // Warm: two requests, each compiling its listing (with ORDER BY) and nothing else.
          expect(compiled).toHaveLength(2);
          for (const q of compiled) {
            expect(q).toMatch(/\border by\b/i);
            expect(q).not.toMatch(/\blimit\b|count\(/i);
          }
        }
      }
    } finally {
      restore();
    }
  });

  it.each([
    ...listings.map(([label, listing]) => [label, (k: number) => listing(k).orderBy('id')] as const),
    ['an ORDER BY with a parameter', (k: number) => db.selectFrom('shaped_item').select(['id', 'grp', 'score']).where('id', '>', k).orderBy(sql`abs("id" - ${k + 7})`).orderBy('id')] as const,
  ])('numbered pages over a %s listing count and slice what a fresh query gives, warm or not', async (_label, listing) => {
    let k = 0;
    const s = await serve(listView(() => listing(k), PageNumberPagination), { SECRET_KEY: 's', PAGE_SIZE: 4 });
    apps.push(s.app);
    for (const value of [3, 11, 3, 20, 11]) {
      k = value;
      const all = (await listing(value).execute()) as { id: number }[];
      const res = await get(s.app, '/items/?page=2');
      if (all.length <= 4) {
        expect(res).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body!['count']).toBe(all.length);
      expect(res.body!['results']).toEqual(JSON.parse(JSON.stringify(all.slice(4, 8))));
    }
  });
});
