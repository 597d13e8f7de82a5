import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import { dialectOf, type DialectName } from '../db/dialect.js';
import { columnType, nowDefault, storedDefault } from './column-types.js';
import { ManyToManyField, RelationField, autoJoinTableName, field, joinColumns, type ModelField, type OnDelete } from './fields.js';
import type { ConstraintDeclaration, IndexDeclaration } from './model.js';
import { columnOf, indexName, modelNameOf, modelOf, primaryKeyOf, shortName, type ModelState, type ProjectState } from './state.js';

// Migrations run on a connection whose database type is not known here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** The database action of each `onDelete`; `protect` is refused by the database as `restrict` is. */
const ON_DELETE: Record<OnDelete, 'cascade' | 'restrict' | 'set null' | 'no action'> = {
  cascade: 'cascade',
  protect: 'restrict',
  restrict: 'restrict',
  setNull: 'set null',
  doNothing: 'no action',
};

/**
 * Writes a model state's tables, columns, indexes and constraints through
 * Kysely's schema builder (Django's `BaseDatabaseSchemaEditor`), with the
 * SQLite table rebuild for the changes SQLite's ALTER TABLE cannot make.
 */
export class SchemaEditor {
  readonly dialect: DialectName;
  constructor(
    readonly db: AnyDb,
    /** The state the statements are written against (foreign keys are resolved in it). */
    readonly state: ProjectState,
  ) {
    this.dialect = dialectOf(db);
  }

  /** CREATE TABLE with every column and table constraint, then the indexes. */
  async createTable(model: ModelState, name = model.table): Promise<void> {
    let builder: CreateTableBuilder<string, string> = this.db.schema.createTable(name);
    for (const [field, f] of Object.entries(model.fields)) {
      if (!f.hasColumn) continue;
      builder = builder.addColumn(f.columnName(field), sql.raw(this.typeOf(model, f)), (col) => this.column(model, f, col));
    }
    for (const columns of model.meta.uniqueTogether ?? []) {
      const cols = columns.map((c) => columnOf(model, c));
      builder = builder.addUniqueConstraint(indexName(model.table, cols, true), cols);
    }
    for (const c of model.meta.constraints ?? []) {
      builder =
        c.kind === 'check'
          ? builder.addCheckConstraint(c.name, sql.raw(c.check))
          : builder.addUniqueConstraint(c.name, c.fields.map((n) => columnOf(model, n)));
    }
    await builder.execute();
  }

  /** The indexes a model's fields and meta declare (Django: `db_index`, foreign keys, `Meta.indexes`). */
  indexesOf(model: ModelState): Array<Required<Pick<IndexDeclaration, 'name'>> & IndexDeclaration> {
    const out: Array<Required<Pick<IndexDeclaration, 'name'>> & IndexDeclaration> = [];
    for (const [field, f] of Object.entries(model.fields)) {
      if (f.primaryKey || f.options.unique === true || f.kind === 'oneToOne' || !f.hasColumn) continue;
      if (f.options.dbIndex === true || f.kind === 'foreignKey') {
        out.push({ name: indexName(model.table, [f.columnName(field)]), fields: [field] });
      }
    }
    for (const i of model.meta.indexes ?? []) out.push({ ...i, name: i.name ?? indexName(model.table, i.fields.map((n) => columnOf(model, n)), i.unique) });
    return out;
  }

  async createIndexes(model: ModelState): Promise<void> {
    for (const index of this.indexesOf(model)) await this.createIndex(model, index);
  }

  async createIndex(model: ModelState, index: IndexDeclaration & { name: string }): Promise<void> {
    let builder = this.db.schema.createIndex(index.name).on(model.table).columns(index.fields.map((n) => columnOf(model, n)));
    if (index.unique) builder = builder.unique();
    await builder.execute();
  }

  async dropIndex(model: ModelState, name: string): Promise<void> {
    // On PostgreSQL an index lives in the table's schema, found by search_path.
    void model;
    await this.db.schema.dropIndex(name).execute();
  }

