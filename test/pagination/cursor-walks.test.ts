/**
 * Random walks over cursor pages, with rows inserted between requests, on an
 * array, SQLite and PostgreSQL.
 *
 * What is promised (docs/pagination.md, "What a walk sees"):
 *
 * - Every page is a contiguous run of the listing as it stands when the page
 *   is served (the listing: the items sorted by the ordering, ties in
 *   insertion order).
 * - `next` from a page P serves the run that starts right after P's last
 *   item; `previous` the run that ends right before P's first item. The only
 *   items that may lie between P and the new page are items inserted after P
 *   was served (an insert right at the cursor may fall on either side of it).
 *   A page is short only at the start or end of the listing, and a link is
 *   missing only there.
 * - Hence any walk of next/previous never skips an item and never shows one
 *   on the wrong side; and following `next` from any page to the end yields
 *   every item that existed when that leg began exactly once, in listing
 *   order, and an item inserted meanwhile at most once.
 *
 * This holds for full keyset positions under any insert, and for value-only
 * positions (DRF's mode) when an inserted row sorts after the rows it ties
 * with — insertion order on arrays, an ascending serial id as the last
 * ordering column in SQL.
 *
 * `npm test` runs 1,000 walks per source against the pagination class in
 * process, and 50 more per source through HTTP; TRESTLE_CURSOR_WALKS=N runs
 * N of the first kind.
 */
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CursorPagination, ListAPIView, type Source, type TrestleApp } from '../../src/index.js';
import type { ApiRequest } from '../../src/request.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { BASE, serve } from './helpers.js';

const WALKS = Number(process.env['TRESTLE_CURSOR_WALKS'] ?? 1000);
const HTTP_WALKS = 50;

interface Item {
  id: number;
  v: number | null;
}

interface Mode {
  ordering: readonly string[];
  /** `[]`: value-only positions on the first column (DRF); default: full keyset. */
  unique?: readonly string[];
  nulls?: 'first' | 'last';
}

const arrayModes: Mode[] = [
  { ordering: ['v'], unique: [] },
  { ordering: ['-v'], unique: [] },
  { ordering: ['v'], unique: [], nulls: 'first' },
  { ordering: ['-v', 'id'] },
  { ordering: ['v', '-id'] },
  { ordering: ['-v', 'id'], nulls: 'last' },
];
const sqlModes: Mode[] = [
  { ordering: ['v', 'id'], unique: [] },
  { ordering: ['-v', 'id'], unique: [] },
  { ordering: ['-v', 'id'], unique: [], nulls: 'last' },
  { ordering: ['v', 'id'] },
  { ordering: ['-v', '-id'] },
  { ordering: ['v', '-id'], nulls: 'first' },
];

function paginationFor(mode: Mode) {
  return class extends CursorPagination {
    override ordering = mode.ordering;
    override pageSizeQueryParam = 'size';
    override uniqueOrderingFields = mode.unique ?? ['id'];
    override nulls = mode.nulls ?? null;
  };
}

/** The listing as the ordering sorts it, ties in insertion (id) order. */
function listing(items: readonly Item[], mode: Mode): Item[] {
  const terms = mode.ordering.map((t) => ({ field: t.replace('-', '') as 'v' | 'id', desc: t.startsWith('-') }));
  return [...items].sort((a, b) => {
    for (const t of terms) {
      const x = a[t.field];
      const y = b[t.field];
      if (x === y) continue;
      if (x === null || y === null) return (x === null) === (mode.nulls === 'first') ? -1 : 1;
      return t.desc ? y - x : x - y;
    }
    return a.id - b.id;
  });
}

interface Step {
  move: 'next' | 'previous';
  inserts: (number | null)[];
}

interface Served {
  ids: number[];
  next: string | null;
  previous: string | null;
  at: number;
}

/** A source under test: rows kept apart per walk `w`, so walks run side by side. */
interface Store {
  modes: Mode[];
  app: TrestleApp;
  source(w: number): Source<Item>;
  reset(w: number, items: Item[]): Promise<void>;
  insert(w: number, items: Item[]): Promise<void>;
}

/** Walks run this many at a time (a database round trip is mostly waiting). */
const BATCH = 16;

/** The list views of `modes` at `/m<i>/`, reading walk `?w=`'s rows. */
async function serveModes(modes: Mode[], source: (w: number) => Source<Item>): Promise<TrestleApp> {
  const views = modes.map((m, i): [string, typeof ListAPIView<unknown>] => {
    const pagination = paginationFor(m);
    class Walk extends ListAPIView<Item> {
      override paginationClass = pagination;
      override getQueryset(req: ApiRequest): Source<Item> {
        return source(Number(req.query['w']));
      }
    }
    return [`m${i}/`, Walk as unknown as typeof ListAPIView<unknown>];
  });
  return (await serve(views[0]![1], { SECRET_KEY: 'walks', PAGE_SIZE: 3 }, views)).app;
}

