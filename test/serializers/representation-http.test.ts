/**
 * What a serializer renders for a list of items whose attributes come and go
 * (DRF's `to_representation`): a missing optional attribute is left out or
 * rendered as its default, a `null` along a dotted source renders null, and
 * every item's keys come in the declared order, whichever of them it has.
 */
import { describe, expect, it } from 'vitest';
import { ListAPIView, createApp, integer, nested, path, serializer, string, type ApiRequest } from '../../src/index.js';

const Author = serializer({ name: string(), born: integer({ required: false }) });

const Book = serializer({
  '2': integer({ source: 'id', readOnly: true }),
  id: integer({ readOnly: true }),
  title: string(),
  author_name: string({ source: 'author.name', readOnly: true }),
  author: nested(Author, { readOnly: true }),
  whole: nested(serializer({ title: string(), id: integer({ required: false }) }), { source: '*', readOnly: true }),
  level: integer({ default: 3 }),
  secret: string({ writeOnly: true, required: false }),
});

interface Item {
  id?: number;
  title: string;
  author?: { name: string; born?: number } | null;
  level?: number;
  secret?: string;
}

const items: Item[] = [
  { id: 1, title: 'All', author: { name: 'Ann', born: 1970 }, level: 7, secret: 's' },
  { title: 'No id', author: null },
  { id: 3, title: 'No author' },
  { id: 4, title: 'Unborn', author: { name: 'Bo' }, level: 0 },
];

class Books extends ListAPIView<Item> {
  override authenticationClasses = [];
  override paginationClass = null;
  override serializer = Book;
  override getQueryset(_req: ApiRequest) {
    return items;
  }
}

describe('serializer output over items with and without each attribute', () => {
  it('renders each item as DRF does, keys in declared order', async () => {
    const app = await createApp({ logger: false, routes: [path('books/', Books)] });
    try {
      // Twice: the first request and a warm one render alike.
      for (let run = 0; run < 2; run++) {
        const res = await app.inject({ method: 'GET', url: '/books/' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.body).toBe(
          '[' +
            '{"2":1,"id":1,"title":"All","author_name":"Ann","author":{"name":"Ann","born":1970},"whole":{"title":"All","id":1},"level":7},' +
            '{"title":"No id","author_name":null,"author":null,"whole":{"title":"No id"},"level":3},' +
            '{"2":3,"id":3,"title":"No author","whole":{"title":"No author","id":3},"level":3},' +
            '{"2":4,"id":4,"title":"Unborn","author_name":"Bo","author":{"name":"Bo"},"whole":{"title":"Unborn","id":4},"level":0}' +
            ']',
        );
      }
    } finally {
      await app.close();
    }
  });
});
