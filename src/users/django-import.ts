import BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Kysely, MysqlDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import { TrestlePostgresDialect } from '../db/pg-introspector.js';
import type { DB } from '../db/schema.js';
import { fromDbBoolean, toDbBoolean, toDbTimestamp } from '../db/schema.js';
import type { DialectName } from '../db/dialect.js';
import { redactUrl } from '../db/url.js';
import { loadPg } from '../db/pg-module.js';
import type { TokenStore } from '../authtoken/token-store.js';
import { identifyDjangoHasher, type DjangoHasherName } from './django-hashers.js';
import { importDjangoPermissions, type DjangoPermissionCounts } from './django-permissions.js';

/**
 * Copies users (and DRF tokens) out of a Django database into Trestle's
 * tables, keeping each user's `id`, password hash and token key, so clients
 * and foreign keys carry over and nobody has to reset a password.
 *
 * Idempotent and resumable: a user whose id and username are already in
 * Trestle is skipped, so running it again after a stop picks up where it
 * left off and changes nothing that was imported (not even a hash upgraded
 * by a login since). Writes go in batches, one transaction each.
 */

/** Which Django columns fill Trestle's user fields (a custom user model may name them otherwise). */
export interface DjangoUserColumns {
  id: string;
  username: string;
  password: string;
  email: string;
  is_active: string;
  is_staff: string;
  is_superuser: string;
  date_joined: string;
  last_login: string;
}

export const DJANGO_USER_COLUMNS: Readonly<DjangoUserColumns> = Object.freeze({
  id: 'id',
  username: 'username',
  password: 'password',
  email: 'email',
  is_active: 'is_active',
  is_staff: 'is_staff',
  is_superuser: 'is_superuser',
  date_joined: 'date_joined',
  last_login: 'last_login',
});

export interface DjangoImportOptions {
  /** The user table (default `auth_user`; a custom user model's table otherwise). */
  userTable?: string;
  /** Column names where they differ from `auth_user`'s. */
  columns?: Partial<DjangoUserColumns>;
  /** DRF's token table (default `authtoken_token`); `null` skips tokens. Absent tables are skipped with a note. */
  tokenTable?: string | null;
  /** Counts what would happen; writes nothing. */
  dryRun?: boolean;
  /** Rows per batch and per transaction (default 500). */
  batchSize?: number;
  /** Progress lines (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** One line per conflict. */
  conflict?: (line: string) => void;
}

export interface DjangoImportCounts {
  imported: number;
  skipped: number;
  conflicts: number;
}

export interface DjangoImportSummary {
  users: DjangoImportCounts & { total: number };
  tokens: (DjangoImportCounts & { total: number }) | null;
  /** How many imported users have a hash of each Django hasher (plus `trestle`, `unusable`, `unknown`). */
  hashers: Record<string, number>;
  /** Permissions and groups (`null`: the source has none, or the admin's tables are not migrated here). */
  permissions: DjangoPermissionCounts | null;
}

/** A source database that is not a Django user schema Trestle recognises. */
export class UnrecognisedDjangoSchema extends Error {
  override name = 'UnrecognisedDjangoSchema';
}

