import type { ColumnType, Generated } from 'kysely';

/**
 * The framework's tables, as Kysely sees them.
 *
 * Storage conventions (Django's per backend, see docs/database.md "Tables"):
 * - timestamps are `timestamptz` on PostgreSQL (read as a `Date`) and
 *   ISO-8601 UTC text (`Date#toISOString()`) on SQLite; both are written
 *   as that text (`toDbTimestamp`) and read with `fromDbTimestamp`;
 * - booleans are `boolean` on PostgreSQL and integers `0` / `1` on SQLite;
 *   both are written as `0` / `1` (`toDbBoolean`, which PostgreSQL reads as
 *   a boolean parameter) and read with `fromDbBoolean`;
 * - primary keys are auto-incremented integers named `id`.
 *
 * Modules that add framework tables extend this interface by declaration
 * merging: `declare module '../db/schema.js' { interface DB { trestle_token: TokenTable } }`.
 */
export interface DB {
  trestle_user: UserTable;
}

/** A stored boolean: `true`/`false` read from PostgreSQL, `0`/`1` from SQLite; written as `0`/`1`. */
export type DbBoolean = ColumnType<boolean | number, number, number>;

/** A stored timestamp: a `Date` read from PostgreSQL's `timestamptz`, ISO-8601 text from SQLite; written as ISO-8601 text. */
export type DbTimestamp = ColumnType<Date | string, string, string>;

/** `trestle_user`: Django's `auth_user`, minus names and groups. */
export interface UserTable {
  id: Generated<number>;
  username: string;
  email: string;
  /** PHC string (`$scrypt$…`) or an unusable marker starting with `!`. */
  password: string;
  is_active: DbBoolean;
  is_staff: DbBoolean;
  is_superuser: DbBoolean;
  date_joined: DbTimestamp;
  /** Null before the first login. */
  last_login: ColumnType<Date | string | null, string | null, string | null>;
}

/** Converts a boolean for storage (`1`/`0`: an integer on SQLite, a valid boolean parameter on PostgreSQL). */
export function toDbBoolean(value: boolean): number {
  return value ? 1 : 0;
}

/** Reads a stored boolean (0/1 number, or a driver's native boolean). */
export function fromDbBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 1n;
}

/** Converts a date for storage. */
export function toDbTimestamp(value: Date): string {
  return value.toISOString();
}

/** Reads a stored timestamp. */
export function fromDbTimestamp(value: string | Date): Date;
export function fromDbTimestamp(value: string | Date | null): Date | null;
export function fromDbTimestamp(value: string | Date | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}