  async dropTable(table: string): Promise<void> {
    await this.db.schema.dropTable(table).execute();
  }

  /**
   * The automatic join table of `model`'s many-to-many field `name`, as a
   * model state (Django's `create_many_to_many_intermediary_model`): an
   * `id`, a foreign key to each side ON DELETE CASCADE, unique together;
   * `null` when the field has a `through` model.
   */
  joinTable(model: ModelState, name: string): ModelState | null {
    const f = model.fields[name];
    if (!(f instanceof ManyToManyField) || !f.autoCreated) return null;
    const targetTable = f.targetTable(model.table);
    const target = targetTable === model.table ? model : modelOf(this.state, targetTable);
    const columns = joinColumns(modelNameOf(model), modelNameOf(target));
    const source = columns.source.slice(0, -3);
    const other = columns.target.slice(0, -3);
    return {
      table: autoJoinTableName(model.table, name),
      fields: {
        id: field.auto(),
        [source]: field.foreignKey(model.table, { onDelete: 'cascade' }),
        [other]: field.foreignKey(targetTable, { onDelete: 'cascade' }),
      },
      meta: { uniqueTogether: [[source, other]] },
    };
  }

  /** Creates a many-to-many field's join table: the unique pair covers the source column, the target's is indexed. */
  async createJoinTable(model: ModelState, name: string): Promise<void> {
    const join = this.joinTable(model, name);
    if (!join) return;
    await this.createTable(join);
    const target = Object.entries(join.fields)[2]![0];
    await this.createIndex(join, { name: indexName(join.table, [`${target}_id`]), fields: [target] });
  }

  async createJoinTables(model: ModelState): Promise<void> {
    for (const name of Object.keys(model.fields)) await this.createJoinTable(model, name);
  }

  async dropJoinTables(model: ModelState): Promise<void> {
    for (const [name, f] of Object.entries(model.fields)) {
      if (f instanceof ManyToManyField && f.autoCreated) await this.dropTable(autoJoinTableName(model.table, name));
    }
  }

  /** Adds a column to an existing table (PostgreSQL: ALTER TABLE; SQLite: a rebuild); a many-to-many field's join table. */
  async addField(before: ModelState, after: ModelState, name: string): Promise<void> {
    const f = after.fields[name]!;
    if (f instanceof ManyToManyField) return this.createJoinTable(after, name);
    if (this.dialect === 'sqlite') return this.rebuild(before, after, {});
    await this.db.schema
      .alterTable(after.table)
      .addColumn(f.columnName(name), sql.raw(this.typeOf(after, f)), (col) => this.column(after, f, col))
      .execute();
    for (const index of this.indexesOf(after).filter((i) => i.fields.length === 1 && i.fields[0] === name)) await this.createIndex(after, index);
  }

  /** Drops a column (its indexes and constraints go with it). */
  async removeField(before: ModelState, after: ModelState, name: string): Promise<void> {
    const f = before.fields[name]!;
    if (f instanceof ManyToManyField) {
      if (f.autoCreated) await this.dropTable(autoJoinTableName(before.table, name));
      return;
    }
    if (this.dialect === 'sqlite') return this.rebuild(before, after, {});
    await this.db.schema.alterTable(before.table).dropColumn(before.fields[name]!.columnName(name)).execute();
  }

