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
  GenericViewSet,
  ModelViewSet,
  OrderingFilter,
  PageNumberPagination,
  ReadOnlyModelViewSet,
  SearchFilter,
  filterSet,
  modelSerializer,
  Response,
  reverse,
  type ExtraAction,
  type ViewOpenAPI,
} from '../../src/index.js';
import { Author, Book, Tag, type AuthorRow, type BookRow, type TagRow } from './models.js';

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
 * A book as the API shows and accepts it, derived from the model: hyperlinked
 * to itself and its author (DRF's `HyperlinkedModelSerializer`). The author's
 * URL is accepted back, so a client can PUT a book as it fetched it.
 */
export const BookSerializer = modelSerializer(Book, {
  hyperlinked: true,
  fields: ['url', 'id', 'title', 'author', 'year', 'isbn', 'created'],
  extraKwargs: { year: { minValue: 0, maxValue: 3000 } },
});

/** `?author=3`, `?author__in=1,2`, `?year__gte=1970&year__lte=1979`, `?isbn=…`, `?created__gte=2024-01-01`. */
export const BookFilters = filterSet({
  author: { type: 'integer', column: 'author_id', lookups: ['exact', 'in'] },
  year: { type: 'integer', lookups: ['exact', 'gt', 'gte', 'lt', 'lte', 'range'] },
  isbn: { type: 'string', lookups: ['exact'] },
  created: { type: 'datetime', lookups: ['gte', 'lte'] },
});

/** An author, with a link to their books (the book list filtered by author). */
export const AuthorSerializer = modelSerializer(Author, {
  hyperlinked: true,
  fields: ['url', 'id', 'name', 'country', 'books'],
  declared: {
    books: computed(
      (author: AuthorRow, ctx) => `${reverse('book-list', {}, { request: ctx.request! })}?author=${author.id}`,
      { type: 'string', format: 'uri' },
    ),
  },
});

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
  override model = Book;
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override paginationClass = BookPagination;
  override serializer = BookSerializer;
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  searchFields = ['title', 'author__name'];
  orderingFields = ['id', 'title', 'year', 'created'];
  ordering = 'id';
  filterset = BookFilters;
  static extraActions: readonly ExtraAction[] = [{ name: 'favourite', detail: true, methods: ['post'] }];

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
  override model = Author;
  override permissionClasses = [AllowAny];
  override paginationClass = AuthorPagination;
  override serializer = AuthorSerializer;
  override filterBackends = [SearchFilter, OrderingFilter];
  searchFields = ['name'];
  orderingFields = ['id', 'name', 'country'];
  ordering = 'id';

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

  override model = Book;
  override serializer = BookSerializer;
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

  override model = Book;
  override serializer = BookSerializer;

  /** The model's rows in key order (this view has no ordering filter). */
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('catalogue_book').selectAll().orderBy('id');
  }
}

/** A tag: a name, unique (`{"name": ["tag with this name already exists."]}`). */
export const TagSerializer = modelSerializer(Tag, { hyperlinked: true, fields: ['url', 'id', 'name'] });

/**
 * Tags, read by anyone, written when signed in; `?search=` on the name.
 *
 *     GET|POST /api/tags/    GET|PUT|PATCH|DELETE /api/tags/3/
 */
export class TagViewSet extends ModelViewSet<TagRow, typeof TagSerializer> {
  static override description = 'Tags for books. Anyone may read; authenticated users may add, rename and delete.';
  override model = Tag;
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override serializer = TagSerializer;
  override filterBackends = [SearchFilter, OrderingFilter];
  searchFields = ['name'];
  orderingFields = ['id', 'name'];
  ordering = 'name';
}

/** A book's tags: the book's title and link, its tags as links (a many-to-many field), the tags writable. */
export const TaggedBookSerializer = modelSerializer(Book, {
  hyperlinked: true,
  fields: ['url', 'id', 'title', 'tags'],
  readOnlyFields: ['title'],
  name: 'TaggedBook',
});

/**
 * Books with their tags, loaded for a whole page in one query through the
 * join table; `?tags=3` (books with tag 3), `?tags__name=poetry`,
 * `?search=` on the title and the tags' names. PUT/PATCH replaces a book's tags.
 *
 *     GET /api/tagged-books/?tags__name=poetry
 *     PATCH /api/tagged-books/7/     {"tags": ["http://…/api/tags/1/", "http://…/api/tags/4/"]}
 */
export class TaggedBookViewSet extends GenericViewSet<BookRow, typeof TaggedBookSerializer> {
  static override description = 'Books and their tags: filter by tag, set a book\'s tags.';
  static readonly routerActions = ['list', 'retrieve', 'update', 'partialUpdate'];
  override model = Book;
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override paginationClass = BookPagination;
  override serializer = TaggedBookSerializer;
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  filtersetFields = { tags: ['exact', 'in'], tags__name: ['exact', 'iexact'] } as const;
  searchFields = ['title', 'tags__name'];
  orderingFields = ['id', 'title'];
  ordering = 'id';
}
