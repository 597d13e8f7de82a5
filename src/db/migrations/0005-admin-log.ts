import { sql, type Kysely, type Migration } from 'kysely';
import { addIdColumn, timestampType } from './helpers.js';

/**
 * `trestle_admin_log`: what staff did through the admin, as Django's
 * `django_admin_log` (`LogEntry`): who, when, which row (`content_type` is
 * the model's table name, `object_id` its primary key as text, and
 * `object_repr` its name at the time), `action_flag` 1 (addition),
 * 2 (change) or 3 (deletion), and `change_message` as the JSON text Django
 * writes (`[{"added": {}}]`, `[{"changed": {"fields": ["Title"]}}]`).
 * Rows go with their user (ON DELETE CASCADE, as Django's foreign key).
 */
export const adminLogMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addIdColumn(db, db.schema.createTable('trestle_admin_log'))
      .addColumn('action_time', timestampType(db), (col) => col.notNull())
      .addColumn('user_id', 'integer', (col) => col.notNull().references('trestle_user.id').onDelete('cascade'))
      .addColumn('content_type', 'varchar(100)')
      .addColumn('object_id', 'text')
      .addColumn('object_repr', 'varchar(200)', (col) => col.notNull())
      .addColumn('action_flag', 'smallint', (col) => col.notNull().check(sql`action_flag >= 0`))
      .addColumn('change_message', 'text', (col) => col.notNull().defaultTo(''))
      .execute();
    await db.schema.createIndex('trestle_admin_log_user_id_idx').on('trestle_admin_log').column('user_id').execute();
    await db.schema.createIndex('trestle_admin_log_object_idx').on('trestle_admin_log').columns(['content_type', 'object_id']).execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('trestle_admin_log').execute();
  },
};
