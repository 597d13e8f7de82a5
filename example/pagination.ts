/**
 * Example list views, one per pagination style, over an in-memory book list
 * (swap `getQueryset` for `db.selectFrom('book').selectAll()` to page the
 * example's table). Mount with `...paginationRoutes`.
 */
import {
  CursorPagination,
  LimitOffsetPagination,
  LinkHeaderPagination,
  ListAPIView,
  NestedLinksPagination,
  PageNumberPagination,
  path,
  type RouteEntry,
} from '../src/index.js';

export interface ExampleBook {
  id: number;
  title: string;
  created: string;
}

export const exampleBooks: readonly ExampleBook[] = Array.from({ length: 42 }, (_, i) => ({
  id: i + 1,
  title: `Book ${i + 1}`,
  created: new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString(),
}));

class BookPages extends PageNumberPagination<ExampleBook> {
  override pageSize = 10;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

class BookLimitOffset extends LimitOffsetPagination<ExampleBook> {
  override defaultLimit = 10;
  override maxLimit = 100;
}

class BookCursor extends CursorPagination<ExampleBook> {
  override pageSize = 10;
  override ordering = ['-created', '-id'];
}

class BookNested extends NestedLinksPagination<ExampleBook> {
  override pageSize = 10;
}

class BookLinkHeader extends LinkHeaderPagination<ExampleBook> {
  override pageSize = 10;
}

function bookList(pagination: ListAPIView<ExampleBook>['paginationClass']) {
  return class extends ListAPIView<ExampleBook> {
    override paginationClass = pagination;
    override getQueryset() {
      return exampleBooks;
    }
  };
}

/** `GET /books/page-number/?page=2`, `/books/limit-offset/?limit=5&offset=10`, `/books/cursor/`, `/books/nested-links/`, `/books/link-header/`. */
export const paginationRoutes: RouteEntry[] = [
  path('books/page-number/', bookList(BookPages), { name: 'books-page-number' }),
  path('books/limit-offset/', bookList(BookLimitOffset), { name: 'books-limit-offset' }),
  path('books/cursor/', bookList(BookCursor), { name: 'books-cursor' }),
  path('books/nested-links/', bookList(BookNested), { name: 'books-nested-links' }),
  path('books/link-header/', bookList(BookLinkHeader), { name: 'books-link-header' }),
];
