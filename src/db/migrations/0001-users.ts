import type { Kysely, Migration } from 'kysely';
import { addIdColumn, BOOLEAN_TYPE, TIMESTAMP_TYPE } from './helpers.js';

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
