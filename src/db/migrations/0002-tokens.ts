import type { Kysely, Migration } from 'kysely';
import { addIdColumn } from './helpers.js';

// The type this table was first created with on every dialect; 0004_native_types converts it on PostgreSQL.
const TIMESTAMP_TYPE = 'varchar(32)';

/**
 * `trestle_token`: API tokens (DRF's `authtoken_token`), stored as a SHA-256
 * digest plus the key encrypted under SECRET_KEY — never the key itself.
 * `(user_id, name)` is unique: one token per user in the default mode (name
 * `''`), one per name in the lifecycle mode.
 */
export const tokensMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addIdColumn(db, db.schema.createTable('trestle_token'))
      .addColumn('user_id', 'integer', (col) => col.notNull().references('trestle_user.id').onDelete('cascade'))
      .addColumn('name', 'varchar(64)', (col) => col.notNull().defaultTo(''))
      .addColumn('digest', 'char(64)', (col) => col.notNull())
      .addColumn('encrypted_key', 'varchar(255)', (col) => col.notNull())
      .addColumn('created', TIMESTAMP_TYPE, (col) => col.notNull())
      .addColumn('expires', TIMESTAMP_TYPE)
      .addColumn('last_used', TIMESTAMP_TYPE)
      .execute();
    await db.schema.createIndex('trestle_token_digest_uniq').on('trestle_token').column('digest').unique().execute();
    await db.schema
      .createIndex('trestle_token_user_name_uniq')
      .on('trestle_token')
      .columns(['user_id', 'name'])
      .unique()
      .execute();
    await db.schema.createIndex('trestle_token_expires_idx').on('trestle_token').column('expires').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('trestle_token').execute();
  },
};