  /** Changes a column's type, nullability, default, uniqueness or index. */
  async alterField(before: ModelState, after: ModelState, name: string): Promise<void> {
    const old = before.fields[name]!;
    const next = after.fields[name]!;
    if (old instanceof ManyToManyField || next instanceof ManyToManyField) {
      // relatedName, blank, verboseName, helpText: nothing in the database changes.
      if (
        !(old instanceof ManyToManyField && next instanceof ManyToManyField) ||
        old.targetTable(before.table) !== next.targetTable(after.table) ||
        old.autoCreated !== next.autoCreated ||
        (!old.autoCreated && old.throughTable(before.table) !== next.throughTable(after.table))
      ) {
        throw new Error(`alterField cannot change the relation of ${after.table}.${name}: remove the field and add it again.`);
      }
      return;
    }
    if (this.dialect === 'sqlite') return this.rebuild(before, after, {});
    if (old.isRelation !== next.isRelation || (old instanceof RelationField && next instanceof RelationField && (old.targetTable(before.table) !== next.targetTable(after.table) || old.onDelete !== next.onDelete))) {
      throw new Error(`alterField cannot change the relation of ${after.table}.${name}: remove the field and add it again.`);
    }
    const column = next.columnName(name);
    const table = after.table;
    const type = this.typeOf(after, next);
    if (type !== this.typeOf(before, old)) {
      await sql`alter table ${sql.id(table)} alter column ${sql.id(column)} type ${sql.raw(type)} using ${sql.id(column)}::${sql.raw(type)}`.execute(this.db);
    }
    const oldDefault = this.defaultSql(old);
    const newDefault = this.defaultSql(next);
    if (oldDefault !== newDefault) {
      await (newDefault === null
        ? sql`alter table ${sql.id(table)} alter column ${sql.id(column)} drop default`
        : sql`alter table ${sql.id(table)} alter column ${sql.id(column)} set default ${sql.raw(newDefault)}`
      ).execute(this.db);
    }
    if (old.null !== next.null) {
      await sql`alter table ${sql.id(table)} alter column ${sql.id(column)} ${sql.raw(next.null ? 'drop not null' : 'set not null')}`.execute(this.db);
    }
    const unique = (f: ModelField) => f.options.unique === true || f.kind === 'oneToOne';
    const uniqueName = shortName(`${table}_${column}_key`);
    if (unique(old) && !unique(next)) await sql`alter table ${sql.id(table)} drop constraint ${sql.id(uniqueName)}`.execute(this.db);
    if (!unique(old) && unique(next)) await sql`alter table ${sql.id(table)} add constraint ${sql.id(uniqueName)} unique (${sql.id(column)})`.execute(this.db);
    const names = (m: ModelState) => new Set(this.indexesOf(m).filter((i) => i.fields.length === 1 && i.fields[0] === name).map((i) => i.name));
    const had = names(before);
    const has = names(after);
    for (const index of had) if (!has.has(index)) await this.dropIndex(before, index);
    for (const index of this.indexesOf(after)) if (has.has(index.name) && !had.has(index.name)) await this.createIndex(after, index);
  }

  async renameField(before: ModelState, after: ModelState, from: string, to: string): Promise<void> {
    const f = before.fields[from]!;
    if (f instanceof ManyToManyField) {
      // The join table is named after the field (Django's alter_db_table); its columns are named after the models.
      if (f.autoCreated) await this.db.schema.alterTable(autoJoinTableName(before.table, from)).renameTo(autoJoinTableName(after.table, to)).execute();
      return;
    }
    const oldColumn = before.fields[from]!.columnName(from);
    const newColumn = after.fields[to]!.columnName(to);
    await this.db.schema.alterTable(after.table).renameColumn(oldColumn, newColumn).execute();
    // The column's own index (db_index, foreign key) is named after it; SQLite's rebuilds rename it anyway.
    const oldIndex = indexName(before.table, [oldColumn]);
    if (this.dialect === 'postgres' && this.indexesOf(before).some((i) => i.name === oldIndex)) {
      await sql`alter index ${sql.id(oldIndex)} rename to ${sql.id(indexName(after.table, [newColumn]))}`.execute(this.db);
    }
  }

  async addConstraint(before: ModelState, after: ModelState, constraint: ConstraintDeclaration): Promise<void> {
    if (this.dialect === 'sqlite') return this.rebuild(before, after, {});
    const body =
      constraint.kind === 'check'
        ? sql`check (${sql.raw(constraint.check)})`
        : sql`unique (${sql.join(constraint.fields.map((n) => sql.id(columnOf(after, n))))})`;
    await sql`alter table ${sql.id(after.table)} add constraint ${sql.id(constraint.name)} ${body}`.execute(this.db);
  }

