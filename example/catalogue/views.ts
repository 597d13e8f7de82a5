import {
  AllowAny,
  ApiRequest,
  computed,
  CursorPagination,
  FilterSetBackend,
  IsAuthenticatedOrReadOnly,
  LimitOffsetPagination,
  LinkHeaderPagination,
  ListAPIView,
  ModelViewSet,
  OrderingFilter,
  PageNumberPagination,
  ReadOnlyModelViewSet,
  SearchFilter,
  datetime,
  filterSet,
  hyperlinkedIdentity,
  hyperlinkedRelated,
  integer,
  Response,
  reverse,
  serializer,
  string,
  type ExtraAction,
  type Infer,
  type ViewOpenAPI,
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

/** `?author=3`, `?author__in=1,2`, `?year__gte=1970&year__lte=1979`, `?isbn=…`, `?created__gte=2024-01-01`. */
export const BookFilters = filterSet({
  author: { type: 'integer', column: 'author_id', lookups: ['exact', 'in'] },
  year: { type: 'integer', lookups: ['exact', 'gt', 'gte', 'lt', 'lte', 'range'] },
  isbn: { type: 'string', lookups: ['exact'] },
  created: { type: 'datetime', lookups: ['gte', 'lte'] },
});

/** An author, with a link to their books (the book list filtered by author). */
export const AuthorSerializer = serializer(
  {
    url: hyperlinkedIdentity({ viewName: 'author-detail' }),
    id: integer({ readOnly: true }),
    name: string({ maxLength: 200 }),
    country: string({ maxLength: 100, allowBlank: true }),
    books: computed(
      (author: AuthorRow, ctx) => `${reverse('book-list', {}, { request: ctx.request! })}?author=${author.id}`,
      { type: 'string', format: 'uri' },
    ),
  },
  { name: 'Author' },
);

/**
 * The catalogue's books: anyone may read, signed-in users may write.
 *
 *     GET /api/books/?page=2            page-number pagination
 *     GET /api/books/?search=le%20guin&ordering=-year&year__gte=1970
 *     POST /api/books/                  {"title": …, "author": "http://…/api/authors/1/", "year": 1999, "isbn": "…"}
 *     GET|PUT|PATCH|DELETE /api/books/7/
 *     POST /api/books/7/favourite/      marks the book a favourite of the signed-in user (201, or 200 if it was)
 */
export class BookViewSet extends ModelViewSet<BookRow, typeof BookSerializer> {
  static override description =
    'Books of the catalogue. Anyone may read; authenticated users may add, change and delete. ' +
    'Search by title or author name, order by id, title, year or created, filter by author, year range and ISBN.';
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override paginationClass = BookPagination;
  override serializer = BookSerializer;
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  searchFields = ['title', 'author_name'];
  orderingFields = ['id', 'title', 'year', 'created'];
  ordering = 'id';
  filterset = BookFilters;
  static extraActions: readonly ExtraAction[] = [{ name: 'favourite', detail: true, methods: ['post'] }];

  /** Books with their author's name, as a derived table so every column keeps its plain name. */
  override getQueryset(req: ApiRequest) {
    const d = db(req);
    const joined = d
      .selectFrom('catalogue_book as b')
      .innerJoin('catalogue_author as a', 'a.id', 'b.author_id')
      .selectAll('b')
      .select('a.name as author_name');
    return d.selectFrom(joined.as('book')).selectAll().orderBy('id');
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

  /**
   * `POST /api/books/<pk>/favourite/` (DRF's `@action(detail=True, methods=['post'])`):
   * marks the book a favourite of the signed-in user and answers the book,
   * 201 when it was not one yet, 200 when it already was. Anonymous clients
   * get the viewset's 403, a missing book its 404.
   */
  async favourite(req: ApiRequest): Promise<Response> {
    const book = await this.getObject(req);
    const marked = await db(req)
      .insertInto('catalogue_favourite')
      .values({ user_id: Number(req.user.pk), book_id: book.id })
      .onConflict((oc) => oc.columns(['user_id', 'book_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return new Response(this.serialize(book, { request: req, view: this }), { status: marked ? 201 : 200 });
  }

  /** The document declares the favourite action's 201 beside its 200. */
  get openapi(): ViewOpenAPI | undefined {
    if (this.actionMap?.post !== 'favourite') return undefined;
    const book = { schema: { $ref: '#/components/schemas/Book' } };
    return { operations: { post: { responses: { '201': { description: 'Marked as a favourite', content: { 'application/json': book } } } } } };
  }
}

/**
 * Authors, read-only, with limit/offset pagination, `?search=` on the name
 * and `?ordering=` by id, name or country.
 *
 *     GET /api/authors/?limit=10&offset=40&search=le&ordering=name
 */
export class AuthorViewSet extends ReadOnlyModelViewSet<AuthorRow, typeof AuthorSerializer> {
  static override description = 'Authors of the catalogue, searchable by name, orderable by id, name or country.';
  override permissionClasses = [AllowAny];
  override paginationClass = AuthorPagination;
  override serializer = AuthorSerializer;
  override filterBackends = [SearchFilter, OrderingFilter];
  searchFields = ['name'];
  orderingFields = ['id', 'name', 'country'];
  ordering = 'id';

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_author').selectAll().orderBy('id');
  }

  protected override itemName(): string {
    return 'Author';
  }
}

/**
 * Every book, newest first, paged by an opaque signed cursor: stable while
 * books are added, and as fast on the last page as on the first. Clients
 * may page in another order (`?ordering=year`, `-title`, …): `id` is
 * appended as the tie-breaker, and a cursor only works under the ordering
 * it was made for.
 *
 *     GET /api/feed/            {"next": "…?cursor=…", "previous": null, "results": [...]}
 *     GET /api/feed/?ordering=year
 */
export class BookFeed extends ListAPIView<BookRow, typeof BookSerializer> {
  static override description = 'Newest books first, with cursor pagination; ?ordering= by created, id, title or year.';
  override permissionClasses = [AllowAny];
  override paginationClass = BookFeedPagination;
  override filterBackends = [OrderingFilter];
  orderingFields = ['created', 'id', 'title', 'year'];
  ordering = ['-created', '-id'];

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
