/**
 * A constraint the database enforced, read from the driver's error: which
 * kind, on which table and columns, as far as the database says.
 *
 * SQLite (better-sqlite3) gives an extended code and a message naming the
 * columns: `UNIQUE constraint failed: books.title, books.author_id`,
 * `NOT NULL constraint failed: books.title`, `CHECK constraint failed:
 * year_positive`, and a bare `FOREIGN KEY constraint failed`. PostgreSQL
 * (node-postgres) gives the SQLSTATE (23505, 23502, 23503, 23514) with the
 * table, column and constraint as fields and the key in `detail`:
 * `Key (title, author_id)=(Dune, 1) already exists.`
 */
export interface ConstraintViolation {
  readonly kind: 'unique' | 'not_null' | 'foreign_key' | 'check';
  /** The table the failing statement wrote, when the database names it. */
  readonly table: string | null;
  /** The columns involved (unique key, the null column, the referencing key), when known. */
  readonly columns: readonly string[];
  /** The constraint's name (PostgreSQL; SQLite's CHECK). */
  readonly constraint: string | null;
  /**
   * Foreign keys: `true` when the row written (deleted, or its key changed)
   * is still referenced by other rows, `false` when the row written refers
   * to a row that does not exist, `null` when the database does not say
   * (SQLite).
   */
  readonly referenced: boolean | null;
  /** Foreign keys: the table whose rows still refer to the one deleted (PostgreSQL). */
  readonly referencingTable: string | null;
  /** Foreign keys: the referencing key's value as text, when the database shows it (PostgreSQL). */
  readonly value: string | null;
}

const SQLITE_KINDS: Readonly<Record<string, ConstraintViolation['kind']>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_CHECK: 'check',
};

const PG_KINDS: Readonly<Record<string, ConstraintViolation['kind']>> = {
  '23505': 'unique',
  '23502': 'not_null',
  '23503': 'foreign_key',
  '23514': 'check',
};

/** The constraint `err` reports, or `null` when it is not a constraint violation of SQLite or PostgreSQL. */
export function constraintViolation(err: unknown): ConstraintViolation | null {
  if (err === null || typeof err !== 'object') return null;
  const e = err as { code?: unknown; message?: unknown; severity?: unknown };
  if (typeof e.code !== 'string') return null;
  const message = typeof e.message === 'string' ? e.message : '';
  const sqliteKind = SQLITE_KINDS[e.code];
  if (sqliteKind !== undefined) return fromSqlite(sqliteKind, message);
  const pgKind = PG_KINDS[e.code];
  if (pgKind !== undefined && e.severity !== undefined) return fromPostgres(pgKind, err as PgErrorFields, message);
  return null;
}

function fromSqlite(kind: ConstraintViolation['kind'], message: string): ConstraintViolation {
  const base = { kind, table: null, columns: [] as string[], constraint: null, referenced: null, referencingTable: null, value: null };
  const rest = /constraint failed: (.*)$/s.exec(message)?.[1]?.trim() ?? '';
  if (kind === 'unique' || kind === 'not_null') {
    // `books.title, books.author_id`; an index on expressions is `index 'name'`.
    if (rest.startsWith('index ')) return { ...base, constraint: rest.slice(6).replace(/^'|'$/g, '') };
    const parts = rest.split(', ').map((p) => /^(.+)\.([^.]+)$/.exec(p));
    if (parts.length === 0 || parts.some((m) => m === null)) return base;
    return { ...base, table: parts[0]![1]!, columns: parts.map((m) => m![2]!) };
  }
  if (kind === 'check') return { ...base, constraint: rest || null };
  return base;
}

interface PgErrorFields {
  table?: string;
  column?: string;
  constraint?: string;
  detail?: string;
}

function fromPostgres(kind: ConstraintViolation['kind'], err: PgErrorFields, message: string): ConstraintViolation {
  const table = err.table ?? null;
  const constraint = err.constraint ?? null;
  const base = { kind, table, columns: [] as string[], constraint, referenced: null, referencingTable: null, value: null };
  const key = /^Key \((.*?)\)=\((.*)\) /s.exec(err.detail ?? '');
  // Plain column names only: an expression index (`lower(title::text)`) names no field.
  const keyColumns = key && !/[()]/.test(key[1]!) ? key[1]!.split(', ').map(unquote) : [];
  switch (kind) {
    case 'unique':
      return { ...base, columns: keyColumns };
    case 'not_null':
      return { ...base, columns: err.column ? [err.column] : [] };
    case 'check':
      return base;
    case 'foreign_key': {
      // `update or delete on table "authors" violates foreign key constraint "…" on table "books"`
      const still = /^update or delete on table "((?:[^"]|"")+)" violates foreign key constraint "(?:[^"]|"")+" on table "((?:[^"]|"")+)"/.exec(message);
      if (still) return { ...base, table: still[1]!.replace(/""/g, '"'), referenced: true, referencingTable: still[2]!.replace(/""/g, '"') };
      return { ...base, referenced: false, columns: keyColumns, value: keyColumns.length === 1 ? key![2]! : null };
    }
  }
}

function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}