  async removeConstraint(before: ModelState, after: ModelState, name: string): Promise<void> {
    if (this.dialect === 'sqlite') return this.rebuild(before, after, {});
    await sql`alter table ${sql.id(after.table)} drop constraint ${sql.id(name)}`.execute(this.db);
  }

  /**
   * SQLite's table rebuild (Django's `_remake_table`): a new table is
   * created beside the old one, the rows copied, the old table dropped and
   * the new one renamed into its place, then the indexes created again.
   * `migrate` runs SQLite migrations with foreign-key enforcement off and
   * checks every key before it commits (as Django does), so dropping the
   * old table fires no ON DELETE action and the whole rebuild is one change.
   *
   * `copy` maps a new column to the SQL that fills it from the old table;
   * by default a column of the same name, or the field's default.
   */
  async rebuild(before: ModelState, after: ModelState, copy: Record<string, string>): Promise<void> {
    const fresh = `new__${after.table}`;
    const oldColumns = new Set(Object.entries(before.fields).filter(([, f]) => f.hasColumn).map(([n, f]) => f.columnName(n)));
    await this.createTable(after, fresh);
    const targets: string[] = [];
    const sources: string[] = [];
    for (const [name, f] of Object.entries(after.fields)) {
      if (!f.hasColumn) continue;
      const column = f.columnName(name);
      const source = copy[column] ?? (oldColumns.has(column) ? quote(column) : this.defaultSql(f));
      if (source === null) continue;
      targets.push(quote(column));
      sources.push(source);
    }
    await sql.raw(`insert into ${quote(fresh)} (${targets.join(', ')}) select ${sources.join(', ')} from ${quote(before.table)}`).execute(this.db);
    await sql`drop table ${sql.id(before.table)}`.execute(this.db);
    await sql`alter table ${sql.id(fresh)} rename to ${sql.id(after.table)}`.execute(this.db);
    await this.createIndexes(after);
  }

  private typeOf(model: ModelState, f: ModelField): string {
    if (!(f instanceof RelationField)) return columnType(f, this.dialect);
    const target = f.targetTable(model.table) === model.table ? model : modelOf(this.state, f.targetTable(model.table));
    return columnType(f, this.dialect, target.fields[primaryKeyOf(target)]);
  }

  /** The column's default as SQL, or null when it has none in the database. */
  private defaultSql(f: ModelField): string | null {
    if (f.kind === 'datetime' && (f.options['autoNow'] === true || f.options['autoNowAdd'] === true)) return nowDefault(this.dialect);
    const value = f.options.default;
    if (value === undefined || typeof value === 'function') return null;
    return literal(storedDefault(f, value, this.dialect));
  }

  private column(model: ModelState, f: ModelField, col: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
    if (f.primaryKey) {
      col = col.primaryKey();
      if (this.dialect === 'sqlite' && (f.kind === 'auto' || f.kind === 'bigAuto')) col = col.autoIncrement();
    }
    if (f.primaryKey || !f.null) col = col.notNull();
    if (!f.primaryKey && (f.options.unique === true || f.kind === 'oneToOne')) col = col.unique();
    const fallback = this.defaultSql(f);
    if (fallback !== null) col = col.defaultTo(sql.raw(fallback));
    if (f instanceof RelationField) {
      const table = f.targetTable(model.table);
      const target = table === model.table ? model : modelOf(this.state, table);
      const key = target.fields[primaryKeyOf(target)]!.columnName(primaryKeyOf(target));
      col = col.references(`${table}.${key}`).onDelete(ON_DELETE[f.onDelete]);
      // Django creates foreign keys DEFERRABLE INITIALLY DEFERRED on PostgreSQL.
      if (this.dialect === 'postgres') col = col.modifyEnd(sql`deferrable initially deferred`);
    }
    return col;
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** A constant as an SQL literal (defaults cannot be bound parameters in DDL). */
export function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return `'${String(value).replaceAll("'", "''")}'`;
}
