import { describe, expect, it } from 'vitest';
import { ListAPIView, RetrieveAPIView, createApp, hyperlinkedIdentity, hyperlinkedRelated, path, registerConverter, serializer } from '../../src/index.js';

// A page's links are reversed once per request and filled with each row's key
// where the route writes the key's digits as they are; every other route still
// goes through reverse per row. Either way the links are the ones reverse gives.
interface Book {
  id: number;
  author_id: number | string;
}

registerConverter('five', {
  regex: /^\d{5}$/,
  toValue: (s) => Number(s),
  toUrl: (v) => String(v).padStart(5, '0'),
});

const books: Book[] = [
  { id: 1, author_id: 2 },
  { id: 30, author_id: 4 },
  { id: 9_007_199_254_740_991, author_id: '7' },
];

const BookSerializer = serializer({
  url: hyperlinkedIdentity({ viewName: 'book-detail' }),
  author: hyperlinkedRelated({ viewName: 'author-detail', source: 'author_id', readOnly: true }),
  shelf: hyperlinkedRelated({ viewName: 'shelf-detail', source: 'author_id', readOnly: true }),
});

class BookList extends ListAPIView<Book, typeof BookSerializer> {
  override authenticationClasses = [];
  override paginationClass = null;
  override serializer = BookSerializer;
  override getQueryset() {
    return books;
  }
}

class Detail extends RetrieveAPIView<Book> {
  override authenticationClasses = [];
  override getQueryset() {
    return books;
  }
}

const routes = [
  path('books/', BookList),
  path('books/<int:pk>/', Detail, { name: 'book-detail' }),
  // uuid refuses digits: reverse takes the next route of the name, whose converter pads.
  path('authors/<uuid:pk>/', Detail, { name: 'author-detail' }),
  path('authors/<five:pk>/', Detail, { name: 'author-detail' }),
  path('shelves/<str:pk>/x/', Detail, { name: 'shelf-detail' }),
];

describe('hyperlinks of a page', () => {
  it("follow each app's own routes when two apps render the same serializer, request after request", async () => {
    const other = [path('v2/books/', BookList), path('v2/books/<int:pk>/', Detail, { name: 'book-detail' }), ...routes.slice(2)];
    const [one, two] = [await createApp({ logger: false, routes }), await createApp({ logger: false, routes: other })];
    try {
      for (let round = 0; round < 2; round++) {
        const a = await one.inject({ url: '/books/', headers: { host: 'localhost' } });
        const b = await two.inject({ url: '/v2/books/?format=json', headers: { host: 'localhost:8000' } });
        expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
        expect(a.headers['content-type']).toBe('application/json');
        expect((a.json() as { url: string }[]).map((x) => x.url)).toEqual([
          'http://localhost/books/1/',
          'http://localhost/books/30/',
          'http://localhost/books/9007199254740991/',
        ]);
        expect((b.json() as { url: string; author: string }[]).map((x) => [x.url, x.author])).toEqual([
          ['http://localhost:8000/v2/books/1/?format=json', 'http://localhost:8000/authors/00002/?format=json'],
          ['http://localhost:8000/v2/books/30/?format=json', 'http://localhost:8000/authors/00004/?format=json'],
          ['http://localhost:8000/v2/books/9007199254740991/?format=json', 'http://localhost:8000/authors/00007/?format=json'],
        ]);
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('are what reverse gives for each row: plain digits, a converter of the app, a string key, the format kept', async () => {
    const app = await createApp({ logger: false, routes });
    try {
      const res = await app.inject({ url: '/books/?format=json', headers: { host: 'localhost' } });
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/json']);
      expect(res.json()).toEqual([
        { url: 'http://localhost/books/1/?format=json', author: 'http://localhost/authors/00002/?format=json', shelf: 'http://localhost/shelves/2/x/?format=json' },
        { url: 'http://localhost/books/30/?format=json', author: 'http://localhost/authors/00004/?format=json', shelf: 'http://localhost/shelves/4/x/?format=json' },
        {
          url: 'http://localhost/books/9007199254740991/?format=json',
          author: 'http://localhost/authors/00007/?format=json',
          shelf: 'http://localhost/shelves/7/x/?format=json',
        },
      ]);
      const plain = await app.inject({ url: '/books/', headers: { host: 'localhost:8000' } });
      expect(plain.statusCode).toBe(200);
      expect((plain.json() as { url: string }[]).map((b) => b.url)).toEqual([
        'http://localhost:8000/books/1/',
        'http://localhost:8000/books/30/',
        'http://localhost:8000/books/9007199254740991/',
      ]);
    } finally {
      await app.close();
    }
  });
});
