import { afterEach, describe, expect, it } from 'vitest';
import { CursorPagination, type PaginationClass, type TrestleApp } from '../../src/index.js';
import { BASE, books, get, listView, serve, walk, type Book } from './helpers.js';

let apps: TrestleApp[] = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

const SECRET = { SECRET_KEY: 'test-secret', PAGE_SIZE: 5 };
const ids = (body: Record<string, unknown> | null) => (body!['results'] as { id: number }[]).map((b) => b.id);
const path = (url: unknown) => String(url).replace(BASE, '');

async function cursorApp(items: () => unknown[], pagination: PaginationClass = CursorPagination, settings: Record<string, unknown> = SECRET, extra: Record<string, unknown> = {}) {
  const s = await serve(listView(items, pagination, extra), settings, [['other/', listView(items, pagination, extra)]]);
  apps.push(s.app);
  return s;
}

class Keyset extends CursorPagination {
  override ordering = ['-created', '-id'];
}

describe('CursorPagination on an array', () => {
  it('first page: newest first by -created, next cursor, no previous, no count', async () => {
    const { app } = await cursorApp(() => books(12));
    const res = await get(app, '/items/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Object.keys(res.body!)).toEqual(['next', 'previous', 'results']);
    expect(ids(res.body)).toEqual([12, 11, 10, 9, 8]);
    expect(res.body!['previous']).toBeNull();
    expect(res.body!['next']).toMatch(/^http:\/\/localhost:80\/items\/\?cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('next then previous returns to the same items; the first page has no previous', async () => {
    const { app } = await cursorApp(() => books(12));
    const p1 = await get(app, '/items/?x=1');
    const p2 = await get(app, path(p1.body!['next']));
    expect(ids(p2.body)).toEqual([7, 6, 5, 4, 3]);
    expect(String(p2.body!['next'])).toContain('x=1');
    const back = await get(app, path(p2.body!['previous']));
    expect(back).toMatchObject({ status: 200, body: { previous: null } });
    expect(ids(back.body)).toEqual([12, 11, 10, 9, 8]);
  });

  it.each([
    ['keyset ordering (-created, -id)', Keyset],
    ['DRF position+offset ordering (-created)', CursorPagination],
  ])('walking forward and back visits every item exactly once: %s', async (_name, cls) => {
    const { app } = await cursorApp(() => books(23), cls);
    const { forward, backward } = await walk(app, '/items/');
    const expected = books(23).map((b) => b.id).reverse();
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
  });

  it('a non-unique ordering with long runs of equal values still visits every item once (offsets)', async () => {
    class ByTitle extends CursorPagination {
      override ordering = 'title';
      override pageSize = 3;
    }
    const data = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, title: ['a', 'b', 'c'][Math.floor(i / 7)]! }));
    const { app } = await cursorApp(() => data, ByTitle);
    const { forward, backward } = await walk(app, '/items/');
    expect(new Set(forward).size).toBe(20);
    expect(forward).toHaveLength(20);
    expect(new Set(backward).size).toBe(20);
    expect(backward).toHaveLength(20);
  });

  it.each([
    [7, 3],
    [10, 8],
    [3, 8],
  ])('value-only positions with ties: to the last page, back, then next to the end shows each item once (page size %i, back %i)', async (size, back) => {
    class DrfMode extends CursorPagination {
      override ordering = 'rank';
      override uniqueOrderingFields = [];
      override pageSize = size;
    }
    // 100 items, ranks in runs of 1 to 11 equal values.
    const data = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, rank: Math.floor(Math.sqrt(i * 3)) }));
    const { app } = await cursorApp(() => data, DrfMode);
    let res = await get(app, '/items/');
    while (res.body!['next'] !== null) res = await get(app, path(res.body!['next']));
    for (let i = 0; i < back; i++) res = await get(app, path(res.body!['previous']));
    const seen = ids(res.body);
    while (res.body!['next'] !== null) {
      res = await get(app, path(res.body!['next']));
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
    }
    const from = seen[0]! - 1;
    expect(seen).toEqual(data.slice(from).map((d) => d.id));
    // And back to the start from there, with nothing lost either.
    const backward = ids(res.body);
    while (res.body!['previous'] !== null) {
      res = await get(app, path(res.body!['previous']));
      backward.unshift(...ids(res.body));
    }
    expect(backward).toEqual(data.map((d) => d.id));
  });

  it('items inserted between requests are neither repeated nor make the walk skip old items', async () => {
    const data: Book[] = books(10);
    const { app } = await cursorApp(() => data, Keyset);
    const p1 = await get(app, '/items/');
    data.push({ id: 11, title: 'new', created: '2024-02-01' }); // newer than everything: before page 1
    data.push({ id: 12, title: 'mid', created: '2024-01-03' }); // between seen and unseen
    const p2 = await get(app, path(p1.body!['next']));
    expect(ids(p1.body)).toEqual([10, 9, 8, 7, 6]);
    expect(ids(p2.body)).toEqual([5, 4, 12, 3, 2]);
    const back = await get(app, path(p2.body!['previous']));
    expect(ids(back.body)).toEqual([10, 9, 8, 7, 6]);
    expect(back.body!['previous']).not.toBeNull(); // the new item 11 is now before page 1
  });

  it.each([
    ['garbage', 'abc'],
    ["DRF's unsigned format", 'cD0yMDI0LTAxLTA4'],
    ['a bad signature', 'eyJwIjpbIjIwMjQtMDEtMDgiLDhdfQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['two dots', 'a.b.c'],
    ['unicode', '%E2%9C%93.%E2%9C%93'],
  ])('%s is 404 {"detail": "Invalid cursor"}', async (_name, raw) => {
    const { app } = await cursorApp(() => books(12), Keyset);
    const res = await get(app, `/items/?cursor=${raw}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ detail: 'Invalid cursor' });
  });

  it('an empty cursor means the first page, as DRF', async () => {
    const { app } = await cursorApp(() => books(12));
    const res = await get(app, '/items/?cursor=');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([12, 11, 10, 9, 8]);
  });

  it('an edited cursor (payload changed, signature kept) is refused', async () => {
    const { app } = await cursorApp(() => books(12), Keyset);
    const next = String((await get(app, '/items/')).body!['next']);
    const token = new URL(next).searchParams.get('cursor')!;
    const [payload, sig] = token.split('.');
    const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), o: 3 })).toString('base64url');
    expect(await get(app, `/items/?cursor=${edited}.${sig}`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    expect((await get(app, `/items/?cursor=${token}`)).status).toBe(200);
  });

  it('a cursor from another view, another ordering or another SECRET_KEY is refused', async () => {
    const { app } = await cursorApp(() => books(12), Keyset);
    const token = new URL(String((await get(app, '/items/')).body!['next'])).searchParams.get('cursor')!;
    expect(await get(app, `/other/?cursor=${token}`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    class Other extends CursorPagination {
      override ordering = ['created', 'id'];
    }
    const { app: reordered } = await cursorApp(() => books(12), Other);
    expect(await get(reordered, `/items/?cursor=${token}`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    const { app: rekeyed } = await cursorApp(() => books(12), Keyset, { ...SECRET, SECRET_KEY: 'another' });
    expect(await get(rekeyed, `/items/?cursor=${token}`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
  });

  it('without SECRET_KEY cursors are signed with the development key, and a warning is logged once', async () => {
    const { app, warnings } = await cursorApp(() => books(12), Keyset, { PAGE_SIZE: 5 });
    const p1 = await get(app, '/items/');
    expect(ids((await get(app, path(p1.body!['next']))).body)).toEqual([7, 6, 5, 4, 3]);
    expect(warnings.filter((w) => w.includes('SECRET_KEY is not set'))).toHaveLength(1);
  });

  describe('client ordering (orderingFields)', () => {
    const view = { orderingFields: ['title', 'id'], ordering: ['-created', '-id'] };

    it('?ordering=id pages by id ascending and keeps the ordering in links', async () => {
      const { app } = await cursorApp(() => books(12), CursorPagination, SECRET, view);
      const p1 = await get(app, '/items/?ordering=id');
      expect(ids(p1.body)).toEqual([1, 2, 3, 4, 5]);
      expect(String(p1.body!['next'])).toContain('ordering=id');
      expect(ids((await get(app, path(p1.body!['next']))).body)).toEqual([6, 7, 8, 9, 10]);
    });

    it('unknown fields are ignored; all unknown falls back to the view ordering', async () => {
      const { app } = await cursorApp(() => books(12), CursorPagination, SECRET, view);
      expect(ids((await get(app, '/items/?ordering=secret,-id')).body)).toEqual([12, 11, 10, 9, 8]);
      expect(ids((await get(app, '/items/?ordering=password')).body)).toEqual([12, 11, 10, 9, 8]);
    });

    it('a cursor made under one ordering is refused under another', async () => {
      const { app } = await cursorApp(() => books(12), CursorPagination, SECRET, view);
      const next = String((await get(app, '/items/?ordering=id')).body!['next']);
      const token = new URL(next).searchParams.get('cursor')!;
      expect(await get(app, `/items/?ordering=-id&cursor=${token}`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    });
  });

  describe('NULLs in the ordering column', () => {
    const data = () => books(9).map((b) => (b.id % 3 === 0 ? { ...b, created: null } : b));

    it("the default placement (NULLs first descending, last ascending, as PostgreSQL): none is lost either way", async () => {
      const { app } = await cursorApp(data, Keyset);
      const desc = await walk(app, '/items/');
      expect(desc.forward).toEqual([9, 6, 3, 8, 7, 5, 4, 2, 1]);
      expect(desc.backward).toEqual(desc.forward);
      class Ascending extends CursorPagination {
        override ordering = ['created', 'id'];
        override pageSize = 2;
      }
      const { app: asc } = await cursorApp(data, Ascending);
      const up = await walk(asc, '/items/');
      expect(up.forward).toEqual([1, 2, 4, 5, 7, 8, 3, 6, 9]);
      expect(up.backward).toEqual(up.forward);
    });

    it("nulls: 'last' puts NULL rows last whatever the direction", async () => {
      class NullsLast extends Keyset {
        override nulls = 'last' as const;
      }
      const { app } = await cursorApp(data, NullsLast);
      const { forward, backward } = await walk(app, '/items/');
      expect(forward).toEqual([8, 7, 5, 4, 2, 1, 9, 6, 3]);
      expect(backward).toEqual(forward);
    });

    it("nulls: 'first' puts NULL rows first", async () => {
      class NullsFirst extends Keyset {
        override nulls = 'first' as const;
      }
      const { app } = await cursorApp(data, NullsFirst);
      const { forward, backward } = await walk(app, '/items/');
      expect(forward).toEqual([9, 6, 3, 8, 7, 5, 4, 2, 1]);
      expect(backward).toEqual(forward);
    });
  });

  it('a client page size (pageSizeQueryParam) is honoured and capped', async () => {
    class Sized extends Keyset {
      override pageSizeQueryParam = 'size';
      override maxPageSize = 3;
    }
    const { app } = await cursorApp(() => books(12), Sized);
    expect(ids((await get(app, '/items/?size=2')).body)).toEqual([12, 11]);
    expect(ids((await get(app, '/items/?size=50')).body)).toEqual([12, 11, 10]);
    expect(ids((await get(app, '/items/?size=zero')).body)).toEqual([12, 11, 10, 9, 8]);
  });

  it('an empty list has no links', async () => {
    const { app } = await cursorApp(() => []);
    expect(await get(app, '/items/')).toMatchObject({ status: 200, body: { next: null, previous: null, results: [] } });
  });
});
