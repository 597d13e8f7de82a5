import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';
import { ModelField, field, ManyToManyField, RelationField, defaultModelName, type AutoField, type ModelNameOfTable, type RelationTarget } from './fields.js';
import { isoTime } from './column-types.js';

/** An index from `meta.indexes` (Django's `models.Index(fields=…, name=…)`). */
export interface IndexDeclaration {
  /** Field names, as declared (a foreign key by its field name or its `_id` column). */
  fields: readonly string[];
  /** Defaults to `<table>_<columns>_idx` (shortened with a hash past 63 characters). */
  name?: string;
  unique?: boolean;
}

/** A constraint from `meta.constraints`. */
export type ConstraintDeclaration =
  /** `CheckConstraint(check=…, name=…)`: the condition is SQL over the table's columns. */
  | { kind: 'check'; name: string; check: string }
  /** `UniqueConstraint(fields=…, name=…)`. */
  | { kind: 'unique'; name: string; fields: readonly string[] };

/** A model's options (Django's `class Meta`). */
export interface ModelMeta {
  /** Default ordering of lists, `-` for descending: `['-created', 'id']`. */
  ordering?: readonly string[];
  indexes?: readonly IndexDeclaration[];
  /** Each entry is a set of fields unique together (a unique constraint per set). */
  uniqueTogether?: ReadonlyArray<readonly string[]>;
  constraints?: readonly ConstraintDeclaration[];
  /**
   * The model's name in lower case, as Django's `model_name` (route names
   * `book-detail`, messages); defaults to the table name after its first
   * `_` (`catalogue_book` → `book`), or the whole name when it has none.
   */
  modelName?: string;
  /** The name in messages such as `No Book matches the given query.` (Django's `object_name`); defaults to `modelName` with a capital. */
  objectName?: string;
  /** A human name (`verbose_name`); defaults to `modelName`. */
  verboseName?: string;
  /** The plural (`verbose_name_plural`); defaults to `verboseName` + `s`. */
  verboseNamePlural?: string;
}

/** A check constraint for `meta.constraints`: `checkConstraint('catalogue_book_year_positive', 'year >= 0')`. */
export function checkConstraint(name: string, condition: string): ConstraintDeclaration {
  return { kind: 'check', name, check: condition };
}

/** A unique constraint over several fields, for `meta.constraints`. */
export function uniqueConstraint(name: string, fields: readonly string[]): ConstraintDeclaration {
  return { kind: 'unique', name, fields: [...fields] };
}

/** The fields a model declares. */
export type FieldMap = Record<string, ModelField>;

type AnyPrimaryKey<F extends FieldMap> = true extends {
  [K in keyof F]: F[K]['$primaryKey'];
}[keyof F]
  ? true
  : false;

/** The declared fields plus `id: field.auto()` unless a field is the primary key. */
export type WithPrimaryKey<F extends FieldMap> = AnyPrimaryKey<F> extends true ? F : { id: AutoField } & F;

/** The column a field is stored in: `author` → `author_id` for relations. */
type ColumnOf<K, F> = F extends RelationField ? `${K & string}_id` : K & string;
type Nullable<T, N> = N extends true ? T | null : T;
type InsertValue<T> = T extends Date | string ? (T extends Date ? Date | string : T) : T;

/** The Kysely column type of a field: what a select reads, an insert takes, an update takes. */
export type ColumnTypeOf<F> =
  F extends ModelField<infer T, infer N, infer D, boolean>
    ? ColumnType<
        Nullable<T, N>,
        Nullable<InsertValue<T>, N> | (D extends true ? undefined : never),
        Nullable<InsertValue<T>, N>
      >
    : never;

/** The Kysely table type of a set of fields (primary key included; a `manyToMany` field has no column). */
export type TableOf<F extends FieldMap> = {
  [K in keyof F as F[K] extends ManyToManyField ? never : ColumnOf<K, F[K]>]: ColumnTypeOf<F[K]>;
};

