import type { CreateTableBuilder, Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Adds an auto-incremented integer primary key named `id`:
 * `integer primary key autoincrement` on SQLite, `serial primary key` on
 * PostgreSQL. The one column type that cannot be written dialect-neutrally.
 */
export function addIdColumn<TB extends string, C extends string, T>(
  db: Kysely<T>,
  table: CreateTableBuilder<TB, C>,
): CreateTableBuilder<TB, C | 'id'> {
  return dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'serial', (col) => col.primaryKey())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}

/**
 * Column type for timestamps, as Django's backends store a `DateTimeField`:
 * `timestamptz` on PostgreSQL (read as a `Date`), ISO-8601 UTC text
 * (`varchar(32)`) on SQLite. Write either as `toDbTimestamp(date)`.
 *
 * @example
 * .addColumn('created', timestampType(db), (col) => col.notNull())
 */
export function timestampType<T>(db: Kysely<T>): 'timestamptz' | 'varchar(32)' {
  return dialectOf(db) === 'postgres' ? 'timestamptz' : 'varchar(32)';
}

/**
 * Column type for booleans: `boolean` on PostgreSQL (read as `true`/`false`),
 * integer 0/1 on SQLite. A default is written `defaultTo(booleanDefault(db, true))`.
 */
export function booleanType<T>(db: Kysely<T>): 'boolean' | 'integer' {
  return dialectOf(db) === 'postgres' ? 'boolean' : 'integer';
}

/** The default value for a `booleanType(db)` column: `true`/`false` on PostgreSQL, `1`/`0` on SQLite. */
export function booleanDefault<T>(db: Kysely<T>, value: boolean): boolean | number {
  return dialectOf(db) === 'postgres' ? value : value ? 1 : 0;
}

/**
 * Column type for JSON documents: `jsonb` on PostgreSQL, `text` on SQLite,
 * as Django stores a `JSONField`. Both read as the JSON text; write
 * `JSON.stringify(value)`, and render with `json({ column: true })`.
 */
export function jsonType<T>(db: Kysely<T>): 'jsonb' | 'text' {
  return dialectOf(db) === 'postgres' ? 'jsonb' : 'text';
}

/**
 * Column type of timestamps in migrations written before Trestle used
 * native PostgreSQL types (ISO-8601 UTC text on every dialect). Kept, with
 * its value, so a migration that shipped builds the same table it always
 * did; new migrations use `timestampType(db)`.
 *
 * @deprecated Use `timestampType(db)`.
 */
export const TIMESTAMP_TYPE = 'varchar(32)';

/**
 * Column type of booleans in migrations written before Trestle used native
 * PostgreSQL types (integer 0/1 on every dialect, so `defaultTo(0)` stays
 * valid). New migrations use `booleanType(db)`.
 *
 * @deprecated Use `booleanType(db)`.
 */
export const BOOLEAN_TYPE = 'integer';