type Fetch = (url: string) => Promise<{ results: Item[]; next: string | null; previous: string | null }>;

/** Pages through the app (`GET` by `inject()`). */
function overHttp(store: Store): Fetch {
  return async (url) => {
    const res = await store.app.inject({ method: 'GET', url: url.replace(BASE, '') });
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as { results: Item[]; next: string | null; previous: string | null };
  };
}

/** Pages by calling the mode's pagination class directly: the same code without the HTTP layers. */
function inProcess(store: Store): Fetch {
  const paginations = store.modes.map((m) => new (paginationFor(m))(store.app.trestle));
  return async (url) => {
    const u = new URL(url, BASE);
    const pagination = paginations[Number(/^\/m(\d+)\//.exec(u.pathname)![1])]!;
    const req = { query: Object.fromEntries(u.searchParams), path: u.pathname, pagination: null, buildAbsoluteUri: () => u.href } as unknown as ApiRequest;
    const results = (await pagination.paginate(store.source(Number(u.searchParams.get('w'))), req, null)) as Item[];
    return { results, next: pagination.getNextLink(req), previous: pagination.getPreviousLink(req) };
  };
}

const value = (nullable: boolean) => (nullable ? fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 4 }) : fc.integer({ min: 0, max: 3 }));

async function walkOnce(store: Store, fetch: Fetch, w: number, modeIndex: number, initial: (number | null)[], size: number, steps: Step[]): Promise<void> {
  const mode = store.modes[modeIndex]!;
  const nullable = mode.nulls !== undefined;
  const clean = (v: number | null) => (nullable ? v : (v ?? 0));
  let nextId = 1;
  let clock = 0;
  const born = new Map<number, number>();
  const items: Item[] = initial.map((v) => ({ id: nextId++, v: clean(v) }));
  for (const i of items) born.set(i.id, 0);
  await store.reset(w, items);

  const fetchPage = async (url: string): Promise<Served> => {
    const body = await fetch(url);
    return { ids: body.results.map((r) => r.id), next: body.next, previous: body.previous, at: ++clock };
  };

  /** Checks page `q`, served after following `move` from `p` (or as the first page). */
  const check = (q: Served, p: Served | null, move: Step['move'] | null, context: () => string) => {
    const list = listing(items, mode).map((i) => i.id);
    const where = (id: number) => list.indexOf(id);
    const fail = (why: string) => {
      throw new Error(`${why}\n${context()}\nlisting now: ${list.join(',')}\npage: ${q.ids.join(',')}${p ? ` from ${p.ids.join(',')}` : ''}`);
    };
    if (list.length > 0 && q.ids.length === 0) fail('empty page');
    const start = q.ids.length > 0 ? where(q.ids[0]!) : 0;
    q.ids.forEach((id, i) => {
      if (list[start + i] !== id) fail('page is not a contiguous run of the listing');
    });
    const end = start + q.ids.length; // exclusive
    if (q.ids.length < size && start > 0 && end < list.length) fail('short page in the middle');
    if ((q.next === null) !== (end === list.length) && !(move === 'previous')) fail('next link wrong');
    if (move === 'previous' && q.next === null) fail('no next link after a previous');
    if ((q.previous === null) !== (start === 0) && !(move === 'next')) fail('previous link wrong');
    if (move === 'next' && q.previous === null) fail('no previous link after a next');
    if (move === 'next' && p) {
      const after = where(p.ids[p.ids.length - 1]!);
      if (start <= after) fail('next page overlaps or goes back');
      for (const id of list.slice(after + 1, start)) if (born.get(id)! < p.at) fail(`next skipped item ${id}`);
    }
    if (move === 'previous' && p) {
      const before = where(p.ids[0]!);
      if (end > before) fail('previous page overlaps or goes forward');
      for (const id of list.slice(end, before)) if (born.get(id)! < p.at) fail(`previous skipped item ${id}`);
    }
  };

  const trail: string[] = [];
  const context = () => `mode ${JSON.stringify(mode)} size ${size} initial ${JSON.stringify(initial)}\nsteps: ${trail.join(' ')}`;
  const insert = async (values: (number | null)[]) => {
    if (values.length === 0) return;
    const added = values.map((v) => ({ id: nextId++, v: clean(v) }));
    for (const a of added) born.set(a.id, clock);
    items.push(...added);
    await store.insert(w, added);
    trail.push(`+[${added.map((a) => `${a.id}:${a.v}`).join(',')}]`);
  };

  let page = await fetchPage(`/m${modeIndex}/?w=${w}&size=${size}`);
  check(page, null, null, context);
  for (const step of steps) {
    await insert(step.inserts);
    const link = step.move === 'next' ? page.next : page.previous;
    if (link === null) continue;
    trail.push(step.move);
    const q = await fetchPage(link);
    check(q, page, step.move, context);
    page = q;
  }
  // The final leg: next to the end yields each item once, in order.
  const legStart = page.ids[0] ?? null;
  const existing = new Set(items.filter((i) => born.get(i.id)! < page.at).map((i) => i.id));
  const seen = [...page.ids];
  let guard = 0;
  while (page.next !== null) {
    trail.push('next');
    const q = await fetchPage(page.next);
    check(q, page, 'next', context);
    seen.push(...q.ids);
    page = q;
    if (++guard > 200) throw new Error('no end');
  }
  const final = listing(items, mode).map((i) => i.id);
  const expected = final.slice(legStart === null ? 0 : final.indexOf(legStart)).filter((id) => existing.has(id));
  const seenOld = seen.filter((id) => existing.has(id));
  if (new Set(seen).size !== seen.length) throw new Error(`an item twice in the final leg: ${seen.join(',')}\n${context()}`);
  if (seenOld.join(',') !== expected.join(',')) throw new Error(`final leg ${seenOld.join(',')} is not ${expected.join(',')}\n${context()}`);
}