type AppOptionalKeys<F extends FieldMap> = {
  [K in keyof F]: F[K] extends ModelField<unknown, boolean, boolean, infer A> ? (A extends true ? ColumnOf<K, F[K]> : never) : never;
}[keyof F];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The values `model.insertValues()` takes: every field with any default (or `autoNow`) may be omitted. */
export type InsertOf<F extends FieldMap> = Simplify<
  Omit<Insertable<TableOf<F>>, AppOptionalKeys<F>> & Partial<Pick<Insertable<TableOf<F>>, AppOptionalKeys<F> & keyof Insertable<TableOf<F>>>>
>;

/**
 * A model: one table declared once. Its row, insert and update types are
 * inferred (`typeof Book.$inferSelect`, `$inferInsert`, `$inferUpdate`), its
 * Kysely table type is `typeof Book.$table`, and a set of models gives the
 * app's database type (`DatabaseOf`). Migrations are derived from it by
 * `trestle makemigrations`.
 */
export class Model<Name extends string = string, F extends FieldMap = FieldMap, MName extends string = string> implements RelationTarget {
  declare readonly $table: TableOf<F>;
  /** The model name as a type (the automatic join tables' column names are made of it). */
  declare readonly $modelName: MName;
  declare readonly $inferSelect: Simplify<Selectable<TableOf<F>>>;
  declare readonly $inferInsert: InsertOf<F>;
  declare readonly $inferUpdate: Simplify<Updateable<TableOf<F>>>;

  /** The fields, the primary key first; frozen. */
  readonly fields: Readonly<F>;
  readonly meta: Readonly<ModelMeta>;
  /** The primary key's field name (`id` unless a field sets `primaryKey: true`). */
  readonly primaryKey: string;

  constructor(
    readonly tableName: Name,
    fields: F,
    meta: ModelMeta = {},
  ) {
    this.meta = Object.freeze({ ...meta });
    // A many-to-many field knows its model and name: its join table is named after them.
    const bound: Record<string, ModelField> = {};
    for (const [name, f] of Object.entries(fields)) bound[name] = f instanceof ManyToManyField ? f.bind(this, name) : f;
    this.fields = Object.freeze(bound) as Readonly<F>;
    const keys = Object.entries(fields).filter(([, f]) => f.primaryKey);
    if (keys.length !== 1) {
      throw new Error(`Model ${tableName} must have exactly one primary key, found ${keys.length === 0 ? 'none' : keys.map(([n]) => n).join(', ')}.`);
    }
    this.primaryKey = keys[0]![0];
    checkDeclaration(tableName, fields, meta);
  }

  /** Django's `model_name`: `meta.modelName`, else the table name after its first `_`. */
  get modelName(): string {
    return this.meta.modelName || defaultModelName(this.tableName);
  }
  /** Django's `object_name` (`Book`), used in 404 messages. */
  get objectName(): string {
    return this.meta.objectName ?? this.modelName.charAt(0).toUpperCase() + this.modelName.slice(1);
  }
  /** Django's `verbose_name` (`book`), used in messages such as `book with this isbn already exists.` */
  get verboseName(): string {
    return this.meta.verboseName ?? this.modelName.replaceAll('_', ' ');
  }
  /** Django's `verbose_name_plural`. */
  get verboseNamePlural(): string {
    return this.meta.verboseNamePlural ?? `${this.verboseName}s`;
  }

