import { afterEach, describe, expect, it } from 'vitest';
import { PageNumberPagination, type PaginationClass, type TrestleApp } from '../../src/index.js';
import { BASE, books, get, listView, serve } from './helpers.js';

let app: TrestleApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function pages(n: number, pagination: PaginationClass = PageNumberPagination, settings = { PAGE_SIZE: 5 }) {
  const s = await serve(listView(() => books(n), pagination), settings);
  app = s.app;
  return s;
}

describe('PageNumberPagination on an array', () => {
  it('first page: count, next link with page=2, no previous, first PAGE_SIZE items', async () => {
    await pages(12);
    const res = await get(app!, '/items/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ count: 12, next: `${BASE}/items/?page=2`, previous: null, results: books(12).slice(0, 5) });
  });

  it('page 2 links back to the URL without page; other params are kept and sorted by name', async () => {
    await pages(12);
    const res = await get(app!, '/items/?z=1&page=2&a=x+y');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      count: 12,
      next: `${BASE}/items/?a=x+y&page=3&z=1`,
      previous: `${BASE}/items/?a=x+y&z=1`,
    });
    expect((res.body!['results'] as { id: number }[]).map((b) => b.id)).toEqual([6, 7, 8, 9, 10]);
  });

  it('the last page has no next and a previous with page=n-1', async () => {
    await pages(12);
    const res = await get(app!, '/items/?page=3');
    expect(res.body).toEqual({ count: 12, next: null, previous: `${BASE}/items/?page=2`, results: books(12).slice(10) });
  });

  it('page=last serves the final page', async () => {
    await pages(12);
    const res = await get(app!, '/items/?page=last');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 12, next: null, previous: `${BASE}/items/?page=2`, results: books(12).slice(10) });
  });

  it('an empty page value means page 1', async () => {
    await pages(12);
    const res = await get(app!, '/items/?page=');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 12, previous: null, next: `${BASE}/items/?page=2` });
  });

  it("accepts what Python's int() accepts: whitespace, a sign, underscores, Unicode digits", async () => {
    await pages(30);
    for (const raw of ['%202%20', '+2', '0_2', '%D9%A2']) {
      const res = await get(app!, `/items/?page=${raw}`);
      expect(res.status, raw).toBe(200);
      expect((res.body!['results'] as { id: number }[])[0]!.id, raw).toBe(6);
      expect(res.body!['next'], raw).toBe(`${BASE}/items/?page=3`);
    }
  });

  it.each(['0', '-1', 'abc', '1.0', '4', '99999999999999999999999', '1__0', '_1', 'last1', '0x1'])(
    'page=%s is 404 {"detail": "Invalid page."}',
    async (raw) => {
      await pages(12);
      const res = await get(app!, `/items/?page=${raw}`);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual({ detail: 'Invalid page.' });
    },
  );

  it('page 1 of an empty list is valid; page 2 is not', async () => {
    await pages(0);
    expect(await get(app!, '/items/')).toMatchObject({ status: 200, body: { count: 0, next: null, previous: null, results: [] } });
    expect(await get(app!, '/items/?page=2')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
  });

  it('without a page size the list is not paginated, and a warning is logged once', async () => {
    const s = await pages(3, PageNumberPagination, {} as { PAGE_SIZE: number });
    const res = await get(app!, '/items/?page=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(books(3));
    expect(s.warnings.filter((w) => w.includes('PageNumberPagination is set but has no page size'))).toHaveLength(1);
  });

  it('a subclass pageSize wins over PAGE_SIZE and gives no warning', async () => {
    class Two extends PageNumberPagination {
      override pageSize = 2;
    }
    const s = await pages(5, Two, {} as { PAGE_SIZE: number });
    const res = await get(app!, '/items/');
    expect(res.body).toMatchObject({ count: 5, next: `${BASE}/items/?page=2` });
    expect((res.body!['results'] as unknown[]).length).toBe(2);
    expect(s.warnings).toEqual([]);
  });

  describe('client page size', () => {
    class Sized extends PageNumberPagination {
      override pageSizeQueryParam = 'page_size';
      override maxPageSize = 4;
    }

    it('page_size chooses the size, capped by maxPageSize, and is kept in links', async () => {
      await pages(10, Sized);
      const res = await get(app!, '/items/?page_size=3&page=2');
      expect(res.body).toMatchObject({ count: 10, next: `${BASE}/items/?page=3&page_size=3`, previous: `${BASE}/items/?page_size=3` });
      expect((res.body!['results'] as { id: number }[]).map((b) => b.id)).toEqual([4, 5, 6]);
      const capped = await get(app!, '/items/?page_size=100');
      expect((capped.body!['results'] as unknown[]).length).toBe(4);
    });

    it.each(['0', '-3', 'x', '', '2.5'])('page_size=%s falls back to pageSize', async (raw) => {
      await pages(10, Sized);
      const res = await get(app!, `/items/?page_size=${raw}`);
      expect(res.status).toBe(200);
      expect((res.body!['results'] as unknown[]).length).toBe(5);
    });
  });

  it('invalidPageMessage is overridable and may quote the page number', async () => {
    class Custom extends PageNumberPagination {
      override invalidPageMessage = 'No page {page_number}: {message}.';
    }
    await pages(3, Custom);
    const res = await get(app!, '/items/?page=7');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'No page 7: That page contains no results.' });
  });

  it('paginationClass = null switches pagination off even with DEFAULT_PAGINATION_CLASS', async () => {
    const s = await serve(listView(() => books(7), null), { PAGE_SIZE: 2, DEFAULT_PAGINATION_CLASS: PageNumberPagination });
    app = s.app;
    const res = await get(app, '/items/');
    expect(res).toMatchObject({ status: 200, body: books(7) });
  });

  it('DEFAULT_PAGINATION_CLASS applies to a view that does not set its own', async () => {
    const s = await serve(listView(() => books(3), undefined), { PAGE_SIZE: 2, DEFAULT_PAGINATION_CLASS: PageNumberPagination });
    app = s.app;
    expect(await get(app, '/items/?page=2')).toMatchObject({ status: 200, body: { count: 3, next: null, previous: `${BASE}/items/` } });
  });
});
