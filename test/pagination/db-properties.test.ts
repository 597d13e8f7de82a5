/**
 * Property tests over random tables on SQLite and PostgreSQL: columns with
 * NULLs, ties and sub-millisecond timestamps, paged by cursor (the view's
 * ordering and the client's), page number and limit/offset. Walking `next`
 * to the end yields every row exactly once in the expected order, and
 * walking `previous` back yields the same.
 */
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorPagination, LimitOffsetPagination, OrderingFilter, PageNumberPagination, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { listView, serve, walk } from './helpers.js';

interface Row {
  id: number;
  /** Microseconds after 2024-01-01 00:00:00, or null. */
  at: number | null;
  v: number | null;
}
type DB = { item: { id: number; at: string | null; v: number | null } };

/** `2024-01-01 00:00:00.000123`: the same text sorts the same on both databases. */
function stamp(us: number): string {
  const seconds = Math.floor(us / 1_000_000);
  const frac = String(us % 1_000_000).padStart(6, '0');
  return `2024-01-01 00:${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}.${frac}`;
}

/** The rows in `ordering` (`at`/`v`, `-` descending), NULLs last ascending and first descending, then by id in `tie` direction. */
function expected(rows: readonly Row[], ordering: string, tieDescending: boolean): number[] {
  const desc = ordering.startsWith('-');
  const field = (desc ? ordering.slice(1) : ordering) as 'at' | 'v';
  return [...rows]
    .sort((a, b) => {
      const x = a[field];
      const y = b[field];
      if (x !== y) {
        if (x === null) return desc ? -1 : 1;
        if (y === null) return desc ? 1 : -1;
        return desc ? y - x : x - y;
      }
      return tieDescending ? b.id - a.id : a.id - b.id;
    })
    .map((r) => r.id);
}

describe.each(testDatabases())('random walks on $name', ({ name, open }) => {
  let database: Database;
  let db: Kysely<DB>;
  let app: TrestleApp;

  // Few distinct values: long runs of ties; a microsecond apart: the same millisecond.
  const rowsArb = fc.array(
    fc.record({
      at: fc.option(fc.constantFrom(0, 1, 2, 999, 1000, 1001, 59_999_999, 60_000_001), { nil: null, freq: 4 }),
      v: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null, freq: 4 }),
    }),
    { maxLength: 30 },
  );

  beforeAll(async () => {
    database = await open();
    db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('item')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('at', name === 'postgres' ? sql`timestamptz` : 'text')
      .addColumn('v', 'integer')
      .execute();
    await db.schema.createIndex('item_at_id').on('item').columns(['at', 'id']).execute();
    const items = () => db.selectFrom('item').selectAll();
    const filtered = { filterBackends: [OrderingFilter], orderingFields: ['at', 'v'], ordering: 'v' };
    class Cursor extends CursorPagination {
      override pageSizeQueryParam = 'size';
      override ordering = ['at', 'id'];
    }
    class CursorDesc extends Cursor {
      override ordering = ['-at', '-id'];
    }
    class CursorV extends Cursor {
      override ordering = ['-v', '-id'];
    }
    class Pages extends PageNumberPagination {
      override pageSizeQueryParam = 'size';
    }
    ({ app } = await serve(listView(items, Cursor), { SECRET_KEY: 'props', PAGE_SIZE: 3 }, [
      ['cursor-desc/', listView(items, CursorDesc)],
      ['cursor-v/', listView(items, CursorV)],
      ['cursor-client/', listView(items, Cursor, filtered)],
      ['pages/', listView(items, Pages, filtered)],
      ['slices/', listView(items, LimitOffsetPagination, filtered)],
    ]));
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  async function fill(rows: readonly Row[]) {
    await db.deleteFrom('item').execute();
    if (rows.length > 0) {
      // Timestamps are written in UTC, whatever the session's time zone.
      const at = (us: number | null) => (us === null ? null : name === 'postgres' ? `${stamp(us)}+00` : stamp(us));
      await db.insertInto('item').values(rows.map((r) => ({ id: r.id, at: at(r.at), v: r.v }))).execute();
    }
  }

  const withIds = (raw: { at: number | null; v: number | null }[]): Row[] => raw.map((r, i) => ({ id: i + 1, ...r }));

  it('cursor walks under the view ordering and the client ordering: every row once, in order, both ways', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArb,
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(
          ['/items/', 'at', false],
          ['/cursor-desc/', '-at', true],
          ['/cursor-v/', '-v', true],
          ['/cursor-client/?ordering=at', 'at', false],
          ['/cursor-client/?ordering=-at', '-at', true],
          ['/cursor-client/?ordering=-v', '-v', true],
          ['/cursor-client/?ordering=v', 'v', false],
        ),
        async (raw, size, [path, ordering, tieDescending]) => {
          const rows = withIds(raw);
          await fill(rows);
          const { forward, backward } = await walk(app, `${path}${path.includes('?') ? '&' : '?'}size=${size}`);
          const want = expected(rows, ordering, tieDescending);
          expect(forward).toEqual(want);
          expect(backward).toEqual(want);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('page-number and limit/offset walks under any client ordering: every row once, in order, ties by id ascending', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArb,
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('at', '-at', 'v', '-v'),
        fc.constantFrom('pages', 'slices'),
        async (raw, size, ordering, style) => {
          const rows = withIds(raw);
          await fill(rows);
          const start = style === 'pages' ? `/pages/?ordering=${ordering}&size=${size}` : `/slices/?limit=${size}&ordering=${ordering}`;
          const { forward, backward } = await walk(app, start);
          const want = expected(rows, ordering, false);
          expect(forward).toEqual(want);
          expect(backward).toEqual(want);
        },
      ),
      { numRuns: 40 },
    );
  });
});