  /** The column each field is stored in: `{ title: 'title', author: 'author_id' }` (`manyToMany` fields have none). */
  columns(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.fields).filter(([, f]) => f.hasColumn).map(([name, f]) => [name, f.columnName(name)]));
  }

  /** The columns of `columns()` in field order, found once: what a query that reads a whole row selects by name. */
  columnNames(): readonly string[] {
    return (this.columnNameList ??= Object.freeze(Object.values(this.columns())));
  }
  private columnNameList: readonly string[] | undefined;

  /** The `manyToMany` fields, by name. */
  manyToMany(): Record<string, ManyToManyField> {
    return Object.fromEntries(Object.entries(this.fields).filter((e): e is [string, ManyToManyField] => e[1] instanceof ManyToManyField));
  }

  /**
   * The row to insert: `values` with every omitted field that has a
   * callable default (or `autoNow`/`autoNowAdd`) filled in, as Django's
   * `Model.save()` does before its INSERT. Constant defaults are left to the
   * database.
   */
  insertValues(values: InsertOf<F>): Insertable<TableOf<F>> {
    // Object.assign, not a spread: a column added to a spread copy is a slow store in V8 (see response.ts).
    return this.fillInsertValues(Object.assign({}, values as Record<string, unknown>)) as Insertable<TableOf<F>>;
  }

  /**
   * `insertValues` on an object of the caller's own, filled where it is (no
   * copy): a model serializer's values, made for the one insert.
   * @internal
   */
  fillInsertValues(out: Record<string, unknown>): Record<string, unknown> {
    for (const [column, fallback] of (this.insertFills ??= this.findInsertFills())) {
      if (out[column] !== undefined) continue;
      out[column] = fallback === null ? isoTime() : fallback();
    }
    return out;
  }

  /**
   * What `fillInsertValues` puts in `column` when it is omitted: its callable
   * default, `null` for now (`autoNow`/`autoNowAdd`), `undefined` when it
   * fills nothing there.
   * @internal
   */
  insertFillOf(column: string): (() => unknown) | null | undefined {
    for (const [c, fallback] of (this.insertFills ??= this.findInsertFills())) if (c === column) return fallback;
    return undefined;
  }

  /** The columns `insertValues` fills when omitted, in field order, each with its callable default (`null`: now, for `autoNow`/`autoNowAdd`); found once. */
  private insertFills: ReadonlyArray<readonly [string, (() => unknown) | null]> | undefined;

  private findInsertFills(): ReadonlyArray<readonly [string, (() => unknown) | null]> {
    const fills: Array<readonly [string, (() => unknown) | null]> = [];
    for (const [name, f] of Object.entries(this.fields)) {
      if (!f.hasColumn) continue;
      const fallback = f.options.default;
      if (typeof fallback === 'function') fills.push([f.columnName(name), fallback as () => unknown]);
      else if (f.kind === 'datetime' && (f.options['autoNow'] === true || f.options['autoNowAdd'] === true)) fills.push([f.columnName(name), null]);
    }
    return fills;
  }

  /** The changes to write: `values` with `autoNow` fields set to now, as Django's `save()` does. */
  updateValues(values: Updateable<TableOf<F>>): Updateable<TableOf<F>> {
    // Object.assign, not a spread: a column added to a spread copy is a slow store in V8 (see response.ts).
    const out: Record<string, unknown> = Object.assign({}, values as Record<string, unknown>);
    for (const [name, f] of Object.entries(this.fields)) {
      if (f.kind === 'datetime' && f.options['autoNow'] === true && out[name] === undefined) out[name] = isoTime();
    }
    return out as Updateable<TableOf<F>>;
  }
}

/**
 * Declares a model: the table name, its fields and Django's `Meta` options.
 * An auto-incremented `id` primary key is added unless a field is declared
 * with `primaryKey: true`.
 *
 * @example
 * export const Author = model('catalogue_author', {
 *   name: field.char({ maxLength: 200 }),
 *   created: field.datetime({ autoNowAdd: true }),
 * }, { ordering: ['-created'], indexes: [{ fields: ['created', 'id'] }] });
 * type AuthorRow = typeof Author.$inferSelect; // { id: number; name: string; created: Date | string }
 */
export function model<const Name extends string, F extends FieldMap, const MName extends string = ModelNameOfTable<Name>>(
  tableName: Name,
  fields: F,
  meta?: ModelMeta & { modelName?: MName },
): Model<Name, WithPrimaryKey<F>, MName> {
  const hasKey = Object.values(fields).some((f) => f.options.primaryKey === true);
  const all = (hasKey ? fields : { id: field.auto(), ...fields }) as WithPrimaryKey<F>;
  return new Model(tableName, all, meta);
}

/** Any model, whatever its fields. */
export type AnyModel = Model<string, FieldMap, string>;

type Key = ColumnType<number, number | undefined, number>;
type ForeignKey = ColumnType<number, number, number>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The Kysely table type of an automatic join table between models named
 * `Source` and `Target` (`'self'` for the same model): `id`, `<source>_id`,
 * `<target>_id`, or `from_<m>_id`/`to_<m>_id` for a relation to itself.
 */
