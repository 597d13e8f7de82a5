import { afterEach, describe, expect, it } from 'vitest';
import { ListAPIView, PageNumberPagination, type Source, type TrestleApp } from '../../src/index.js';
import type { ApiRequest } from '../../src/request.js';
import { BASE, books, get, serve, type Book } from '../pagination/helpers.js';

// list() awaits only steps that answer with a promise: a view whose steps
// answer at once, one whose steps answer with promises (or thenables), and
// one that overrides loadRelatedRows all give the same responses.
let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

const expected = {
  status: 200,
  body: { count: 7, next: null, previous: `${BASE}/items/`, results: books(7).slice(5) },
};

class Paged extends PageNumberPagination {
  override pageSize = 5;
}

describe('list steps', () => {
  it('answer the same whether the steps are synchronous, promises or thenables', async () => {
    const calls: string[] = [];
    class Plain extends ListAPIView<Book> {
      override paginationClass = Paged;
      override getQueryset(): Source<Book> | Promise<Source<Book>> {
        return books(7);
      }
    }
    class Async extends Plain {
      override async getQueryset(): Promise<Source<Book>> {
        return books(7);
      }
      override filterQueryset(_req: ApiRequest, source: Source<Book>): Source<Book> | Promise<Source<Book>> {
        // A thenable that is not a promise.
        return { then: (resolve: (s: Source<Book>) => void) => resolve(source) } as unknown as Promise<Source<Book>>;
      }
    }
    class Related extends Plain {
      override async loadRelatedRows(_req: ApiRequest, rows: Book[]): Promise<Book[]> {
        calls.push(`related ${rows.length}`);
        return rows.map((r) => ({ ...r, title: r.title.toUpperCase() }));
      }
    }
    class Throws extends Plain {
      override getQueryset(): Source<Book> {
        throw new Error('boom');
      }
    }
    ({ app } = await serve(Plain as never, {}, [
      ['async/', Async as never],
      ['related/', Related as never],
      ['throws/', Throws as never],
    ]));
    expect(await get(app, '/items/?page=2')).toMatchObject(expected);
    const asyncPage = await get(app, '/async/?page=2');
    expect(asyncPage).toMatchObject({ status: 200, body: { ...expected.body, previous: `${BASE}/async/` } });
    const related = await get(app, '/related/?page=2');
    expect(related.body!['results']).toEqual(books(7).slice(5).map((b) => ({ ...b, title: b.title.toUpperCase() })));
    expect(calls).toEqual(['related 2']);
    expect((await get(app, '/throws/')).status).toBe(500);
  });
});
