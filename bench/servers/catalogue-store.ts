/**
 * The catalogue baseline's data access (W7, W8): SQL written by hand, each
 * statement prepared once (better-sqlite3) or named so PostgreSQL prepares
 * it once per connection. The book list's SQL depends on which filters a
 * request uses; each combination is built once and kept.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { TokenUserRow } from './baseline-store.js';
import { databaseTarget } from './server-env.js';

export interface BookRow {
  id: number;
  title: string;
  author_id: number;
  year: number;
  isbn: string;
  /** Text on SQLite, a `Date` from PostgreSQL's `timestamptz`. */
  created: string | Date;
}

/** A book list query: which filters apply (the values go separately), and the ORDER BY. */
export interface BookQuery {
  /** Search words: each must be in the title or the author's name (LIKE patterns, escaped). */
  words: number;
  yearGte: boolean;
  /** A whitelisted `column dir` list, `b.id` last. */
  orderBy: string;
}

type MaybePromise<T> = T | Promise<T>;

export interface CatalogueStore {
  tokenUser(digest: string): MaybePromise<TokenUserRow | undefined>;
  countBooks(query: BookQuery, values: unknown[]): MaybePromise<number>;
  books(query: BookQuery, values: unknown[], limit: number, offset: number): MaybePromise<BookRow[]>;
  book(id: number): MaybePromise<BookRow | undefined>;
  authorExists(id: number): MaybePromise<boolean>;
  insertBook(row: Omit<BookRow, 'id'> & { created: string }): MaybePromise<BookRow>;
  close(): Promise<void>;
}

const TOKEN_USER_SQL = `select t.id, t.user_id, t.name, t.created, t.expires, t.last_used, u.username, u.email,
  u.is_active, u.is_staff, u.is_superuser, u.date_joined, u.last_login
  from trestle_token t join trestle_user u on u.id = t.user_id where t.digest = $1`;

const BOOK_COLUMNS = 'b.id, b.title, b.author_id, b.year, b.isbn, b.created';

/** The WHERE clause of a book list query, parameters numbered from 1; `like` is the dialect's case-insensitive LIKE. */
function where(query: BookQuery, like: string): string {
  const parts: string[] = [];
  let n = 0;
  if (query.yearGte) parts.push(`b.year >= $${++n}`);
  for (let i = 0; i < query.words; i++) {
    parts.push(`(b.title ${like} $${++n} escape '\\' or a.name ${like} $${++n} escape '\\')`);
  }
  return parts.length === 0 ? '' : ` where ${parts.join(' and ')}`;
}

/** The join to authors is needed only when a search reads their names. */
const from = (query: BookQuery) => (query.words > 0 ? 'catalogue_book b join catalogue_author a on a.id = b.author_id' : 'catalogue_book b');

function countSql(query: BookQuery, like: string): string {
  return `select count(*) as n from ${from(query)}${where(query, like)}`;
}

function pageSql(query: BookQuery, like: string): string {
  const n = (query.yearGte ? 1 : 0) + 2 * query.words;
  return `select ${BOOK_COLUMNS} from ${from(query)}${where(query, like)} order by ${query.orderBy} limit $${n + 1} offset $${n + 2}`;
}

const key = (q: BookQuery) => `${q.words}|${q.yearGte}|${q.orderBy}`;

/** better-sqlite3 (SQLite's LIKE ignores ASCII case, as Django's icontains there). */
export function sqliteCatalogue(file: string): CatalogueStore {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // `+?` as Trestle binds (src/db/database.ts SQLITE_PARAMETER): SQLite with STAT4 re-prepares a statement whose
  // `?` the planner looked at each time it is bound once the database has statistics; both sides run the same plans.
  const q = (s: string) => db.prepare(s.replace(/\$\d+/g, '+?'));
  const tokenUser = q(TOKEN_USER_SQL);
  const counts = new Map<string, BetterSqlite3.Statement>();
  const pages = new Map<string, BetterSqlite3.Statement>();
  const cached = (map: Map<string, BetterSqlite3.Statement>, query: BookQuery, make: () => string) => {
    const k = key(query);
    let stmt = map.get(k);
    if (stmt === undefined) map.set(k, (stmt = q(make())));
    return stmt;
  };
  const book = q(`select ${BOOK_COLUMNS} from catalogue_book b where b.id = $1`);
  const author = q('select 1 from catalogue_author where id = $1').pluck();
  const insert = q('insert into catalogue_book (title, author_id, year, isbn, created) values ($1, $2, $3, $4, $5) returning id, title, author_id, year, isbn, created');
  const countOf = (query: BookQuery) => cached(counts, query, () => countSql(query, 'like')).pluck();
  return {
    tokenUser: (digest) => tokenUser.get(digest) as TokenUserRow | undefined,
    countBooks: (query, values) => countOf(query).get(...values) as number,
    books: (query, values, limit, offset) => cached(pages, query, () => pageSql(query, 'like')).all(...values, limit, offset) as BookRow[],
    book: (id) => book.get(id) as BookRow | undefined,
    authorExists: (id) => author.get(id) !== undefined,
    // `.all()`, not `.get()`: SQLite runs its WAL hook (the automatic checkpoint) only when a statement steps to its
    // end; an INSERT … RETURNING read with `.get()` (or `.run()`) is reset before that, so the WAL is never
    // checkpointed — it grows by ~18 KB a row and is never synced — and every insert skips the checkpoint Trestle pays.
    insertBook: (row) => (insert.all(row.title, row.author_id, row.year, row.isbn, row.created) as BookRow[])[0]!,
    close: async () => void db.close(),
  };
}

/** node-postgres pool, every statement named (ILIKE ignores case for every script, as Django's icontains there). */
export function pgCatalogue(url: string): CatalogueStore {
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => {});
  const names = new Map<string, string>();
  const named = (text: string) => {
    let name = names.get(text);
    if (name === undefined) names.set(text, (name = `catalogue_${names.size}`));
    return name;
  };
  const run = async <R>(text: string, values: unknown[]): Promise<R[]> => (await pool.query({ name: named(text), text, values })).rows as R[];
  const one = async <R>(text: string, values: unknown[]) => (await run<R>(text, values))[0];
  return {
    tokenUser: (digest) => one<TokenUserRow>(TOKEN_USER_SQL, [digest]),
    countBooks: async (query, values) => Number((await one<{ n: string }>(countSql(query, 'ilike'), values))!.n),
    books: (query, values, limit, offset) => run<BookRow>(pageSql(query, 'ilike'), [...values, limit, offset]),
    book: (id) => one<BookRow>(`select ${BOOK_COLUMNS} from catalogue_book b where b.id = $1`, [id]),
    authorExists: async (id) => (await run('select 1 from catalogue_author where id = $1', [id])).length > 0,
    insertBook: async (row) =>
      (await one<BookRow>('insert into catalogue_book (title, author_id, year, isbn, created) values ($1, $2, $3, $4, $5) returning id, title, author_id, year, isbn, created', [
        row.title, row.author_id, row.year, row.isbn, row.created,
      ]))!,
    close: () => pool.end(),
  };
}

export function openCatalogueStore(): CatalogueStore {
  const target = databaseTarget();
  return /^postgres(ql)?:\/\//.test(target) ? pgCatalogue(target) : sqliteCatalogue(target);
}
