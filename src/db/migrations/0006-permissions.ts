import type { Kysely, Migration } from 'kysely';
import { addIdColumn } from './helpers.js';

/**
 * Django's permission tables: `auth_permission` (one row per model and
 * action: `add_book`, `change_book`, `delete_book`, `view_book`, named
 * `Can add book`; `content_type` is the model's table name, as in
 * `trestle_admin_log`), `auth_group`, `auth_group_permissions`, and the
 * user's sides, `trestle_user_groups` and `trestle_user_user_permissions`
 * (Django's `<user table>_groups` / `_user_permissions`). Each pair is
 * unique and goes with either row (ON DELETE CASCADE).
 */
export const permissionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addIdColumn(db, db.schema.createTable('auth_permission'))
      .addColumn('name', 'varchar(255)', (col) => col.notNull())
      .addColumn('content_type', 'varchar(100)', (col) => col.notNull())
      .addColumn('codename', 'varchar(100)', (col) => col.notNull())
      .addUniqueConstraint('auth_permission_content_type_codename_uniq', ['content_type', 'codename'])
      .execute();
    await addIdColumn(db, db.schema.createTable('auth_group'))
      .addColumn('name', 'varchar(150)', (col) => col.notNull().unique())
      .execute();
    const pairs: Array<[table: string, left: [string, string], right: [string, string]]> = [
      ['auth_group_permissions', ['group_id', 'auth_group.id'], ['permission_id', 'auth_permission.id']],
      ['trestle_user_groups', ['user_id', 'trestle_user.id'], ['group_id', 'auth_group.id']],
      ['trestle_user_user_permissions', ['user_id', 'trestle_user.id'], ['permission_id', 'auth_permission.id']],
    ];
    for (const [table, [a, aRef], [b, bRef]] of pairs) {
      await addIdColumn(db, db.schema.createTable(table))
        .addColumn(a, 'integer', (col) => col.notNull().references(aRef).onDelete('cascade'))
        .addColumn(b, 'integer', (col) => col.notNull().references(bRef).onDelete('cascade'))
        .addUniqueConstraint(`${table}_${a}_${b}_uniq`, [a, b])
        .execute();
      await db.schema.createIndex(`${table}_${b}_idx`).on(table).column(b).execute();
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['trestle_user_user_permissions', 'trestle_user_groups', 'auth_group_permissions', 'auth_group', 'auth_permission']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
