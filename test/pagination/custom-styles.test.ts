import { afterEach, describe, expect, it } from 'vitest';
import {
  APIView,
  CursorPagination,
  LimitOffsetPagination,
  LinkHeaderPagination,
  NestedLinksPagination,
  PageNumberPagination,
  createApp,
  path,
  type TrestleApp,
} from '../../src/index.js';
import type { ApiRequest } from '../../src/request.js';
import { BASE, books, get, listView, serve } from './helpers.js';

let app: TrestleApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('custom styles and the interface', () => {
  it('NestedLinksPagination answers {links: {next, previous}, count, results}', async () => {
    ({ app } = await serve(listView(() => books(7), NestedLinksPagination), { PAGE_SIZE: 3 }));
    const res = await get(app, '/items/?page=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ links: { next: `${BASE}/items/?page=3`, previous: `${BASE}/items/` }, count: 7, results: books(7).slice(3, 6) });
  });

  it('LinkHeaderPagination puts RFC 8288 links in a Link header and only the results in the body', async () => {
    ({ app } = await serve(listView(() => books(7), LinkHeaderPagination), { PAGE_SIZE: 3 }));
    const res = await get(app, '/items/?page=2');
    expect(res.status).toBe(200);
    expect(res.headers['link']).toBe(`<${BASE}/items/?page=3>; rel="next", <${BASE}/items/>; rel="prev"`);
    expect(res.body).toEqual(books(7).slice(3, 6));
    const single = await get(app, '/items/?page=9');
    expect(single).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
  });

  it('a plain APIView paginates by hand with paginate() then paginatedResponse()', async () => {
    class Handmade extends APIView {
      private paginator!: PageNumberPagination<{ id: number }>;
      protected override onBind(): void {
        this.paginator = new PageNumberPagination(this.app);
        this.paginator.pageSize = 2;
      }
      async get(req: ApiRequest) {
        const page = await this.paginator.paginate(books(5), req, this);
        return this.paginator.paginatedResponse(page!.map((b) => ({ id: b.id })), req);
      }
    }
    app = await createApp({ logger: false, routes: [path('hand/', Handmade)] });
    expect(await get(app, '/hand/?page=3')).toMatchObject({ status: 200, body: { count: 5, next: null, previous: `${BASE}/hand/?page=2`, results: [{ id: 5 }] } });
    expect(await get(app, '/hand/?page=x')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
  });

  it("schemaParameters carry DRF's names and descriptions", async () => {
    app = await createApp({ logger: false, settings: { PAGE_SIZE: 5 } });
    const ctx = app.trestle;
    class Sized extends PageNumberPagination {
      override pageSizeQueryParam = 'page_size';
    }
    expect(new Sized(ctx).schemaParameters(null)).toEqual([
      { name: 'page', required: false, in: 'query', description: 'A page number within the paginated result set.', schema: { type: 'integer' } },
      { name: 'page_size', required: false, in: 'query', description: 'Number of results to return per page.', schema: { type: 'integer' } },
    ]);
    expect(new LimitOffsetPagination(ctx).schemaParameters(null).map((p) => [p.name, p.description])).toEqual([
      ['limit', 'Number of results to return per page.'],
      ['offset', 'The initial index from which to return the results.'],
    ]);
    expect(new CursorPagination(ctx).schemaParameters(null)).toEqual([
      { name: 'cursor', required: false, in: 'query', description: 'The pagination cursor value.', schema: { type: 'string' } },
    ]);
    expect(new CursorPagination(ctx).paginatedResponseSchema({ type: 'array' })).toMatchObject({ required: ['results'], properties: { results: { type: 'array' } } });
  });

  it('htmlContext gives DRF page links with breaks, and null when template is null', async () => {
    class Html extends PageNumberPagination {
      override pageSize = 1;
    }
    class NoControls extends Html {
      override template = null;
    }
    const seen: unknown[] = [];
    class Probe extends APIView {
      private p!: PageNumberPagination;
      private q!: PageNumberPagination;
      protected override onBind(): void {
        this.p = new Html(this.app);
        this.q = new NoControls(this.app);
      }
      async get(req: ApiRequest) {
        await this.p.paginate(books(10), req, this);
        seen.push(this.p.htmlContext(req));
        await this.q.paginate(books(10), req, this);
        seen.push(this.q.htmlContext(req));
        return { ok: true };
      }
    }
    app = await createApp({ logger: false, routes: [path('p/', Probe)] });
    expect((await get(app, '/p/?page=6')).status).toBe(200);
    const ctx = seen[0] as { page_links: { number: number | null; is_active: boolean; is_break: boolean }[]; previous_url: string };
    expect(ctx.page_links.map((l) => (l.is_break ? '…' : l.number))).toEqual([1, '…', 5, 6, 7, '…', 10]);
    expect(ctx.page_links.find((l) => l.is_active)?.number).toBe(6);
    expect(ctx.previous_url).toBe(`${BASE}/p/?page=5`);
    expect(seen[1]).toBeNull();
  });
});