export type JoinTableOf<Source extends string, Target extends string> =
  Same<Target extends 'self' ? Source : Target, Source> extends true
    ? { id: Key } & { [C in `from_${Source}_id` | `to_${Source}_id`]: ForeignKey }
    : { id: Key } & { [C in `${Source}_id` | `${Target}_id`]: ForeignKey };

/** The automatic join tables a model's `manyToMany` fields create, as `{ key, table }` entries. */
export type JoinTablesOf<M extends AnyModel> = M extends AnyModel
  ? {
      [K in keyof M['fields'] & string]: M['fields'][K] extends ManyToManyField<infer To, true>
        ? { key: `${M['tableName']}_${K}`; table: Simplify<JoinTableOf<M['$modelName'], To>> }
        : never;
    }[keyof M['fields'] & string]
  : never;

type TableEntry<M extends AnyModel> = M extends AnyModel ? { key: M['tableName']; table: M['$table'] } : never;

/**
 * The Kysely database type of a set of models: `Kysely<DatabaseOf<[typeof Author, typeof Book]>>`,
 * each model's table and the join tables of its `manyToMany` fields.
 * Merge it into `AppTypes['database']` so every view's `db` is typed.
 */
export type DatabaseOf<Models extends readonly AnyModel[]> = {
  [E in TableEntry<Models[number]> | JoinTablesOf<Models[number]> as E['key']]: E['table'];
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkDeclaration(table: string, fields: FieldMap, meta: ModelMeta): void {
  if (!NAME.test(table)) throw new Error(`Model table name "${table}" must be letters, digits and underscores.`);
  const columns = new Set<string>();
  for (const [name, f] of Object.entries(fields)) {
    if (!(f instanceof ModelField)) throw new Error(`Model ${table}: field "${name}" is not a model field (use field.char(…), field.integer(…), …).`);
    if (!NAME.test(name)) throw new Error(`Model ${table}: field name "${name}" must be letters, digits and underscores.`);
    if (f instanceof ManyToManyField) {
      if (f.options['throughFields'] !== undefined && f.autoCreated) throw new Error(`Model ${table}: field "${name}" gives throughFields without a through model.`);
      continue;
    }
    const column = f.columnName(name);
    if (columns.has(column)) throw new Error(`Model ${table}: two fields use the column "${column}".`);
    columns.add(column);
    if ((f.kind === 'char') && !(Number.isInteger(f.options['maxLength']) && (f.options['maxLength'] as number) > 0)) {
      throw new Error(`Model ${table}: field "${name}" needs a positive integer maxLength.`);
    }
    if (f.kind === 'decimal') {
      const digits = f.options['maxDigits'];
      const places = f.options['decimalPlaces'];
      if (!Number.isInteger(digits) || !Number.isInteger(places) || (places as number) < 0 || (digits as number) < (places as number) || (digits as number) < 1) {
        throw new Error(`Model ${table}: field "${name}" needs integers maxDigits >= decimalPlaces >= 0.`);
      }
    }
    if (f instanceof RelationField && f.onDelete === 'setNull' && !f.null) {
      throw new Error(`Model ${table}: field "${name}" has onDelete 'setNull' but is not null: true.`);
    }
  }
  const known = (name: string): boolean => name in fields || columns.has(name);
  const checkNames = (where: string, names: readonly string[]): void => {
    for (const n of names) {
      if (!known(n)) throw new Error(`Model ${table}: ${where} names "${n}", which is not a field.`);
      if (fields[n] instanceof ManyToManyField) throw new Error(`Model ${table}: ${where} names "${n}", a manyToMany field, which has no column.`);
    }
  };
  for (const o of meta.ordering ?? []) checkNames('ordering', [o.replace(/^-/, '')]);
  for (const i of meta.indexes ?? []) checkNames('an index', i.fields);
  for (const u of meta.uniqueTogether ?? []) checkNames('uniqueTogether', u);
  for (const c of meta.constraints ?? []) if (c.kind === 'unique') checkNames(`constraint ${c.name}`, c.fields);
}
