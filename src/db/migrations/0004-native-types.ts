import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';

/** The framework's booleans and timestamps, by table. */
const COLUMNS: Readonly<Record<string, { readonly booleans: readonly (readonly [name: string, default_: boolean])[]; readonly timestamps: readonly string[] }>> = {
  trestle_user: {
    booleans: [
      ['is_active', true],
      ['is_staff', false],
      ['is_superuser', false],
    ],
    timestamps: ['date_joined', 'last_login'],
  },
  trestle_token: { booleans: [], timestamps: ['created', 'expires', 'last_used'] },
  trestle_session: { booleans: [], timestamps: ['expire_date'] },
};

/**
 * PostgreSQL's native types for the framework's columns, as Django's
 * PostgreSQL backend declares them: booleans `integer` 0/1 → `boolean`,
 * timestamps ISO-8601 text `varchar(32)` → `timestamptz`. Converted in
 * place (`ALTER COLUMN … TYPE … USING`): every row stays, with the same
 * values, and indexes are rebuilt on the new type. `down()` converts back
 * to exactly the text the old code wrote (`Date#toISOString()`).
 *
 * SQLite keeps storing as it did (Django's SQLite backend also stores
 * booleans as 0/1 and datetimes as text): nothing to do there.
 */
export const nativeTypesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (dialectOf(db) !== 'postgres') return;
    for (const [table, { booleans, timestamps }] of Object.entries(COLUMNS)) {
      const changes = [
        ...booleans.flatMap(([column, value]) => [
          sql`alter column ${sql.ref(column)} drop default`,
          sql`alter column ${sql.ref(column)} type boolean using ${sql.ref(column)} <> 0`,
          sql`alter column ${sql.ref(column)} set default ${sql.lit(value)}`,
        ]),
        ...timestamps.map((column) => sql`alter column ${sql.ref(column)} type timestamptz using ${sql.ref(column)}::timestamptz`),
      ];
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    if (dialectOf(db) !== 'postgres') return;
    for (const [table, { booleans, timestamps }] of Object.entries(COLUMNS)) {
      const changes = [
        ...booleans.flatMap(([column, value]) => [
          sql`alter column ${sql.ref(column)} drop default`,
          sql`alter column ${sql.ref(column)} type integer using case when ${sql.ref(column)} then 1 else 0 end`,
          sql`alter column ${sql.ref(column)} set default ${sql.lit(value ? 1 : 0)}`,
        ]),
        ...timestamps.map(
          (column) =>
            sql`alter column ${sql.ref(column)} type varchar(32) using to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        ),
      ];
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
  },
};
