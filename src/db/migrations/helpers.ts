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

/** Column type for timestamps: ISO-8601 UTC text on every dialect. */
export const TIMESTAMP_TYPE = 'varchar(32)';

/** Column type for booleans: integer 0/1 on every dialect. */
export const BOOLEAN_TYPE = 'integer';
