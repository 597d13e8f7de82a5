/**
 * A versioned books API: URL-path versioning (`/v1/books/`, `/v2/books/`),
 * because a version in the path is visible in logs, links and browser bars,
 * and every cache keys on it without `Vary`.
 *
 *   GET /v1/books/      → [{ "id": 1, "title": "…", "author": "…" }]        (deprecated)
 *   GET /v2/books/      → [{ "url": "…/v2/books/1/", "id": 1, "title": "…", "authors": ["…"], "year": 1813 }]
 *   GET /v2/books/1/    → one book in the v2 shape
 *
 * v1 answers with `Deprecation`, `Sunset` and `Link: <…>; rel="deprecation"`.
 * Mount with `include('api/', versioningRoutes)` or at the root.
 */
import {
  ListAPIView,
  RetrieveAPIView,
  URLPathVersioning,
  computed,
  hyperlinkedIdentity,
  integer,
  list,
  path,
  serializer,
  string,
  type ApiRequest,
  type RouteEntry,
  type VersionDeprecation,
} from '../src/index.js';

export interface Book {
  id: number;
  title: string;
  authors: string[];
  year: number;
}

export const books: Book[] = [
  { id: 1, title: 'Pride and Prejudice', authors: ['Jane Austen'], year: 1813 },
  { id: 2, title: 'Good Omens', authors: ['Terry Pratchett', 'Neil Gaiman'], year: 1990 },
  { id: 3, title: 'The Left Hand of Darkness', authors: ['Ursula K. Le Guin'], year: 1969 },
];

/** v1 is deprecated since 2025-01-01 and stops working at the end of 2026. */
export class BookVersioning extends URLPathVersioning {
  override defaultVersion: string | null = 'v2';
  override allowedVersions: readonly string[] | null = ['v1', 'v2'];
  override deprecatedVersions: Readonly<Record<string, VersionDeprecation>> = {
    v1: {
      since: new Date('2025-01-01T00:00:00Z'),
      sunset: new Date('2026-12-31T23:59:59Z'),
      link: 'https://docs.example.com/books/migrating-to-v2',
    },
  };
}

/** The name of a route in the namespace of the current request, so the example works under any `include()`. */
function routeName(req: ApiRequest, name: string): string {
  const ns = req.resolverMatch?.namespace;
  return ns ? `${ns}:${name}` : name;
}

/** v1: one author as a string, no links. */
export const BookV1Serializer = serializer(
  {
    id: integer({ readOnly: true }),
    title: string(),
    author: computed((book: Book) => book.authors.join(', '), { type: 'string' }),
  },
  { name: 'BookV1' },
);

/** v2: a hyperlink (carrying the version), a list of authors and the year. */
export const BookV2Serializer = serializer(
  {
    url: hyperlinkedIdentity({ viewName: (req) => routeName(req, 'book-detail') }),
    id: integer({ readOnly: true }),
    title: string(),
    authors: list(string()),
    year: integer(),
  },
  { name: 'BookV2' },
);

export class BookList extends ListAPIView<Book, typeof BookV2Serializer> {
  override versioningClass = BookVersioning;
  override serializer = BookV2Serializer;
  override serializerByVersion = { v1: BookV1Serializer };
  override getQueryset(): Book[] {
    return books;
  }
}

export class BookDetail extends RetrieveAPIView<Book, typeof BookV2Serializer> {
  override versioningClass = BookVersioning;
  override serializer = BookV2Serializer;
  override serializerByVersion = { v1: BookV1Serializer };
  override getQueryset(): Book[] {
    return books;
  }
  protected override itemName(): string {
    return 'Book';
  }
}

export const versioningRoutes: RouteEntry[] = [
  path('<version>/books/', BookList, { name: 'book-list' }),
  path('<version>/books/<int:pk>/', BookDetail, { name: 'book-detail' }),
];
