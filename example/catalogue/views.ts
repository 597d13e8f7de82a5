import {
  AllowAny,
  ApiRequest,
  CursorPagination,
  IsAuthenticatedOrReadOnly,
  LimitOffsetPagination,
  LinkHeaderPagination,
  ListAPIView,
  ModelViewSet,
  PageNumberPagination,
  ReadOnlyModelViewSet,
  datetime,
  hyperlinkedIdentity,
  hyperlinkedRelated,
  integer,
  reverse,
  serializer,
  string,
  type Infer,
  type SerializeContext,
} from '../../src/index.js';
import type { AuthorRow, BookRow } from './migrations.js';

function db(req: ApiRequest) {
  return req.app.services.get('db');
}

/** Page-number pages of 20; clients may ask for up to 100 with `?page_size=`. */
export class BookPagination extends PageNumberPagination<BookRow> {
  override pageSize = 20;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

/** `?limit=&offset=`, 20 by default, at most 100. */
export class AuthorPagination extends LimitOffsetPagination<AuthorRow> {
  override defaultLimit = 20;
  override maxLimit = 100;
}

/** Newest first; `id` breaks ties, so pages are a pure keyset (no offsets). */
export class BookFeedPagination extends CursorPagination<BookRow> {
  override pageSize = 20;
  override ordering = ['-created', '-id'];
}

/** The custom style: links in a `Link` header, the body is the list itself. */
export class BookLinkPagination extends LinkHeaderPagination<BookRow> {
  override pageSize = 20;
}

/**
 * A book as the API shows and accepts it: hyperlinked to itself and its
 * author. The author's URL is accepted back, so a client can PUT a book as
 * it fetched it.
 */
export const BookSerializer = serializer(
  {
    url: hyperlinkedIdentity({ viewName: 'book-detail' }),
    id: integer({ readOnly: true }),
    title: string({ maxLength: 200 }),
    author: hyperlinkedRelated({
      viewName: 'author-detail',
      source: 'author_id',
      queryset: (req) => db(req).selectFrom('catalogue_author').selectAll(),
    }),
    year: integer({ minValue: 0, maxValue: 3000 }),
    isbn: string({ maxLength: 20 }),
    created: datetime({ readOnly: true }),
  },
  { name: 'Book' },
);

/**
 * The catalogue's books: anyone may read, signed-in users may write.
 *
 *     GET /api/books/?page=2            page-number pagination
 *     POST /api/books/                  {"title": …, "author": "http://…/api/authors/1/", "year": 1999, "isbn": "…"}
 *     GET|PUT|PATCH|DELETE /api/books/7/
 */
export class BookViewSet extends ModelViewSet<BookRow, typeof BookSerializer> {
  static override description = 'Books of the catalogue. Anyone may read; authenticated users may add, change and delete.';
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override paginationClass = BookPagination;
  override serializer = BookSerializer;

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_book').selectAll().orderBy('id');
  }

  override filterQueryset(req: ApiRequest, source: ReturnType<BookViewSet['getQueryset']>) {
    const author = req.query['author'];
    return author && /^\d{1,9}$/.test(author) ? source.where('author_id', '=', Number(author)) : source;
  }

  protected override itemName(): string {
    return 'Book';
  }

  override async performCreate(req: ApiRequest, data: Infer<typeof BookSerializer>['input']): Promise<BookRow> {
    return db(req)
      .insertInto('catalogue_book')
      .values({ title: data.title, author_id: data.author.id, year: data.year, isbn: data.isbn, created: new Date().toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  override async performUpdate(req: ApiRequest, book: BookRow, data: Partial<Infer<typeof BookSerializer>['input']>): Promise<BookRow> {
    const changes: Partial<BookRow> = {};
    if (data.title !== undefined) changes.title = data.title;
    if (data.author !== undefined) changes.author_id = data.author.id;
    if (data.year !== undefined) changes.year = data.year;
    if (data.isbn !== undefined) changes.isbn = data.isbn;
    if (Object.keys(changes).length === 0) return book;
    return db(req).updateTable('catalogue_book').set(changes).where('id', '=', book.id).returningAll().executeTakeFirstOrThrow();
  }

  override async performDestroy(req: ApiRequest, book: BookRow): Promise<void> {
    await db(req).deleteFrom('catalogue_book').where('id', '=', book.id).execute();
  }
}

/**
 * Authors, read-only, with limit/offset pagination and `?search=` on the name.
 *
 *     GET /api/authors/?limit=10&offset=40&search=le
 */
export class AuthorViewSet extends ReadOnlyModelViewSet<AuthorRow> {
  static override description = 'Authors of the catalogue, searchable by name.';
  override permissionClasses = [AllowAny];
  override paginationClass = AuthorPagination;

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_author').selectAll().orderBy('id');
  }

  override filterQueryset(req: ApiRequest, source: ReturnType<AuthorViewSet['getQueryset']>) {
    // No text column holds a NUL (PostgreSQL refuses one in a query): it cannot match, drop it.
    const term = req.query[this.app.settings.SEARCH_PARAM]?.replaceAll('\u0000', '').trim();
    if (!term) return source;
    const escaped = term.slice(0, 100).replace(/[\\%_]/g, (c) => `\\${c}`);
    return source.where((eb) => eb(eb.fn('lower', ['name']), 'like', `%${escaped.toLowerCase()}%`));
  }

  override serialize(author: AuthorRow, ctx: SerializeContext): unknown {
    return {
      url: reverse('author-detail', { pk: author.id }, { request: ctx.request }),
      id: author.id,
      name: author.name,
      country: author.country,
      books: `${reverse('book-list', {}, { request: ctx.request })}?author=${author.id}`,
    };
  }

  protected override itemName(): string {
    return 'Author';
  }
}

/**
 * Every book, newest first, paged by an opaque signed cursor: stable while
 * books are added, and as fast on the last page as on the first.
 *
 *     GET /api/feed/            {"next": "…?cursor=…", "previous": null, "results": [...]}
 */
export class BookFeed extends ListAPIView<BookRow, typeof BookSerializer> {
  static override description = 'Newest books first, with cursor pagination.';
  override permissionClasses = [AllowAny];
  override paginationClass = BookFeedPagination;

  override serializer = BookSerializer;

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_book').selectAll();
  }
}

/**
 * The same books with the custom Link-header style (RFC 8288):
 *
 *     GET /api/shelf/?page=2
 *     Link: <http://…/api/shelf/?page=3>; rel="next", <http://…/api/shelf/>; rel="prev"
 */
export class BookShelf extends ListAPIView<BookRow, typeof BookSerializer> {
  static override description = 'Books with pagination links in the Link header.';
  override permissionClasses = [AllowAny];
  override paginationClass = BookLinkPagination;

  override serializer = BookSerializer;

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_book').selectAll().orderBy('id');
  }
}
