import type { Generated } from 'kysely';

/**
 * The framework's tables, as Kysely sees them.
 *
 * Storage conventions (dialect-neutral, see docs/decisions.md "Data layer"):
 * - timestamps are ISO-8601 UTC strings (`Date#toISOString()`), which sort
 *   correctly as text on every dialect;
 * - booleans are integers `0` / `1` on every dialect;
 * - primary keys are auto-incremented integers named `id`.
 *
 * Modules that add framework tables extend this interface by declaration
 * merging: `declare module '../db/schema.js' { interface DB { trestle_token: TokenTable } }`.
 */
export interface DB {
  trestle_user: UserTable;
}

/** 0 or 1: how a boolean is stored. */
export type DbBoolean = number;

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
  /** ISO-8601 UTC. */
  date_joined: string;
  /** ISO-8601 UTC, or null before the first login. */
  last_login: string | null;
}

/** Converts a boolean for storage. */
export function toDbBoolean(value: boolean): DbBoolean {
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
