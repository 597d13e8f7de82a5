import { afterEach, describe, expect, it } from 'vitest';
import { LimitOffsetPagination, type PaginationClass, type TrestleApp } from '../../src/index.js';
import { BASE, books, get, listView, serve } from './helpers.js';

let app: TrestleApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function list(n: number, pagination: PaginationClass = LimitOffsetPagination, settings: { PAGE_SIZE?: number } = { PAGE_SIZE: 5 }) {
  const s = await serve(listView(() => books(n), pagination), settings);
  app = s.app;
  return s;
}
const ids = (body: Record<string, unknown> | null) => (body!['results'] as { id: number }[]).map((b) => b.id);

describe('LimitOffsetPagination on an array', () => {
  it('no parameters: defaultLimit items from 0, next with limit and offset, no previous', async () => {
    await list(12);
    const res = await get(app!, '/items/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ count: 12, next: `${BASE}/items/?limit=5&offset=5`, previous: null, results: books(12).slice(0, 5) });
  });

  it('offset <= limit links previous without offset; links keep other params sorted', async () => {
    await list(12);
    const res = await get(app!, '/items/?offset=3&limit=4&q=a');
    expect(res.body).toMatchObject({ count: 12, next: `${BASE}/items/?limit=4&offset=7&q=a`, previous: `${BASE}/items/?limit=4&q=a` });
    expect(ids(res.body)).toEqual([4, 5, 6, 7]);
  });

  it('the last page has no next and previous with offset - limit', async () => {
    await list(12);
    const res = await get(app!, '/items/?limit=4&offset=10');
    expect(res.body).toMatchObject({ count: 12, next: null, previous: `${BASE}/items/?limit=4&offset=6` });
    expect(ids(res.body)).toEqual([11, 12]);
  });

  it('offset past the end gives no results but links back', async () => {
    await list(12);
    const res = await get(app!, '/items/?limit=4&offset=50');
    expect(res).toMatchObject({ status: 200, body: { count: 12, next: null, previous: `${BASE}/items/?limit=4&offset=46`, results: [] } });
  });

  it('offset equal to count still slices (empty) as DRF does', async () => {
    await list(4);
    const res = await get(app!, '/items/?limit=2&offset=4');
    expect(res.body).toEqual({ count: 4, next: null, previous: `${BASE}/items/?limit=2&offset=2`, results: [] });
  });

  it.each(['0', '-1', 'x', '', '1.5'])('limit=%s falls back to defaultLimit', async (raw) => {
    await list(12);
    const res = await get(app!, `/items/?limit=${raw}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 12, next: `${BASE}/items/?limit=5&offset=5` });
    expect(ids(res.body)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each(['-1', 'x', '', '2.0'])('offset=%s is treated as 0', async (raw) => {
    await list(12);
    const res = await get(app!, `/items/?limit=3&offset=${raw}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ previous: null, next: `${BASE}/items/?limit=3&offset=3` });
    expect(ids(res.body)).toEqual([1, 2, 3]);
  });

  it('limit and offset are normalised as Python ints in links (" +0_3 " → 3)', async () => {
    await list(12);
    const res = await get(app!, '/items/?limit=%20%2B0_3%20&offset=0_6');
    expect(res.body).toMatchObject({ next: `${BASE}/items/?limit=3&offset=9`, previous: `${BASE}/items/?limit=3&offset=3` });
    expect(ids(res.body)).toEqual([7, 8, 9]);
  });

  it('a huge limit and offset stay exact in links and never fail', async () => {
    await list(3);
    const big = '123456789012345678901234567890';
    const res = await get(app!, `/items/?limit=${big}&offset=${big}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 3, next: null, previous: `${BASE}/items/?limit=${big}`, results: [] });
  });

  it('maxLimit caps the requested limit', async () => {
    class Capped extends LimitOffsetPagination {
      override maxLimit = 2;
    }
    await list(12, Capped);
    const res = await get(app!, '/items/?limit=100');
    expect(res.body).toMatchObject({ next: `${BASE}/items/?limit=2&offset=2` });
    expect(ids(res.body)).toEqual([1, 2]);
  });

  it('without PAGE_SIZE or defaultLimit: unpaginated unless the client sends limit, with a start-up warning', async () => {
    const s = await list(4, LimitOffsetPagination, {});
    expect(await get(app!, '/items/')).toMatchObject({ status: 200, body: books(4) });
    expect(await get(app!, '/items/?limit=2')).toMatchObject({ status: 200, body: { count: 4, next: `${BASE}/items/?limit=2&offset=2` } });
    expect(s.warnings.filter((w) => w.includes('no default limit'))).toHaveLength(1);
  });

  it('an empty list answers count 0 and no links', async () => {
    await list(0);
    expect(await get(app!, '/items/?offset=3')).toMatchObject({ status: 200, body: { count: 0, next: null, previous: `${BASE}/items/?limit=5`, results: [] } });
  });
});
