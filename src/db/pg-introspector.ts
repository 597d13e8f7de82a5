import {
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  column: string;
  not_null: boolean;
  has_default: boolean;
  table: string;
  table_type: string;
  schema: string;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

/**
 * The tables this connection sees by name, as Django's PostgreSQL
 * introspection lists them (`pg_table_is_visible`): the schemas of the
 * search path, not every schema of the database. Kysely's own introspector
 * reads every schema and resolves each table by name while it reads, so a
 * table dropped meanwhile in another schema (another app, another test's
 * private schema) fails the whole listing with "relation … does not exist"
 * — and Kysely's migrator lists the tables before every run.
 */
export class VisibleTablesIntrospector implements DatabaseIntrospector {
  private readonly fallback: PostgresIntrospector;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {
    this.fallback = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.fallback.getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables ? sql`true` : sql`c.relname not in ('kysely_migration', 'kysely_migration_lock')`;
    const { rows } = await sql<ColumnRow>`
      select a.attname as "column", a.attnotnull as not_null, a.atthasdef as has_default,
             c.relname as "table", c.relkind as table_type, ns.nspname as "schema",
             typ.typname as "type", dtns.nspname as type_schema,
             col_description(a.attrelid, a.attnum) as column_description,
             pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) as auto_incrementing
        from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
       where c.relkind in ('r', 'v', 'p')
         and ns.nspname = any(current_schemas(false))
         and pg_catalog.pg_table_is_visible(c.oid)
         and a.attnum >= 0 and not a.attisdropped
         and ${internal}
       order by ns.nspname, c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      const key = `${row.schema}.${row.table}`;
      let table = tables.get(key);
      if (!table) {
        table = { name: row.table, isView: row.table_type === 'v', schema: row.schema, columns: [] };
        tables.set(key, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing !== null,
        hasDefaultValue: row.has_default,
        ...(row.column_description !== null ? { comment: row.column_description } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions) {
    return { tables: await this.getTables(options) };
  }
}

/** Kysely's PostgreSQL dialect with `VisibleTablesIntrospector`. */
export class TrestlePostgresDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new VisibleTablesIntrospector(db);
  }
}
