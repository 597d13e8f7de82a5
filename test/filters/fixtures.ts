import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { CursorPagination, filterSet, FilterSetBackend, OrderingFilter, PageNumberPagination, SearchFilter, type Source } from '../../src/index.js';

export interface AuthorTable {
  id: number;
  name: string;
}
export interface BookTable {
  id: number;
  title: string;
  author_id: number;
  year: number;
  isbn: string;
  created: string;
  note: string | null;
}
export type DB = { author: AuthorTable; book: BookTable };

export const AUTHORS: AuthorTable[] = [
  { id: 1, name: 'Ursula K. Le Guin' },
  { id: 2, name: 'Blake Crouch' },
  { id: 3, name: 'Ada Lovelace' },
  { id: 4, name: 'Ayn Rand' },
  { id: 5, name: 'David Mitchell' },
];

// Titles with `%` and `_` next to titles a LIKE wildcard would also match.
export const BOOKS: BookTable[] = [
  { id: 1, title: 'The Dispossessed', author_id: 1, year: 1974, isbn: '978-0-06-051275-9', note: null },
  { id: 2, title: 'The Left Hand of Darkness', author_id: 1, year: 1969, isbn: '978-0-441-47812-5', note: 'classic' },
  { id: 3, title: 'Dark Matter 100% true', author_id: 2, year: 2016, isbn: '978-1-101-90422-0', note: null },
  { id: 4, title: 'snake_case manual', author_id: 3, year: 1843, isbn: '111', note: 'rare' },
  { id: 5, title: 'snakeXcase', author_id: 3, year: 2001, isbn: '222', note: null },
  { id: 6, title: '100 percent', author_id: 2, year: 2001, isbn: '333', note: null },
  { id: 7, title: 'Atlas Shrugged', author_id: 4, year: 1957, isbn: '444', note: null },
  { id: 8, title: 'Cloud Atlas', author_id: 5, year: 2004, isbn: '555', note: null },
].map((b) => ({ ...b, created: `2024-01-0${b.id}T00:00:00.000Z` }));

export async function createTables(db: Kysely<DB>): Promise<void> {
  await db.schema.createTable('author').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'varchar(200)', (c) => c.notNull()).execute();
  await db.schema
    .createTable('book')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('isbn', 'varchar(20)', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('note', 'varchar(100)')
    .execute();
  await db.insertInto('author').values(AUTHORS).execute();
  await db.insertInto('book').values(BOOKS).execute();
}

/** Where a test's books come from: an array of nested objects, or a joined Kysely builder. */
export interface SourceKind {
  readonly name: string;
  books(): Source<unknown>;
  /** Column names as this source spells them. */
  readonly col: { id: string; title: string; year: string; author: string; authorName: string; isbn: string; created: string; note: string };
  readonly database?: Database;
}

export function arrayKind(): SourceKind {
  const items = BOOKS.map((b) => ({ ...b, author: { name: AUTHORS.find((a) => a.id === b.author_id)!.name } }));
  return {
    name: 'array',
    books: () => items,
    col: { id: 'id', title: 'title', year: 'year', author: 'author_id', authorName: 'author.name', isbn: 'isbn', created: 'created', note: 'note' },
  };
}

export function queryKind(name: string, database: Database): SourceKind {
  const db = database.db as unknown as Kysely<DB>;
  return {
    name,
    database,
    books: () =>
      db
        .selectFrom('book as b')
        .innerJoin('author as a', 'a.id', 'b.author_id')
        .select(['b.id', 'b.title', 'b.author_id', 'b.year', 'b.isbn', 'b.created', 'b.note', 'a.name as author_name'])
        .orderBy('b.id'),
    col: { id: 'b.id', title: 'b.title', year: 'b.year', author: 'b.author_id', authorName: 'a.name', isbn: 'b.isbn', created: 'b.created', note: 'b.note' },
  };
}

/** The view configuration every backend test uses, spelled for `kind`. */
export function catalogueView(kind: SourceKind, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const c = kind.col;
  return {
    filterBackends: [FilterSetBackend, SearchFilter, OrderingFilter],
    searchFields: [c.title, c.authorName, `=${c.isbn}`],
    orderingFields: { id: c.id, title: c.title, year: c.year, author: c.authorName },
    ordering: ['id'],
    filterset: filterSet({
      author: { type: 'integer', column: c.author, lookups: ['exact', 'in'] },
      year: { type: 'integer', column: c.year, lookups: ['exact', 'gt', 'gte', 'lt', 'lte', 'range'] },
      isbn: { type: 'string', column: c.isbn, lookups: ['exact', 'icontains'] },
      note: { type: 'string', column: c.note, lookups: ['isnull'] },
      created: { type: 'datetime', column: c.created, lookups: ['gte', 'lt'] },
      published: { type: 'date', column: c.created, lookups: ['lt'] },
    }),
    ...extra,
  };
}

export class Pages extends PageNumberPagination {
  override pageSize = 3;
}

export class Feed extends CursorPagination {
  override pageSize = 3;
  override ordering = ['-created', '-id'];
}
