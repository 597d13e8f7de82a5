import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorPagination, LimitOffsetPagination, PageNumberPagination, type TrestleApp } from '../../src/index.js';
import { get, listView, serve, walk } from './helpers.js';

interface Row {
  id: number;
  v: number | null;
}

describe('properties', () => {
  it('cursor walks over random tables and page sizes visit every row once, forward and back (keyset and non-unique)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom<readonly string[]>(['v', 'id'], ['-v', '-id'], ['v'], ['-v'], ['id']),
        fc.constantFrom<'first' | 'last'>('first', 'last'),
        async (values, size, ordering, nulls) => {
          const rows: Row[] = values.map((v, i) => ({ id: i + 1, v }));
          class P extends CursorPagination {
            override pageSize = size;
            override ordering = ordering;
            override nulls = nulls;
          }
          const { app } = await serve(listView(() => rows, P), { SECRET_KEY: 'k' });
          try {
            const { forward, backward } = await walk(app, '/items/');
            expect([...forward].sort((a, b) => Number(a) - Number(b))).toEqual(rows.map((r) => r.id));
            expect(backward).toEqual(forward);
          } finally {
            await app.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('page-number and limit/offset walks cover every row once for random sizes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 8 }), async (n, size) => {
        const rows = Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
        class P extends PageNumberPagination {
          override pageSize = size;
        }
        class L extends LimitOffsetPagination {
          override defaultLimit = size;
        }
        const { app } = await serve(listView(() => rows, P), {}, [['lo/', listView(() => rows, L)]]);
        try {
          for (const start of ['/items/', '/lo/']) {
            const { forward, backward } = await walk(app, start);
            expect(forward).toEqual(rows.map((r) => r.id));
            expect(backward).toEqual(forward);
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 30 },
    );
  });

  describe('random query strings', () => {
    let app: TrestleApp;
    beforeAll(async () => {
      const rows = Array.from({ length: 17 }, (_, i) => ({ id: i + 1, created: i % 4 }));
      class Sized extends PageNumberPagination {
        override pageSizeQueryParam = 'page_size';
      }
      class C extends CursorPagination {
        override pageSizeQueryParam = 'page_size';
      }
      ({ app } = await serve(listView(() => rows, Sized), { PAGE_SIZE: 5, SECRET_KEY: 'k' }, [
        ['lo/', listView(() => rows, LimitOffsetPagination)],
        ['cur/', listView(() => rows, C)],
      ]));
    });
    afterAll(() => app.close());

    it('feeding random strings as page, page_size, limit, offset and cursor answers only 200 or 404 JSON', async () => {
      const text = fc.oneof(fc.string(), fc.stringMatching(/^[ +\-_0-9.eE]{0,8}$/), fc.base64String(), fc.integer().map(String));
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('/items/?page=', '/items/?page_size=', '/lo/?limit=', '/lo/?offset=', '/cur/?cursor=', '/cur/?page_size='), text, async (prefix, value) => {
          const res = await app.inject({ method: 'GET', url: prefix + encodeURIComponent(value) });
          expect([200, 404]).toContain(res.statusCode);
          expect(res.headers['content-type']).toBe('application/json');
          const body = JSON.parse(res.body) as Record<string, unknown>;
          if (res.statusCode === 404) expect(body['detail']).toMatch(/^Invalid (page\.|cursor)$/);
          else expect(Array.isArray(body['results'])).toBe(true);
        }),
        { numRuns: 200 },
      );
    });
  });
});