const walkArb = fc.record({
  mode: fc.nat({ max: 5 }),
  initial: fc.array(value(true), { maxLength: 12 }),
  size: fc.integer({ min: 1, max: 5 }),
  steps: fc.array(
    fc.record({ move: fc.constantFrom<Step['move']>('next', 'next', 'previous'), inserts: fc.array(value(true), { maxLength: 2 }) }),
    { maxLength: 10 },
  ),
});

/** `walks` random walks, BATCH at a time, each on its own rows. */
async function assertWalks(store: Store, fetch: Fetch, walks: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(walkArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
      await Promise.all(batch.map((b, w) => walkOnce(store, fetch, w, b.mode, b.initial, b.size, b.steps)));
    }),
    { numRuns: Math.ceil(walks / BATCH) },
  );
}

describe('cursor walks with inserts: every item once, in order', () => {
  describe('on an array', () => {
    const data = new Map<number, Item[]>();
    const rows = (w: number) => data.get(w) ?? [];
    let store: Store;
    beforeAll(async () => {
      store = {
        modes: arrayModes, app: await serveModes(arrayModes, rows), source: rows,
        async reset(w, items) {
          data.set(w, items.map((i) => ({ ...i })));
        },
        async insert(w, items) {
          rows(w).push(...items.map((i) => ({ ...i })));
        },
      };
    });
    afterAll(() => store.app.close());

    it(`${WALKS} random walks, pagination class in process`, () => assertWalks(store, inProcess(store), WALKS), 600_000);
    it(`${HTTP_WALKS} random walks through HTTP`, () => assertWalks(store, overHttp(store), HTTP_WALKS), 600_000);
  });

  describe.each(testDatabases())('on $name', ({ open }) => {
    let database: Database;
    let store: Store;
    beforeAll(async () => {
      database = await open();
      const db = database.db as unknown as Kysely<{ item: Item & { w: number } }>;
      await db.schema.createTable('item').addColumn('w', 'integer', (c) => c.notNull()).addColumn('id', 'integer', (c) => c.notNull()).addColumn('v', 'integer').execute();
      const rows = (w: number) => db.selectFrom('item').select(['id', 'v']).where('w', '=', w);
      store = {
        modes: sqlModes, app: await serveModes(sqlModes, rows), source: rows,
        async reset(w, items) {
          await db.deleteFrom('item').where('w', '=', w).execute();
          await store.insert(w, items);
        },
        async insert(w, items) {
          if (items.length > 0) await db.insertInto('item').values(items.map((i) => ({ ...i, w }))).execute();
        },
      };
    });
    afterAll(async () => {
      await store.app.close();
      await database.close();
    });

    it(`${WALKS} random walks, pagination class in process`, () => assertWalks(store, inProcess(store), WALKS), 600_000);
    it(`${HTTP_WALKS} random walks through HTTP`, () => assertWalks(store, overHttp(store), HTTP_WALKS), 600_000);
  });
});