/** An open Django database, read-only where the driver allows it. */
export interface DjangoSource {
  readonly db: Kysely<any>;
  readonly dialect: DialectName | 'mysql';
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Opens a Django database by URL: `sqlite:/path/db.sqlite3` (opened
 * read-only; the file must exist), `postgres://…`, or `mysql://…` for MySQL
 * and MariaDB (needs the `mysql2` package).
 */
export async function openDjangoSource(url: string): Promise<DjangoSource> {
  if (url.startsWith('sqlite:')) {
    let filename = url.slice('sqlite:'.length);
    if (filename.startsWith('//')) filename = filename.slice(2);
    let sqlite: BetterSqlite3.Database;
    try {
      sqlite = new BetterSqlite3(filename, { readonly: true, fileMustExist: true });
    } catch (err) {
      throw new Error(`Cannot open Django database ${url}: ${(err as Error).message}`);
    }
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', url, close: () => db.destroy() };
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    const pool = new (loadPg().Pool)({ connectionString: url, max: 2 });
    pool.on('error', () => {}); // idle client errors surface on the next query
    try {
      (await pool.connect()).release();
    } catch (err) {
      await pool.end().catch(() => {});
      throw new Error(`Cannot connect to Django database ${redactUrl(url)}: ${(err as Error).message}`);
    }
    // The tables the connection sees by name (its search path), as Django's introspection lists them.
    const db = new Kysely<any>({ dialect: new TrestlePostgresDialect({ pool }) });
    return { db, dialect: 'postgres', url: redactUrl(url), close: () => db.destroy() };
  }
  if (/^(mysql|mariadb):\/\//i.test(url)) return openMysql(url);
  throw new Error(`Unsupported Django database URL ${redactUrl(url)}: expected sqlite:<path>, postgres://… or mysql://…`);
}

interface Mysql2 {
  createPool(config: { uri: string; timezone: string; connectionLimit: number; dateStrings: boolean }): {
    getConnection(cb: (err: Error | null, conn: { release(): void }) => void): void;
    end(cb?: (err?: Error | null) => void): void;
  };
}

async function openMysql(url: string): Promise<DjangoSource> {
  let mysql: Mysql2;
  try {
    mysql = createRequire(import.meta.url)('mysql2') as Mysql2;
  } catch {
    throw new Error('Reading a MySQL or MariaDB database needs the package mysql2: npm install mysql2');
  }
  // Django keeps UTC in MySQL's zone-less DATETIME columns (USE_TZ): read them as text, parsed as UTC.
  const pool = mysql.createPool({ uri: url.replace(/^mariadb:/i, 'mysql:'), timezone: 'Z', connectionLimit: 2, dateStrings: true });
  try {
    await new Promise<void>((resolve, reject) =>
      pool.getConnection((err, conn) => {
        if (err) return reject(err);
        conn.release();
        resolve();
      }),
    );
  } catch (err) {
    await new Promise<void>((resolve) => pool.end(() => resolve()));
    throw new Error(`Cannot connect to Django database ${redactUrl(url)}: ${(err as Error).message}`);
  }
  const db = new Kysely<any>({ dialect: new MysqlDialect({ pool: pool as never }) });
  return { db, dialect: 'mysql', url: redactUrl(url), close: () => db.destroy() };
}

interface SourceUser {
  id: number;
  username: string;
  password: string;
  email: string;
  is_active: unknown;
  is_staff: unknown;
  is_superuser: unknown;
  date_joined: unknown;
  last_login: unknown;
}

/** Imports users, then tokens, from `source` into Trestle's tables. */
export async function importDjango(
  source: DjangoSource,
  target: { db: Kysely<DB>; dialect: DialectName; tokens?: TokenStore | null },
  options: DjangoImportOptions = {},
): Promise<DjangoImportSummary> {
  const userTable = options.userTable ?? 'auth_user';
  const columns = { ...DJANGO_USER_COLUMNS, ...options.columns };
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer.');
  const progress = options.progress ?? (() => {});
  const conflict = options.conflict ?? (() => {});

  const tables = await source.db.introspection.getTables();
  const findTable = (name: string) => tables.find((t) => t.name === name);
  const users = findTable(userTable);
  if (!users) {
    throw new UnrecognisedDjangoSchema(
      `${source.url} has no table "${userTable}": not a Django database, or a custom user model (name its table with --user-table).`,
    );
  }
  const have = new Set(users.columns.map((c) => c.name));
  const missing = Object.entries(columns).filter(([, column]) => !have.has(column));
  if (missing.length > 0) {
    throw new UnrecognisedDjangoSchema(
      `Table "${userTable}" lacks the column${missing.length > 1 ? 's' : ''} ${missing
        .map(([field, column]) => (field === column ? `"${column}"` : `"${column}" (for ${field})`))
        .join(', ')}: not Django's auth_user schema (map columns with --column field=column).`,
    );
  }

  const summary: DjangoImportSummary = {
    users: { total: 0, imported: 0, skipped: 0, conflicts: 0 },
    tokens: null,
    hashers: {},
    permissions: null,
  };
  const total = await source.db
    .selectFrom(userTable)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  summary.users.total = Number(total['n']);

  // In a dry run nothing is written, so tokens look their users up here.
  const wouldExist = new Set<number>();
  let after = -Infinity;
  let seen = 0;
  for (;;) {
    let query = source.db
      .selectFrom(userTable)
      .select(Object.entries(columns).map(([field, column]) => sql.ref(column).as(field)))
      .orderBy(columns.id)
      .limit(batchSize);
    if (after !== -Infinity) query = query.where(columns.id, '>', after);
    const rows = (await query.execute()) as unknown as SourceUser[];
    if (rows.length === 0) break;
    const apply = async (trx: Kysely<DB> | Transaction<DB>) => {
      for (const row of rows) {
        const outcome = await importUser(trx, row, options.dryRun === true);
        if (options.dryRun && (outcome === 'imported' || outcome === 'skipped')) wouldExist.add(Number(row.id));
        if (outcome === 'imported') {
          summary.users.imported++;
          const kind = hashLabel(String(row.password ?? ''));
          summary.hashers[kind] = (summary.hashers[kind] ?? 0) + 1;
        } else if (outcome === 'skipped') summary.users.skipped++;
        else {
          summary.users.conflicts++;
          conflict(`user ${row.id} "${row.username}": ${outcome.conflict}`);
        }
      }
    };
    if (options.dryRun) await apply(target.db);
    else await target.db.transaction().execute(apply);
    after = Number(rows[rows.length - 1]!.id);
    seen += rows.length;
    progress(`users: ${seen}/${summary.users.total} read (imported ${summary.users.imported}, skipped ${summary.users.skipped}, conflicts ${summary.users.conflicts})`);
  }
  if (!options.dryRun && target.dialect === 'postgres' && summary.users.imported > 0) {
    // Explicit ids do not advance the serial: move it past the largest id, or the next createUser collides.
    await sql`select setval(pg_get_serial_sequence('trestle_user', 'id'), greatest((select max(id) from trestle_user), 1))`.execute(
      target.db,
    );
  }

  const tokenTable = options.tokenTable === undefined ? 'authtoken_token' : options.tokenTable;
  if (tokenTable !== null && target.tokens) {
    const table = findTable(tokenTable);
    if (!table) {
      progress(`tokens: no table "${tokenTable}" in the Django database; none imported.`);
    } else {
      const tokenColumns = new Set(table.columns.map((c) => c.name));
      for (const column of ['key', 'user_id', 'created']) {
        if (!tokenColumns.has(column)) {
          throw new UnrecognisedDjangoSchema(`Table "${tokenTable}" lacks the column "${column}": not DRF's authtoken_token schema.`);
        }
      }
      summary.tokens = await importTokens(source, target.db, target.tokens, tokenTable, options, batchSize, progress, conflict, wouldExist);
    }
  }
  summary.permissions = await importDjangoPermissions(source.db, tables, target.db, { userTable, dryRun: options.dryRun === true, progress });
  return summary;
}

type Outcome = 'imported' | 'skipped' | { conflict: string };

async function importUser(db: Kysely<DB> | Transaction<DB>, row: SourceUser, dryRun: boolean): Promise<Outcome> {
  const id = Number(row.id);
  if (!Number.isSafeInteger(id) || id < 1) return { conflict: 'the id is not a positive integer.' };
  const username = String(row.username ?? '');
  if (username === '' || username.length > 150 || username.includes('\u0000')) {
    return { conflict: 'the username is empty, longer than 150 characters or holds NUL.' };
  }
  const byId = await db.selectFrom('trestle_user').select(['id', 'username']).where('id', '=', id).executeTakeFirst();
  if (byId) {
    return byId.username === username ? 'skipped' : { conflict: `id ${id} belongs to "${byId.username}" in Trestle.` };
  }
  const byName = await db.selectFrom('trestle_user').select('id').where('username', '=', username).executeTakeFirst();
  if (byName) return { conflict: `the username belongs to Trestle user ${byName.id}.` };
  const password = String(row.password ?? '');
  if (password.length > 255) return { conflict: 'the password hash is longer than 255 characters.' };
  if (!dryRun) {
    await db
      .insertInto('trestle_user')
      .values({
        id,
        username,
        email: String(row.email ?? ''),
        // Django's unusable "" (very old) and "!…" hashes stay unusable.
        password: password === '' ? '!' : password,
        is_active: toDbBoolean(fromDbBoolean(row.is_active)),
        is_staff: toDbBoolean(fromDbBoolean(row.is_staff)),
        is_superuser: toDbBoolean(fromDbBoolean(row.is_superuser)),
        date_joined: toDbTimestamp(djangoDate(row.date_joined) ?? new Date(0)),
        last_login: row.last_login == null ? null : toDbTimestamp(djangoDate(row.last_login) ?? new Date(0)),
      } as never)
      .execute();
  }
  return 'imported';
}

async function importTokens(
  source: DjangoSource,
  db: Kysely<DB>,
  tokens: TokenStore,
  table: string,
  options: DjangoImportOptions,
  batchSize: number,
  progress: (line: string) => void,
  conflict: (line: string) => void,
  wouldExist: ReadonlySet<number>,
): Promise<DjangoImportCounts & { total: number }> {
  const counts = { total: 0, imported: 0, skipped: 0, conflicts: 0 };
  const total = await source.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  counts.total = Number(total['n']);
  let after: string | null = null;
  let seen = 0;
  for (;;) {
    let query = source.db.selectFrom(table).select(['key', 'user_id', 'created']).orderBy('key').limit(batchSize);
    if (after !== null) query = query.where('key', '>', after);
    const rows = (await query.execute()) as { key: string; user_id: unknown; created: unknown }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const key = String(row.key);
      const userId = Number(row.user_id);
      const user =
        Number.isSafeInteger(userId) &&
        (wouldExist.has(userId) ||
          (await db.selectFrom('trestle_user').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined);
      if (!user) {
        counts.conflicts++;
        conflict(`token of user ${String(row.user_id)}: no such user in Trestle (import users first).`);
        continue;
      }
      const existing = await tokens.lookup(key);
      if (existing) {
        if (existing.user.pk === userId) counts.skipped++;
        else {
          counts.conflicts++;
          conflict(`token of user ${userId}: the key is stored for user ${existing.user.pk}.`);
        }
        continue;
      }
      if (options.dryRun) {
        const current = await tokens.get(userId);
        if (current) {
          counts.conflicts++;
          conflict(`token of user ${userId}: the user already has another token in Trestle.`);
        } else counts.imported++;
        continue;
      }
      const created = djangoDate(row.created);
      try {
        if (await tokens.importKey(userId, key, created ? { created } : {})) counts.imported++;
        else {
          counts.conflicts++;
          conflict(`token of user ${userId}: the user already has another token in Trestle.`);
        }
      } catch (err) {
        counts.conflicts++;
        conflict(`token of user ${userId}: ${(err as Error).message}`);
      }
    }
    after = String(rows[rows.length - 1]!.key);
    seen += rows.length;
    progress(`tokens: ${seen}/${counts.total} read (imported ${counts.imported}, skipped ${counts.skipped}, conflicts ${counts.conflicts})`);
  }
  return counts;
}

/**
 * Django's datetimes: a `Date` from pg, or the text SQLite holds
 * (`2024-05-01 12:30:00.123456`, UTC under USE_TZ, perhaps with an offset).
 */
function djangoDate(value: unknown): Date | null {
  if (value == null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  const text = String(value).trim().replace(' ', 'T');
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  // Microseconds: JavaScript keeps milliseconds.
  const date = new Date(withZone.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(date.getTime()) ? null : date;
}

function hashLabel(encoded: string): DjangoHasherName | 'trestle' | 'unusable' | 'unknown' {
  if (encoded === '' || encoded.startsWith('!')) return 'unusable';
  if (encoded.startsWith('$scrypt$')) return 'trestle';
  return identifyDjangoHasher(encoded) ?? 'unknown';
}
