import type { Kysely, Migration } from 'kysely';

// The type this table was first created with on every dialect; 0004_native_types converts it on PostgreSQL.
const TIMESTAMP_TYPE = 'varchar(32)';

/** `trestle_session`: login sessions, keyed by the SHA-256 of the session id. */
export const sessionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('trestle_session')
      .addColumn('session_key', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('session_data', 'text', (col) => col.notNull())
      .addColumn('expire_date', TIMESTAMP_TYPE, (col) => col.notNull())
      .execute();
    await db.schema.createIndex('trestle_session_expire_date_idx').on('trestle_session').column('expire_date').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('trestle_session').execute();
  },
};
