/**
 * The example service's lists walked to the end under every ordering they
 * allow, on SQLite and PostgreSQL: every row exactly once, rows with equal
 * values together and in primary-key order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHOR_COUNT, BOOK_COUNT } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from '../example/start-example.js';
import type { TrestleApp } from '../../src/index.js';
import { BASE, get, walk } from './helpers.js';

/** Follows `next` from `start` to the end (walks back are covered by the property tests): the items seen. */
async function forwardWalk(app: TrestleApp, start: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let url: string | null = start;
  while (url !== null) {
    const res = await get(app, url.replace(BASE, ''));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    items.push(...(res.body!['results'] as unknown[]));
    url = res.body!['next'] as string | null;
  }
  return items;
}

type Item = Record<string, unknown> & { id: number };

/**
 * `items` are ordered by `field` (descending with `desc`), ties by id ascending:
 * equal values form one run, ids rise inside a run, and (for `comparable`
 * fields: numbers, ISO timestamps) runs follow the direction.
 */
function expectOrdered(items: readonly Item[], field: string, desc: boolean, tieDescending: boolean, comparable: boolean) {
  const finished = new Set<string>();
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const x = JSON.stringify(a[field]);
    const y = JSON.stringify(b[field]);
    if (x === y) {
      expect(tieDescending ? b.id < a.id : b.id > a.id, `ids inside the run of ${x}`).toBe(true);
      continue;
    }
    expect(finished.has(y), `${y} appears in two runs`).toBe(false);
    finished.add(x);
    if (comparable) expect((a[field] as number | string) < (b[field] as number | string), `${x} then ${y}`).toBe(!desc);
  }
}

describe.each(testDatabases())('the example lists walked to the end on $name', ({ open }) => {
  let running: RunningExample;

  beforeAll(async () => {
    running = await startExample(open);
  }, 120_000);
  afterAll(() => running?.stop());

  const byId = (items: unknown[]) => items as Item[];

  it.each([
    ['id', true],
    ['title', false],
    ['year', true],
    ['created', true],
  ] as const)('/api/books/ under ?ordering=%s and its reverse: every book once, ties by id', async (field, comparable) => {
    for (const desc of [false, true]) {
      const items = byId(await forwardWalk(running.app, `/api/books/?ordering=${desc ? '-' : ''}${field}&page_size=100`));
      expect(items).toHaveLength(BOOK_COUNT);
      expect(new Set(items.map((b) => b.id)).size).toBe(BOOK_COUNT);
      expectOrdered(items, field, desc, false, comparable);
    }
  }, 120_000);

  it.each([
    ['id', true],
    ['name', false],
    ['country', false],
  ] as const)('/api/authors/?limit=7 under ?ordering=%s and its reverse: every author once, ties by id', async (field, comparable) => {
    for (const desc of [false, true]) {
      const items = byId(await forwardWalk(running.app, `/api/authors/?limit=7&ordering=${desc ? '-' : ''}${field}`));
      expect(items).toHaveLength(AUTHOR_COUNT);
      expect(new Set(items.map((a) => a.id)).size).toBe(AUTHOR_COUNT);
      expectOrdered(items, field, desc, false, comparable);
    }
  }, 120_000);

  it('/api/feed/ (cursor, newest first, books in pairs sharing a timestamp): every book once, both ways', async () => {
    const { forward, backward } = await walk(running.app, '/api/feed/', (i) => i);
    const items = byId(forward);
    expect(items).toHaveLength(BOOK_COUNT);
    expect(new Set(items.map((b) => b.id)).size).toBe(BOOK_COUNT);
    expectOrdered(items, 'created', true, true, true);
    expect(byId(backward).map((b) => b.id)).toEqual(items.map((b) => b.id));
  }, 120_000);
});
