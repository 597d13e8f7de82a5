import type { Kysely, Migration } from 'kysely';
import { addIdColumn } from './helpers.js';

// The types this table was first created with on every dialect; 0004_native_types converts them on PostgreSQL.
const BOOLEAN_TYPE = 'integer';
const TIMESTAMP_TYPE = 'varchar(32)';

/** `trestle_user`: accounts for Basic, token and session authentication. */
export const usersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addIdColumn(db, db.schema.createTable('trestle_user'))
      .addColumn('username', 'varchar(150)', (col) => col.notNull().unique())
      .addColumn('email', 'varchar(254)', (col) => col.notNull().defaultTo(''))
      .addColumn('password', 'varchar(255)', (col) => col.notNull())
      .addColumn('is_active', BOOLEAN_TYPE, (col) => col.notNull().defaultTo(1))
      .addColumn('is_staff', BOOLEAN_TYPE, (col) => col.notNull().defaultTo(0))
      .addColumn('is_superuser', BOOLEAN_TYPE, (col) => col.notNull().defaultTo(0))
      .addColumn('date_joined', TIMESTAMP_TYPE, (col) => col.notNull())
      .addColumn('last_login', TIMESTAMP_TYPE)
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('trestle_user').execute();
  },
};
