import { createQueryId, NoResultError, sql, type CompiledQuery, type Kysely, type QueryExecutor } from 'kysely';
import { directExecutorOf, readNow } from '../db/direct.js';
import { isThenable, promiseOf } from '../utils/thenable.js';
import { allRowsOf } from '../db/query-shapes.js';
import type { ApiRequest } from '../request.js';
import { toDbBoolean, toDbTimestamp } from '../db/schema.js';
import { ManyToManyField, RelationField, type ModelField, type RelationTarget } from '../models/fields.js';
import type { AnyModel } from '../models/model.js';
import type { ModelSaving, SaveContext } from '../models/saving.js';
import { Field, pythonType, type FieldContext, type FieldFlags, type FieldOptions, type FieldValidator, type JsonSchema, type SchemaMode } from './field.js';
import {
  BooleanField,
  CharField,
  ChoiceField,
  DateField,
  DateTimeField,
  DecimalField,
  EmailField,
  FloatField,
  IntegerField,
  JSONField,
  ListField,
  SlugField,
  TimeField,
  URLField,
  UUIDField,
  type AnyField,
} from './fields.js';
import { compileInsertParameters, hasKeys, type InsertParameters, type InsertSource, type ValueKind } from './compiled-insert.js';
import { HyperlinkedIdentityField, HyperlinkedRelatedField, PrimaryKeyRelatedField, type RelatedField, type RelatedQueryset } from './relations.js';
import { Serializer, type Shape } from './serializer.js';
import { UniqueTogetherValidator, UniqueValidator } from './validators.js';
import { insertGuards, lookupsLeftOn, RelatedRowMissing, type DeferredLookups, type ForeignKeyTarget, type InsertGuard } from './deferred-lookups.js';

/** A row as a model serializer's `create` and `update` return it. */
type Saved<M extends AnyModel> = M['$inferSelect'] & Record<string, unknown>;

// DRF's ModelSerializer (rest_framework/serializers.py and
// rest_framework/utils/field_mapping.py): the fields of a serializer derived
// from a model declaration with DRF's rules, and the writes of DRF's
// `create()`/`update()` on the model's table.

/** The options of a field that `extraKwargs` may set (DRF's `extra_kwargs`). */
export type ExtraKwargs = FieldOptions<never> & {
  maxLength?: number;
  minLength?: number;
  minValue?: number;
  maxValue?: number;
  allowBlank?: boolean;
  /** A related field's objects (DRF's `extra_kwargs={'author': {'queryset': …}}`): default, every row of the target. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  queryset?: RelatedQueryset<any>;
};

/** What `modelSerializer(Model, options)` takes (DRF's `class Meta`). */
export interface ModelSerializerOptions<M extends AnyModel = AnyModel> {
  /** The fields, in order (`'__all__'`: DRF's default order — the key, declared fields, fields, then relations). */
  fields?: '__all__' | readonly string[];
  /** Model fields left out (only with `fields` not given or `'__all__'`). */
  exclude?: readonly (keyof M['fields'] & string)[];
  /** Fields rendered but never accepted (DRF's `read_only_fields`). */
  readOnlyFields?: readonly string[];
  /** Options merged into the derived fields, as DRF's `extra_kwargs`. */
  extraKwargs?: { readonly [K in keyof M['fields']]?: ExtraKwargs };
  /** Fields declared by hand: they replace a derived field of the same name, or add one (`computed(…)`). */
  declared?: Shape;
  /** Relations rendered as nested read-only serializers of the target, this many levels deep (0 to 10). */
  depth?: number;
  /**
   * DRF's `HyperlinkedModelSerializer`: a `url` identity field (view
   * `<modelName>-detail`) instead of the key, and relations as links to
   * `<target modelName>-detail`.
   */
  hyperlinked?: boolean;
  /** The identity field's name with `hyperlinked` (DRF's `URL_FIELD_NAME`; default `url`). */
  urlFieldName?: string;
  /** The OpenAPI component name (default: the model's `objectName`). */
  name?: string;
  /** Serializer-level validators; when given they replace the derived unique-together validators, as DRF's `Meta.validators`. */
  validators?: readonly FieldValidator<unknown>[];
}

// ------------------------------------------------------------------ types

/** A related row, as a related field's validated value. */
export type RelatedRow = Record<string, unknown>;
type AnyModelField = ModelField<unknown, boolean, boolean, boolean, boolean>;
type OrNull<MF extends AnyModelField, T> = MF['$null'] extends true ? T | null : T;

/** The validated value of a model field's serializer field (a chain of cases, first match wins). */
type InValue<MF extends AnyModelField> =
  MF extends ManyToManyField ? RelatedRow[]
  : MF extends RelationField ? RelatedRow
  : MF['$decimal'] extends true ? string
  : unknown extends MF['$type'] ? string // a JSON column's text
  : MF['$type'] extends boolean ? boolean
  : Date extends MF['$type'] ? Date
  : number extends MF['$type'] ? number // integer, float, bigInteger (text from PostgreSQL's driver)
  : MF['$type'];

/** The rendered value of a model field's serializer field. */
type OutValue<MF extends AnyModelField, O> =
  MF extends ManyToManyField ? RelatedOut<O>[]
  : MF extends RelationField ? RelatedOut<O>
  : MF['$decimal'] extends true ? string
  : unknown extends MF['$type'] ? unknown
  : Date extends MF['$type'] ? string
  : number extends MF['$type'] ? number
  : MF['$type'];

/** A related row rendered: nested with `depth`, a link with `hyperlinked`, else its key. */
type RelatedOut<O> = Depth<O> extends true ? Record<string, unknown> : O extends { hyperlinked: true } ? string : number;

type Depth<O> = O extends { depth: infer D extends number } ? (D extends 0 ? false : true) : false;
type ListOf<O, Key extends string> = O extends { [P in Key]: readonly (infer N)[] } ? N : never;
type ExtraOf<O, K> = O extends { extraKwargs: infer E } ? (K extends keyof E ? E[K] : {}) : {};

/** DRF's flags of a derived field: read-only when generated (or a nested relation), optional with null, blank or a default. */
type FlagsOfModelField<MF extends AnyModelField, O, K> = ApplyExtra<
  {
    readOnly: MF['$generated'] extends true ? true
      : MF extends ManyToManyField<string, false> ? true // through a model of its own: DRF makes it read-only
      : MF extends RelationField | ManyToManyField ? Depth<O>
      : false;
    writeOnly: false;
    optional: true extends MF['$null'] | MF['$appDefault'] | MF['$blank'] | MF['$generated'] ? true : false;
  },
  ExtraOf<O, K>,
  K extends ListOf<O, 'readOnlyFields'> ? true : false
>;

type ApplyExtra<F extends FieldFlags, E, ReadOnly extends boolean> = {
  readOnly: ReadOnly extends true ? true : E extends { readOnly: true } ? true : F['readOnly'];
  writeOnly: E extends { writeOnly: true } ? true : F['writeOnly'];
  optional: E extends { required: false } ? true : E extends { required: true } ? false : E extends { default: unknown } ? true : F['optional'];
};

/** The serializer field derived from model field `MF` named `K`. */
type DerivedField<MF extends AnyModelField, O, K> = Field<OrNull<MF, InValue<MF>>, OrNull<MF, OutValue<MF, O>>, FlagsOfModelField<MF, O, K>>;

type UrlName<O> = O extends { urlFieldName: infer U extends string } ? U : 'url';
type UrlField = Field<never, string, { readOnly: true; writeOnly: false; optional: true }>;
type DeclaredOf<O> = O extends { declared: infer D extends Shape } ? D : {};
type PrimaryKeyOf<F> = { [K in keyof F]: F[K] extends { $primaryKey: true } ? K : never }[keyof F];
type DefaultNames<F, O> = (O extends { hyperlinked: true } ? UrlName<O> | Exclude<keyof F, PrimaryKeyOf<F>> : keyof F) | keyof DeclaredOf<O>;
type NamesOf<F, O> = O extends { fields: readonly (infer N)[] } ? N : Exclude<DefaultNames<F, O>, ListOf<O, 'exclude'>>;

/** The fields of `modelSerializer(M, O)`, by name: declared fields as declared, model fields as DRF derives them. */
export type ModelShape<M extends AnyModel, O> = {
  [K in NamesOf<M['fields'], O> & string]: AsField<
    K extends keyof DeclaredOf<O>
      ? DeclaredOf<O>[K]
      : K extends keyof M['fields']
        ? DerivedField<M['fields'][K], O, K>
        : K extends UrlName<O>
          ? UrlField
          : never
  >;
};
type AsField<X> = X extends AnyField ? X : never;

// ------------------------------------------------------------------ the serializer

/**
 * DRF's `ModelSerializer`: a `Serializer` whose fields are derived from a
 * model (see `modelSerializer`), which also writes: `create` inserts the
 * validated data into the model's table, `update` writes the fields given.
 * A model view (or any view's `performCreate`/`performUpdate`) calls them.
 */
export class ModelSerializer<M extends AnyModel = AnyModel, S extends Shape = Shape>
  extends Serializer<S>
  implements ModelSaving<M['$inferSelect'] & Record<string, unknown>>
{
  readonly depth: number;
  private readonly nestedRelations: readonly (readonly [name: string, target: ModelSerializer])[];
  private readonly toMany: readonly ToMany[];
  private readonly foreignKeys: Built['foreignKeys'];

  constructor(
    readonly model: M,
    readonly options: ModelSerializerOptions<M>,
    fieldOptions: FieldOptions<unknown> = {},
  ) {
    const built = buildFields(model, options);
    super(built.fields as S, { name: options.name ?? model.objectName, validators: built.validators, ...fieldOptions });
    this.depth = options.depth ?? 0;
    this.nestedRelations = built.nested;
    this.toMany = built.toMany;
    this.foreignKeys = built.foreignKeys;
  }

  /**
   * Inserts the validated data as a new row (`model.insertValues` fills
   * callable defaults and `autoNowAdd`) and returns it as stored, with the
   * nested relations loaded.
   */
  create(db: Kysely<any>, data: Record<string, unknown>, ctx: SaveContext = { request: null }): Promise<Saved<M>> {
    return promiseOf(() => this.createNow(db, data, ctx));
  }

  /**
   * `create` without a promise where the database answers at once (SQLite
   * outside a transaction, see `readNow`): the row itself, else a promise.
   * A model view calls this one when `create` is this class's own.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createNow(db: Kysely<any>, data: Record<string, unknown>, _ctx: SaveContext = { request: null }): Saved<M> | Promise<Saved<M>> {
    this.refuseNestedWrites('create', data);
    // Related rows left to the insert to find (PostgreSQL, see deferred-lookups.ts).
    const guards = insertGuards(data);
    const compiled = this.compiledInserts;
    // Compiled inserts only for data of a plain object (no inherited keys to read).
    const executor = Object.getPrototypeOf(data) === Object.prototype ? db.getExecutor() : null;
    if (executor !== null && compiled.length > 0) {
      for (const insert of compiled) {
        if (insert.executor !== executor || !hasKeys(data, insert.keys)) continue;
        const parameters = insert.parameters(data);
        if (parameters === null) continue;
        const row =
          guards === null
            ? runKnownInsert(executor, insert.shape, parameters)
            : guardedInsertReturning(db, this.model.tableName, insert.columns, parameters, this.model.columnNames(), guards);
        if (isThenable(row)) return row.then((r) => this.afterSave(db, r, data));
        return this.afterSave(db, row, data);
      }
    }
    const values = this.insertValues(data);
    const row = guards === null ? insertReturning(db, this.model.tableName, values, this.model.columnNames()) : guardedInsertOf(db, this.model.tableName, values, this.model.columnNames(), guards);
    if (executor !== null && (this.insertCompiles < MAX_COMPILED_INSERTS || executor !== this.insertExecutor)) this.compileInsert(executor, data, values);
    if (isThenable(row)) return row.then((r) => this.afterSave(db, r, data));
    return this.afterSave(db, row, data);
  }

  /** The columns and values of the row `data` inserts, the generic way. */
  private insertValues(data: Record<string, unknown>): Record<string, unknown> {
    // columnValues' object is this insert's own: the model's fills go into it, no copy.
    const values = this.model.fillInsertValues(this.columnValues(data));
    // Django's save() gives an omitted string field with no default its empty string (Field.get_default()).
    for (const name of (this.emptyStringFields ??= this.findEmptyStringFields())) if (values[name] === undefined) values[name] = '';
    // Its booleans and dates are made storable where they are.
    for (const k in values) {
      const v = values[k];
      if (typeof v === 'boolean' || v instanceof Date) values[k] = storableValue(v);
    }
    return values;
  }

  /** The inserts compiled for shapes of validated data seen (see compiled-insert.ts), tried in order. */
  private readonly compiledInserts: CompiledInsert[] = [];
  /** Shapes `compileInsert` has looked at on `insertExecutor`, compiled or not: it stops at MAX_COMPILED_INSERTS. */
  private insertCompiles = 0;
  /** The executor of the compiled inserts (another database opened, they start again). */
  private insertExecutor: QueryExecutor | null = null;

  /**
   * Compiles the insert `createNow` just built the generic way from `data`
   * (its `values`), once its SQL is known on `executor` (the app's own):
   * where each column came from — a key of the data, now, `''` — and the
   * kind of each value. Nothing is compiled for a shape with a callable
   * default (a second call, when the compiled function hands back, would be
   * seen) or another value the generic way adds, a relation without its key, two keys writing one column, or a key
   * inherited rather than the data's own.
   */
  private compileInsert(executor: QueryExecutor, data: Record<string, unknown>, values: Record<string, unknown>): void {
    const known = insertShapes.get(executor)?.get(this.model.tableName);
    const found = known === undefined ? undefined : knownInsertOf(known, values);
    const shape = found?.shape;
    if (!shape) return;
    if (executor !== this.insertExecutor) {
      this.compiledInserts.length = 0;
      this.insertCompiles = 0;
      this.insertExecutor = executor;
    }
    if (this.insertCompiles++ >= MAX_COMPILED_INSERTS) return;
    const keys: string[] = [];
    const absent: string[] = [];
    const byColumn = new Map<string, InsertSource>();
    for (const key in data) {
      if (!Object.hasOwn(data, key)) return;
      keys.push(key);
      if (data[key] === undefined) {
        absent.push(key);
        continue;
      }
      const plan = this.columnPlans?.get(key);
      if (plan === undefined || plan === null) return;
      if (plan.toMany) continue;
      if (byColumn.has(plan.column) || values[plan.column] === undefined) return;
      byColumn.set(plan.column, { from: 'data', name: key, relatedKey: plan.relatedKey });
    }
    const parameters: [InsertSource, ValueKind][] = [];
    const empty = this.emptyStringFields ?? [];
    for (const column in values) {
      const value = values[column];
      if (value === undefined) continue;
      const kind = valueKind(value);
      if (kind === null) return;
      let source = byColumn.get(column);
      if (source === undefined) {
        const fill = this.model.insertFillOf(column);
        if (fill === null) source = { from: 'now' };
        else if (fill === undefined && empty.includes(column)) source = { from: 'empty' };
        else return;
      }
      parameters.push([source, kind]);
    }
    const build = compileInsertParameters({ absent, parameters }, relatedKey, storableValue);
    if (build !== null) this.compiledInserts.push({ executor, keys, parameters: build, shape, columns: found.columns });
  }

  /** The row written, after the many-to-many rows and the relations it is rendered with (`afterWrite`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private afterSave(db: Kysely<any>, row: Record<string, unknown>, data: Record<string, unknown>): Saved<M> | Promise<Saved<M>> {
    const after = this.afterWrite(db, row, data);
    if (after !== undefined) return after.then(() => row as Saved<M>);
    return row as Saved<M>;
  }

  /**
   * The related fields whose lookup a create on `db` may leave to the
   * foreign key (see deferred-lookups.ts), or `undefined`: only while no
   * code but this class's own sees the validated data before the insert
   * (its own `validate`, `toInternal`, `create` and `createNow`, no
   * serializer-level validators but unique-together ones, no many-to-many
   * field, none of the field's own validators) and the insert can check the
   * key (SQLite's foreign key, PostgreSQL's guard). A model view's own `create` asks, when its `validate` and
   * `performCreate` are its own.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  lookupsLeftToInsert(db: Kysely<any>): DeferredLookups | undefined {
    const foreignKeys = this.foreignKeys;
    if (foreignKeys.size === 0 || this.toMany.length > 0) return undefined;
    // The model's own unique-together checks compare a related value by its key alone (`keyValue`).
    for (const validator of this.validators) if (Object.getPrototypeOf(validator) !== UniqueTogetherValidator.prototype) return undefined;
    const own = ModelSerializer.prototype;
    if (this.validate !== own.validate || this.validateNow !== own.validateNow || this.toInternal !== own.toInternal) return undefined;
    if (this.create !== own.create || this.createNow !== own.createNow) return undefined;
    return lookupsLeftOn(db, this.model.tableName, foreignKeys);
  }

  /**
   * True when this serializer's own `create` or `update` (not a subclass's)
   * writes `data` in one statement: the row's `INSERT` or `UPDATE`, no
   * many-to-many field given. Its reads afterwards (nested relations) need
   * no transaction.
   */
  writesOneStatement(method: 'create' | 'update', data: Record<string, unknown>): boolean {
    if (this[method] !== ModelSerializer.prototype[method]) return false;
    for (const [name] of this.toMany) if (Array.isArray(data[name])) return false;
    return true;
  }

  /**
   * Writes the fields given (all of them for PUT, those sent for PATCH) to
   * `instance`'s row, `autoNow` fields set to now (`model.updateValues`),
   * and returns the row as stored.
   */
  update(db: Kysely<any>, instance: Record<string, unknown>, data: Record<string, unknown>, ctx: SaveContext = { request: null }): Promise<Saved<M>> {
    return promiseOf(() => this.updateNow(db, instance, data, ctx));
  }

  /**
   * `update` without a promise where the database answers at once (SQLite
   * outside a transaction, see `readNow`): the row itself, else a promise.
   * A model view calls this one when `update` is this class's own.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  updateNow(db: Kysely<any>, instance: Record<string, unknown>, data: Record<string, unknown>, _ctx: SaveContext = { request: null }): Saved<M> | Promise<Saved<M>> {
    this.refuseNestedWrites('update', data);
    const changes = this.model.updateValues(this.columnValues(data) as never) as Record<string, unknown>;
    const pk = this.model.primaryKey;
    const compiled =
      Object.keys(changes).length === 0
        ? db.selectFrom(this.model.tableName).selectAll().where(pk, '=', instance[pk]).compile()
        : db.updateTable(this.model.tableName).set(storable(changes)).where(pk, '=', instance[pk]).returningAll().compile();
    const executor = db.getExecutor();
    const rows = readNow(executor, compiled);
    if (rows !== undefined) return this.afterSave(db, firstRow(rows, compiled.query), data);
    return executor.executeQuery(compiled).then((result) => this.afterSave(db, firstRow(result.rows, compiled.query), data));
  }

  /**
   * The many-to-many rows of `data`, then the relations `row` is rendered
   * with; nothing to wait for when the serializer has neither (and
   * `loadRelated` is its own).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private afterWrite(db: Kysely<any>, row: Record<string, unknown>, data: Record<string, unknown>): Promise<void> | void {
    if (this.toMany.length === 0 && this.nestedRelations.length === 0 && this.loadRelated === ModelSerializer.prototype.loadRelated) return;
    return this.writeToMany(db, row, data).then(() => this.loadRelated(db, [row]));
  }

  /**
   * The relations the representation reads: to-one fields rendered nested
   * (`depth`) by field name, deeper levels as Django writes them
   * (`author__publisher`).
   */
  relatedToLoad(): { selectRelated: readonly string[]; prefetchRelated: readonly string[] } {
    // Fixed once the serializer is built: made on the first request, not on each.
    return (this.related ??= this.relationsRead());
  }

  private related: { readonly selectRelated: readonly string[]; readonly prefetchRelated: readonly string[] } | undefined = undefined;

  private relationsRead(): { selectRelated: readonly string[]; prefetchRelated: readonly string[] } {
    const selectRelated: string[] = [];
    for (const [name, nested] of this.nestedRelations) {
      selectRelated.push(name);
      for (const deeper of nested.relatedToLoad().selectRelated) selectRelated.push(`${name}__${deeper}`);
    }
    const prefetchRelated = this.toMany.map(([name]) => name);
    return Object.freeze({ selectRelated: Object.freeze(selectRelated), prefetchRelated: Object.freeze(prefetchRelated) });
  }

  /**
   * Attaches the related rows the representation reads (`row.author = {…}`)
   * to `rows`, one query per relation and level, as a model view does for a
   * page.
   */
  async loadRelated(db: Kysely<any>, rows: Record<string, unknown>[]): Promise<void> {
    for (const [name, nested] of this.nestedRelations) {
      const f = this.model.fields[name] as RelationField;
      const column = f.columnName(name);
      const targetPk = nested.model.primaryKey;
      const keys = [...new Set(rows.map((r) => r[column]).filter((k) => k !== null && k !== undefined))];
      const related =
        keys.length === 0
          ? []
          : ((await db.selectFrom(nested.model.tableName).selectAll().where(targetPk, 'in', keys as never[]).execute()) as Record<string, unknown>[]);
      await nested.loadRelated(db, related);
      const byKey = new Map(related.map((r) => [String(r[targetPk]), r]));
      for (const r of rows) r[name] = r[column] === null || r[column] === undefined ? null : (byKey.get(String(r[column])) ?? null);
    }
    for (const [name, f, nested] of this.toMany) {
      const target = targetOf(this.model, f);
      const pk = this.model.primaryKey;
      const keys = [...new Set(rows.map((r) => r[pk]).filter((k) => k !== null && k !== undefined))];
      const [join, from, to] = [f.throughTable(), f.sourceColumn(), f.targetColumn()];
      const pairs =
        keys.length === 0 ? [] : ((await db.selectFrom(join).select([from, to]).where(from, 'in', keys as never[]).execute()) as Record<string, unknown>[]);
      const targetKeys = [...new Set(pairs.map((p) => p[to]))];
      const related =
        targetKeys.length === 0
          ? []
          : ((await db.selectFrom(target.tableName).selectAll().where(target.primaryKey, 'in', targetKeys as never[]).orderBy(target.primaryKey).execute()) as Record<string, unknown>[]);
      if (nested) await nested.loadRelated(db, related);
      const bySource = new Map<string, Set<string>>();
      for (const p of pairs) {
        const set = bySource.get(String(p[from])) ?? new Set<string>();
        set.add(String(p[to]));
        bySource.set(String(p[from]), set);
      }
      // In the target's key order, as the loaded list of the row convention.
      for (const r of rows) {
        const mine = bySource.get(String(r[pk]));
        r[name] = mine ? related.filter((t) => mine.has(String(t[target.primaryKey]))) : [];
      }
    }
  }

  /**
   * Sets the many-to-many fields given in `data` to exactly the rows given
   * (Django's `set()`): pairs no longer given are deleted, new ones inserted.
   */
  private async writeToMany(db: Kysely<any>, row: Record<string, unknown>, data: Record<string, unknown>): Promise<void> {
    for (const [name, f] of this.toMany) {
      const given = data[name];
      if (!Array.isArray(given)) continue;
      const targetPk = targetOf(this.model, f).primaryKey;
      const [join, from, to] = [f.throughTable(), f.sourceColumn(), f.targetColumn()];
      const key = row[this.model.primaryKey];
      const wanted = [...new Map(given.map((v) => [String(relatedKey(v, targetPk)), relatedKey(v, targetPk)])).values()];
      const existing = ((await db.selectFrom(join).select(to).where(from, '=', key).execute()) as Record<string, unknown>[]).map((r) => r[to]);
      const keep = new Set(wanted.map(String));
      const gone = existing.filter((k) => !keep.has(String(k)));
      if (gone.length > 0) await db.deleteFrom(join).where(from, '=', key).where(to, 'in', gone as never[]).execute();
      const have = new Set(existing.map(String));
      const added = wanted.filter((k) => !have.has(String(k)));
      if (added.length > 0) await db.insertInto(join).values(added.map((k) => ({ [from]: key, [to]: k }))).execute();
    }
  }

  /** The validated data as column values: a related row becomes its key, a field with a `source` writes that column. */
  private columnValues(data: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const plans = (this.columnPlans ??= new Map());
    for (const name in data) {
      if (!Object.hasOwn(data, name)) continue;
      const value = data[name];
      if (value === undefined) continue;
      let plan = plans.get(name);
      if (plan === undefined) plans.set(name, (plan = this.columnPlan(name)));
      if (plan === null) {
        throw new TypeError(
          `Got a TypeError when calling ${this.model.objectName}'s create or update: the field \`${name}\` of serializer \`${this.name ?? 'ModelSerializer'}\` ` +
            `is not a field of the model (${this.model.tableName}). Leave it out of the validated data, or make it read-only.`,
        );
      }
      if (plan.toMany) continue; // written to the join table after the row
      out[plan.column] = plan.relatedKey === null ? value : relatedKey(value, plan.relatedKey);
    }
    return out;
  }

  /** The model's string fields an insert gives `''` when omitted (no null, no default, not the key), in field order; found once. */
  private emptyStringFields: readonly string[] | undefined;

  private findEmptyStringFields(): readonly string[] {
    const names: string[] = [];
    for (const [name, f] of Object.entries(this.model.fields)) {
      if (CHAR_KINDS.has(f.kind) && !f.null && f.options.default === undefined && !f.primaryKey) names.push(name);
    }
    return names;
  }

  /** Per name of validated data, what `columnValues` writes (worked out once): `null` when no field of the model takes it. */
  private columnPlans: Map<string, ColumnPlan | null> | undefined;

  private columnPlan(name: string): ColumnPlan | null {
    const fields = this.fields as Shape;
    const source = (Object.hasOwn(fields, name) ? fields[name]!.source : undefined) ?? name;
    const found = modelFieldFor(this.model, source);
    if (!found) return null;
    const [fieldName, mf] = found;
    return {
      column: mf.columnName(fieldName),
      toMany: mf instanceof ManyToManyField,
      relatedKey: mf instanceof RelationField ? targetOf(this.model, mf).primaryKey : null,
    };
  }

  /**
   * The writable fields whose data `refuseNestedWrites` refuses, in order, each
   * with whether it is nested (else its source is dotted): those of the
   * model's relations (worked out once).
   */
  private nestedWriteGuards: readonly (readonly [name: string, nested: boolean])[] | undefined;

  /** DRF's `raise_errors_on_nested_writes`: writable nested data is a programming error, not a client's. */
  private refuseNestedWrites(method: 'create' | 'update', data: Record<string, unknown>): void {
    const guards = (this.nestedWriteGuards ??= this.nestedWriteFields());
    for (const [name, nested] of guards) {
      if (!Object.hasOwn(data, name)) continue;
      const value = data[name];
      // Validated data is keyed by field name: a dotted source's value is the leaf, not the dict DRF would hold.
      const objectGiven = value !== null && typeof value === 'object' && !(value instanceof Date);
      if (!nested || objectGiven) {
        const kind = nested ? 'nested' : 'dotted-source';
        throw new Error(
          `The \`.${method}()\` method does not support writable ${kind} fields by default.\n` +
            `Write an explicit \`.${method}()\` method for serializer \`${this.name ?? 'ModelSerializer'}\`, or set \`read_only=True\` on ${kind} serializer fields.`,
        );
      }
    }
  }

  private nestedWriteFields(): (readonly [string, boolean])[] {
    const guards: (readonly [string, boolean])[] = [];
    for (const [name, field] of Object.entries(this.fields as Shape)) {
      if (field.readOnly) continue;
      const nested = field instanceof Serializer || (field instanceof ListField && field.child instanceof Serializer);
      const source = field.source ?? name;
      const dotted = source.includes('.');
      // As DRF: only data for one of the model's relations (a dict or a list) is refused.
      const target = modelFieldFor(this.model, source.split('.')[0]!)?.[1];
      const relation = target instanceof RelationField || target instanceof ManyToManyField;
      if (relation && (nested || dotted)) guards.push([name, nested]);
    }
    return guards;
  }
}

/** An insert compiled for one shape of validated data (see `compileInsert`). */
interface CompiledInsert {
  /** The executor its SQL was compiled on (the app's own). */
  readonly executor: QueryExecutor;
  /** The data's keys, in order. */
  readonly keys: readonly string[];
  readonly parameters: InsertParameters;
  readonly shape: InsertShape;
  /** The columns its parameters are written to, in order. */
  readonly columns: readonly string[];
}

/** Shapes of data a serializer looks at to compile, at most (a client varying its optional fields gets the generic way past them). */
const MAX_COMPILED_INSERTS = 4;

/** What `columnValues` does with one name of validated data. */
interface ColumnPlan {
  /** The column written. */
  readonly column: string;
  /** A many-to-many field: written to its join table after the row, not as a column. */
  readonly toMany: boolean;
  /** For a relation, the target's key attribute (a related row is written as its key); `null` otherwise. */
  readonly relatedKey: string | null;
}

/**
 * Declares a model serializer, as DRF's `ModelSerializer` with its `Meta`:
 * the fields are derived from the model with DRF's rules (the automatic key
 * and `autoNow` fields read-only, `maxLength`, `choices`, `null` → may be
 * null and not required, `blank`, defaults, decimal digits, integer ranges,
 * `unique` → `UniqueValidator`, `uniqueTogether` and unique constraints →
 * `UniqueTogetherValidator`, foreign keys as primary keys of the target),
 * and the validated input and output types are inferred from the model.
 *
 * @example
 * const BookSerializer = modelSerializer(Book, {
 *   fields: ['id', 'title', 'author', 'year'],
 *   readOnlyFields: ['year'],
 * });
 * type BookInput = Infer<typeof BookSerializer>['input']; // { title: string; author: RelatedRow }
 */
export function modelSerializer<M extends AnyModel, const O extends ModelSerializerOptions<M>>(
  model: M,
  options: O = {} as O,
): ModelSerializer<M, ModelShape<M, O>> {
  return new ModelSerializer<M, ModelShape<M, O>>(model, options);
}

// ------------------------------------------------------------------ building the fields

interface Built {
  fields: Shape;
  validators: readonly FieldValidator<unknown>[];
  nested: (readonly [string, ModelSerializer])[];
  toMany: ToMany[];
  /** The related fields built on a foreign key with their default queryset, by field: their name and key (see deferred-lookups.ts). */
  foreignKeys: Map<AnyField, { readonly name: string; readonly key: ForeignKeyTarget }>;
}

/** A many-to-many field of the serializer: its name, the model field, and the nested serializer with `depth`. */
type ToMany = readonly [name: string, field: ManyToManyField, nested: ModelSerializer | null];

/** Django's ranges of the integer columns (PostgreSQL's `integer`; SQLite's column holds more). */
const INTEGER_RANGE = { minValue: -2147483648, maxValue: 2147483647 } as const;

function buildFields(model: AnyModel, options: ModelSerializerOptions): Built {
  const depth = options.depth ?? 0;
  if (!Number.isInteger(depth) || depth < 0) throw new TypeError("'depth' may not be negative.");
  if (depth > 10) throw new TypeError("'depth' may not be greater than 10.");
  const declared = options.declared ?? {};
  const urlName = options.urlFieldName ?? 'url';
  const names = fieldNames(model, options, declared, urlName);
  const extra = extraKwargs(model, options, names, declared);
  const fields: Shape = {};
  const nested: (readonly [string, ModelSerializer])[] = [];
  const toMany: ToMany[] = [];
  const foreignKeys: Built['foreignKeys'] = new Map();
  for (const name of names) {
    if (Object.hasOwn(declared, name)) {
      fields[name] = declared[name]!;
      continue;
    }
    const kwargs = extra[name] ?? {};
    const source = typeof kwargs.source === 'string' && kwargs.source !== '*' ? kwargs.source : name;
    const mf = model.fields[source];
    if (mf instanceof ManyToManyField) {
      if (depth > 0) {
        const inner = new ModelSerializer(targetOf(model, mf) as AnyModel, { depth: depth - 1, hyperlinked: options.hyperlinked ?? false, urlFieldName: urlName }, { readOnly: true });
        fields[name] = new NestedManyField(inner, { readOnly: true, source }) as AnyField;
        toMany.push([source, mf, inner]);
      } else {
        fields[name] = manyRelatedField(model, source, mf, options, kwargs);
        toMany.push([source, mf, null]);
      }
      continue;
    }
    if (mf) {
      if (mf instanceof RelationField && depth > 0) {
        const inner = new ModelSerializer(targetOf(model, mf) as AnyModel, { depth: depth - 1, hyperlinked: options.hyperlinked ?? false, urlFieldName: urlName }, { readOnly: true, source });
        fields[name] = inner as unknown as AnyField;
        nested.push([source, inner]);
        continue;
      }
      const field = mf instanceof RelationField ? relationalField(model, source, mf, options, kwargs) : standardField(model, source, mf, kwargs);
      const key = onForeignKey.get(field);
      if (key !== undefined) foreignKeys.set(field, { name, key });
      fields[name] = field;
      continue;
    }
    if (options.hyperlinked && name === urlName) {
      fields[name] = new HyperlinkedIdentityField({ viewName: `${model.modelName}-detail`, lookupField: model.primaryKey, ...(kwargs as object) }) as AnyField;
      continue;
    }
    throw new TypeError(`Field name \`${name}\` is not valid for model \`${model.objectName}\` in serializer \`${options.name ?? model.objectName}\`.`);
  }
  const validators = options.validators ?? uniqueTogetherValidators(model, fields);
  return { fields, validators, nested, toMany, foreignKeys };
}

/** DRF's `get_field_names`: `fields` as given (declared ones must be among them), else the defaults minus `exclude`. */
function fieldNames(model: AnyModel, options: ModelSerializerOptions, declared: Shape, urlName: string): string[] {
  const label = options.name ?? model.objectName;
  if (options.fields !== undefined && options.fields !== '__all__') {
    if (options.exclude) throw new TypeError(`Cannot set both 'fields' and 'exclude' options on serializer ${label}.`);
    for (const name of Object.keys(declared)) {
      if (!options.fields.includes(name)) {
        throw new TypeError(`The field '${name}' was declared on serializer ${label}, but has not been included in the 'fields' option.`);
      }
    }
    return [...options.fields];
  }
  // DRF's get_default_field_names: the key (or the URL), declared fields, plain fields, then relations.
  const plain = Object.entries(model.fields)
    .filter(([n, f]) => !(f instanceof RelationField) && !(f instanceof ManyToManyField) && n !== model.primaryKey)
    .map(([n]) => n);
  const relations = [
    ...Object.entries(model.fields).filter(([n, f]) => f instanceof RelationField && n !== model.primaryKey),
    ...Object.entries(model.fields).filter(([, f]) => f instanceof ManyToManyField),
  ].map(([n]) => n);
  const names = [...new Set([options.hyperlinked ? urlName : model.primaryKey, ...Object.keys(declared), ...plain, ...relations])];
  for (const name of options.exclude ?? []) {
    if (!names.includes(name)) {
      throw new TypeError(`The field '${name}' was included on serializer ${label} in the 'exclude' option, but does not match any model field.`);
    }
    if (Object.hasOwn(declared, name)) throw new TypeError(`Cannot both declare the field '${name}' and include it in the ${label} 'exclude' option.`);
  }
  return names.filter((n) => !(options.exclude ?? []).includes(n as never));
}

/**
 * DRF's `get_extra_kwargs` and `get_uniqueness_extra_kwargs`: `readOnlyFields`
 * become `readOnly`, and a field of a unique-together set is required (or
 * takes its model default) so the validator can check the set on create.
 */
function extraKwargs(model: AnyModel, options: ModelSerializerOptions, names: readonly string[], declared: Shape): Record<string, ExtraKwargs> {
  const out: Record<string, ExtraKwargs> = {};
  for (const [name, kwargs] of Object.entries(options.extraKwargs ?? {})) out[name] = { ...(kwargs as ExtraKwargs) };
  for (const name of options.readOnlyFields ?? []) out[name] = { ...out[name], readOnly: true };
  if (options.validators !== undefined) return out;
  const modelFieldNames = new Set(names.filter((n) => !Object.hasOwn(declared, n) && n in model.fields));
  for (const set of uniqueSets(model)) {
    if (!set.every((n) => modelFieldNames.has(n))) continue;
    for (const name of set) {
      const mf = model.fields[name]!;
      const d = mf.options.default;
      const value: ExtraKwargs =
        d !== undefined ? { default: d as never } : mf.null ? { default: null as never } : { required: true };
      out[name] = { ...value, ...out[name] };
    }
  }
  return out;
}

/** `meta.uniqueTogether` and the unique constraints over more than one field. */
function uniqueSets(model: AnyModel): (readonly string[])[] {
  const fieldName = (n: string): string => Object.entries(model.fields).find(([name, f]) => name === n || f.columnName(name) === n)?.[0] ?? n;
  const sets = [...(model.meta.uniqueTogether ?? [])];
  for (const c of model.meta.constraints ?? []) if (c.kind === 'unique' && c.fields.length > 1) sets.push(c.fields);
  return sets.map((s) => s.map(fieldName));
}

/** DRF's `get_unique_together_validators`: one per set whose fields are all writable fields of the serializer. */
function uniqueTogetherValidators(model: AnyModel, fields: Shape): FieldValidator<unknown>[] {
  const bySource = new Map<string, string>();
  for (const [name, f] of Object.entries(fields)) {
    if (f.readOnly && !f.hasDefault) continue;
    const source = f.source ?? name;
    if (source === '*' || source.includes('.')) continue;
    const found = modelFieldFor(model, source);
    bySource.set(found ? found[0] : source, name);
  }
  const out: FieldValidator<unknown>[] = [];
  for (const set of uniqueSets(model)) {
    if (!set.every((n) => bySource.has(n))) continue;
    out.push(new UniqueTogetherValidator({ queryset: model.tableName, fields: set.map((n) => bySource.get(n)!), pk: model.primaryKey }));
  }
  return out;
}

/** Django's `unique` message: `book with this isbn already exists.` */
function uniqueMessage(model: AnyModel, name: string, mf: AnyModelField): string {
  return `${model.verboseName} with this ${verboseNameOf(name, mf)} already exists.`;
}

function verboseNameOf(name: string, mf: AnyModelField): string {
  if (mf.options.verboseName) return mf.options.verboseName;
  if ((mf.kind === 'auto' || mf.kind === 'bigAuto') && name === 'id') return 'ID';
  return name.replaceAll('_', ' ');
}

function capfirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Whether a single-field unique constraint (or `unique`, or being the key) covers `name`. */
function isUnique(model: AnyModel, name: string, mf: AnyModelField): boolean {
  if (mf.options.unique === true || mf.options.primaryKey === true) return true;
  return (model.meta.constraints ?? []).some((c) => c.kind === 'unique' && c.fields.length === 1 && (c.fields[0] === name || c.fields[0] === mf.columnName(name)));
}

/** DRF's `include_extra_kwargs`: a read-only field loses what only input uses; `extraKwargs` win. */
function includeExtra(kwargs: Record<string, unknown>, extra: ExtraKwargs): Record<string, unknown> {
  const out = { ...kwargs };
  const e: Record<string, unknown> = { ...extra };
  if (e['readOnly']) {
    for (const k of ['required', 'default', 'allowBlank', 'minLength', 'maxLength', 'minValue', 'maxValue', 'validators', 'queryset']) delete out[k];
  }
  if (e['default'] !== undefined && out['required'] === false) delete out['required'];
  if (e['readOnly'] ?? out['readOnly']) delete e['required'];
  return { ...out, ...e };
}

/** DRF's `build_standard_field` with `get_field_kwargs`. */
function standardField(model: AnyModel, name: string, mf: AnyModelField, extra: ExtraKwargs): AnyField {
  const o = mf.options;
  const kwargs: Record<string, unknown> = { label: capfirst(verboseNameOf(name, mf)) };
  if (o.helpText) kwargs['helpText'] = o.helpText;
  if (mf.kind === 'decimal') {
    kwargs['maxDigits'] = o['maxDigits'];
    kwargs['decimalPlaces'] = o['decimalPlaces'];
  }
  const generated = mf.kind === 'auto' || mf.kind === 'bigAuto' || (mf.kind === 'datetime' && (o['autoNow'] === true || o['autoNowAdd'] === true));
  if (generated) {
    kwargs['readOnly'] = true;
  } else {
    if (o.default !== undefined || o.blank === true || mf.null) kwargs['required'] = false;
    if (mf.null) kwargs['allowNull'] = true;
    if (o.blank === true && CHAR_KINDS.has(mf.kind)) kwargs['allowBlank'] = true;
    if (!o.choices) {
      if (mf.kind === 'integer') Object.assign(kwargs, INTEGER_RANGE);
      if (typeof o['maxLength'] === 'number' && CHAR_KINDS.has(mf.kind)) kwargs['maxLength'] = o['maxLength'];
    }
    const validators: FieldValidator<unknown>[] = [];
    if (isUnique(model, name, mf)) {
      validators.push(new UniqueValidator({ queryset: model.tableName, field: mf.columnName(name), message: uniqueMessage(model, name, mf), pk: model.primaryKey }));
    }
    if (validators.length > 0) kwargs['validators'] = validators;
  }
  const opts = includeExtra(kwargs, extra);
  if (o.choices) {
    // DRF's ChoiceField takes only these of the derived options.
    const valid = ['readOnly', 'writeOnly', 'required', 'default', 'source', 'label', 'helpText', 'errorMessages', 'validators', 'allowNull', 'allowBlank'];
    const choiceOpts = Object.fromEntries(Object.entries(opts).filter(([k]) => valid.includes(k)));
    return new ChoiceField(o.choices as never, choiceOpts) as unknown as AnyField;
  }
  return fieldOfKind(mf.kind, opts);
}

const CHAR_KINDS: ReadonlySet<string> = new Set(['char', 'text', 'email', 'url', 'slug']);

/** A `CharField` drawn as a text area (DRF's `style={'base_template': 'textarea.html'}` for a `TextField`). */
class TextField extends CharField {
  override readonly inputType = 'textarea';
}

/** DRF's `serializer_field_mapping`. */
function fieldOfKind(kind: string, opts: Record<string, unknown>): AnyField {
  switch (kind) {
    case 'auto':
    case 'bigAuto':
    case 'integer':
    case 'bigInteger':
      return new IntegerField(opts) as AnyField;
    case 'float':
      return new FloatField(opts) as AnyField;
    case 'decimal':
      return new DecimalField(opts as never) as unknown as AnyField;
    case 'boolean':
      return new BooleanField(opts) as AnyField;
    case 'char':
      return new CharField(opts) as AnyField;
    case 'text':
      return new TextField(opts) as AnyField;
    case 'email':
      return new EmailField(opts) as AnyField;
    case 'url':
      return new URLField(opts) as AnyField;
    case 'slug':
      return new SlugField(opts) as AnyField;
    case 'uuid':
      return new UUIDField(opts) as AnyField;
    case 'date':
      return new DateField(opts) as AnyField;
    case 'datetime':
      return new DateTimeField(opts) as unknown as AnyField;
    case 'time':
      return new TimeField(opts) as AnyField;
    case 'json':
      return new JSONField({ ...opts, column: true }) as AnyField;
    default:
      throw new TypeError(`No serializer field for model fields of kind ${kind}.`);
  }
}

/** The key field of a target: what a related field validates and renders its values with. */
function keyField(target: RelationTarget): Field<unknown, unknown, FieldFlags> {
  const pk = target.fields[target.primaryKey];
  switch (pk?.kind) {
    case undefined:
    case 'auto':
    case 'bigAuto':
    case 'integer':
    case 'bigInteger':
      return new IntegerField();
    case 'uuid':
      return new UUIDField() as unknown as Field<unknown, unknown, FieldFlags>;
    default:
      return new CharField() as unknown as Field<unknown, unknown, FieldFlags>;
  }
}

/** A relation's target; a target given by table name is taken to have an integer `id`. */
function targetOf(model: AnyModel, mf: RelationField | ManyToManyField): RelationTarget {
  if (mf.to === 'self') return model;
  return mf.targetModel() ?? { tableName: mf.targetTable(model.tableName), primaryKey: 'id', fields: {} };
}

/** A related field's queryset: every row of `target`, its columns by name when it is a declared model. */
function relatedRows(target: ReturnType<typeof targetOf>): (req: ApiRequest) => ReturnType<typeof allRowsOf> {
  const table = target.tableName;
  const columns = 'columnNames' in target && typeof target.columnNames === 'function' ? (target as AnyModel).columnNames() : undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (req: ApiRequest) => allRowsOf(req.app.services.get('db') as Kysely<any>, table, columns);
}

/** DRF's `build_relational_field` with `get_relation_kwargs`: the key of the target, or its link with `hyperlinked`. */
function relationalField(model: AnyModel, name: string, mf: RelationField, options: ModelSerializerOptions, extra: ExtraKwargs): AnyField {
  const target = targetOf(model, mf);
  const kwargs: Record<string, unknown> = {
    label: capfirst(verboseNameOf(name, mf)),
    source: mf.columnName(name),
    queryset: relatedRows(target),
  };
  if (mf.options.helpText) kwargs['helpText'] = mf.options.helpText;
  if (mf.null) kwargs['allowNull'] = true;
  if (mf.options.default !== undefined || mf.options.blank === true || mf.null) kwargs['required'] = false;
  if (isUnique(model, name, mf) || mf.kind === 'oneToOne') {
    kwargs['validators'] = [new UniqueValidator({ queryset: model.tableName, field: mf.columnName(name), message: uniqueMessage(model, name, mf), pk: model.primaryKey })];
  }
  const opts = includeExtra(kwargs, extra);
  if (opts['readOnly']) delete opts['queryset'];
  const pkField = keyField(target);
  const field = options.hyperlinked
    ? new HyperlinkedRelatedField({ ...opts, viewName: `${modelNameOf(target)}-detail`, lookupField: target.primaryKey } as never)
    : new PrimaryKeyRelatedField({ ...opts, pkAttribute: target.primaryKey, pkField } as never);
  // Every row of the target, by an integer key: a lookup the foreign key can answer (see deferred-lookups.ts).
  if (opts['queryset'] === kwargs['queryset'] && opts['source'] === kwargs['source'] && !opts['readOnly'] && pkField instanceof IntegerField) {
    onForeignKey.set(field, { column: mf.columnName(name), table: target.tableName, key: target.primaryKey });
  }
  return field as unknown as AnyField;
}

/** The related fields `relationalField` built whose lookup a foreign key could answer: the key each writes. */
const onForeignKey = new WeakMap<object, ForeignKeyTarget>();

/**
 * DRF's `ManyRelatedField` (a related field with `many=True`): a list of
 * the child relation's values in, the related rows inside, the list of the
 * child's representations out.
 */
export class ManyRelatedField extends Field<unknown[], unknown[]> {
  readonly kind = 'field';
  override readonly inputType = 'select-multiple';
  static override defaultMessages: Readonly<Record<string, string>> = {
    not_a_list: 'Expected a list of items but got type "{input_type}".',
    empty: 'This list may not be empty.',
  };
  readonly allowEmpty: boolean;
  constructor(
    readonly childRelation: RelatedField<unknown, unknown>,
    options: FieldOptions<unknown[]> & { allowEmpty?: boolean } = {},
  ) {
    super(options as FieldOptions<unknown>);
    this.allowEmpty = options.allowEmpty ?? true;
  }
  async toInternal(value: unknown, ctx: FieldContext): Promise<unknown[]> {
    if (typeof value === 'string' || !Array.isArray(value)) this.fail('not_a_list', { input_type: pythonType(value) });
    if (!this.allowEmpty && value.length === 0) this.fail('empty');
    const out: unknown[] = [];
    // As DRF: the first item refused ends the validation with its message.
    for (const item of value) out.push(await this.childRelation.toInternal(item, ctx));
    return out;
  }
  toRepresentation(value: unknown, ctx: FieldContext): unknown[] {
    return [...(value as Iterable<unknown>)].map((item) => this.childRelation.toRepresentation(item, ctx));
  }
  valueSchema(mode: SchemaMode): JsonSchema {
    return { type: 'array', items: this.childRelation.valueSchema(mode), ...(this.allowEmpty ? {} : { minItems: 1 }) };
  }
}

/** A read-only list of nested serializers (DRF's nested `many=True` with `depth`). */
class NestedManyField extends Field<never, unknown[]> {
  readonly kind = 'field';
  constructor(
    readonly child: ModelSerializer,
    options: FieldOptions<never>,
  ) {
    super(options);
  }
  toInternal(): never {
    throw new TypeError('A nested relation with depth is read-only.');
  }
  toRepresentation(value: unknown, ctx: FieldContext): unknown[] {
    return [...(value as Iterable<unknown>)].map((item) => this.child.toRepresentation(item, ctx));
  }
  valueSchema(mode: SchemaMode): JsonSchema {
    return { type: 'array', items: this.child.valueSchema(mode) };
  }
  override limits(): Record<string, unknown> {
    // DRF describes a ListSerializer's child as a field of its own: read-only, no label.
    return { child: { type: 'nested object', required: false, read_only: true, children: this.child.describe() } };
  }
}

/** DRF's `build_relational_field` for a many-to-many field: a list of keys (or links); read-only through a model of its own. */
function manyRelatedField(model: AnyModel, name: string, mf: ManyToManyField, options: ModelSerializerOptions, extra: ExtraKwargs): AnyField {
  const target = targetOf(model, mf);
  const kwargs: Record<string, unknown> = { label: capfirst(verboseNameOf(name, mf)), source: name };
  if (mf.options.helpText) kwargs['helpText'] = mf.options.helpText;
  if (!mf.autoCreated) kwargs['readOnly'] = true;
  else {
    if (mf.options.blank === true) kwargs['required'] = false;
    else kwargs['allowEmpty'] = false;
  }
  const opts = includeExtra(kwargs, extra);
  const readOnly = opts['readOnly'] === true;
  const queryset = readOnly ? undefined : relatedRows(target);
  const child = options.hyperlinked
    ? new HyperlinkedRelatedField({ queryset, readOnly, viewName: `${modelNameOf(target)}-detail`, lookupField: target.primaryKey } as never)
    : new PrimaryKeyRelatedField({ queryset, readOnly, pkAttribute: target.primaryKey, pkField: keyField(target) } as never);
  return new ManyRelatedField(child as RelatedField<unknown, unknown>, opts as never) as unknown as AnyField;
}

function modelNameOf(target: RelationTarget): string {
  return 'modelName' in target && typeof target.modelName === 'string' ? target.modelName : target.tableName.slice(target.tableName.indexOf('_') + 1);
}

// ------------------------------------------------------------------ writing

/** The model field a serializer field's source names: a field name, or a column (`author_id`). */
function modelFieldFor(model: AnyModel, source: string): [string, AnyModelField] | null {
  const direct = model.fields[source];
  if (direct) return [source, direct];
  for (const [name, f] of Object.entries(model.fields)) if (f.columnName(name) === source) return [name, f];
  return null;
}

/** A related row (a related field's validated value) as the key its column stores. */
function relatedKey(value: unknown, pk: string): unknown {
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) return (value as Record<string, unknown>)[pk];
  return value;
}

/** Values as both drivers bind them: booleans as 1/0, dates as ISO 8601 text. */
/** A compiled `INSERT … RETURNING *` whose parameters are its values in column order. */
interface InsertShape {
  readonly sql: string;
  readonly query: CompiledQuery['query'];
}

/** The columns given and each value's kind, in order; `shape` is `null` when such an insert is built each time. */
interface KnownInsert {
  readonly columns: readonly string[];
  readonly kinds: readonly ValueKind[];
  readonly shape: InsertShape | null;
}

/** Per executor and table: the inserts seen, compared column by column (no key string to build and hash per insert). */
const insertShapes = new WeakMap<QueryExecutor, Map<string, KnownInsert[]>>();
const MAX_INSERT_SHAPES = 64;

/**
 * `db.insertInto(table).values(values).returning(<the model's columns>).executeTakeFirstOrThrow()`,
 * compiled once per table, columns and kind of each value (a string, a
 * number, a bigint or null: each a parameter) on the app's own executor, then
 * only bound. Kysely parsing the values and compiling the insert cost about
 * as much as a row of SQLite's insert (see docs/performance.md). Anything
 * else (another kind of value, a transaction's or a plug-in's executor, a
 * compile whose parameters are not the values in order) is built each time.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function insertReturning(db: Kysely<any>, table: string, values: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> | Promise<Record<string, unknown>> {
  const executor = db.getExecutor();
  const seen = insertShapes.get(executor)?.get(table);
  // A known shape is matched against the values in place: only its parameters are made, at their size.
  const known = seen === undefined ? undefined : knownInsertOf(seen, values);
  if (known?.shape) {
    const parameters = new Array<unknown>(known.columns.length);
    let i = 0;
    for (const column in values) {
      const value = values[column];
      if (value !== undefined) parameters[i++] = value;
    }
    return runKnownInsert(executor, known.shape, parameters);
  }
  const compiled = db.insertInto(table).values(values).returning(columns as never).compile();
  if (known === undefined && directExecutorOf(compiled) === executor) rememberInsert(executor, table, values, compiled);
  const rows = readNow(executor, compiled);
  if (rows !== undefined) return firstRow(rows, compiled.query);
  return executor.executeQuery(compiled).then((result) => firstRow(result.rows, compiled.query));
}

/** A known insert run with its parameters: at once where the driver answers at once (SQLite outside a transaction: see `readNow`), no query id needed there. */
function runKnownInsert(executor: QueryExecutor, shape: InsertShape, parameters: unknown[]): Record<string, unknown> | Promise<Record<string, unknown>> {
  const rows = readNow(executor, { sql: shape.sql, parameters });
  if (rows !== undefined) return firstRow(rows, shape.query);
  const compiled: CompiledQuery = { sql: shape.sql, query: shape.query, parameters, queryId: createQueryId() };
  return executor.executeQuery(compiled).then((result) => firstRow(result.rows, compiled.query));
}

/** Per executor: the guarded inserts compiled, by table, columns and guards (see `guardedInsertReturning`). */
const guardedShapes = new WeakMap<QueryExecutor, Map<string, InsertShape>>();

/**
 * The guarded insert of `values` built the generic way: its SQL compiled
 * for the values themselves where one is not a plain parameter, else as
 * `guardedInsertReturning`; the plain insert's shape is recorded as
 * `insertReturning` records it, so the data's shape can be compiled
 * (`compileInsert`) for the next create.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function guardedInsertOf(db: Kysely<any>, table: string, values: Record<string, unknown>, returning: readonly string[], guards: readonly InsertGuard[]): Record<string, unknown> | Promise<Record<string, unknown>> {
  const given: string[] = [];
  const parameters: unknown[] = [];
  let plain = true;
  for (const column in values) {
    const value = values[column];
    if (value === undefined) continue;
    given.push(column);
    parameters.push(value);
    if (valueKind(value) === null) plain = false;
  }
  if (!plain) {
    const compiled = guardedInsert(table, given, parameters, returning, guards).compile(db);
    return db.getExecutor().executeQuery(compiled).then((result) => guardedRow(result.rows));
  }
  const executor = db.getExecutor();
  const seen = insertShapes.get(executor)?.get(table);
  if (seen === undefined || knownInsertOf(seen, values) === undefined) {
    const compiled = db.insertInto(table).values(values).returning(returning as never).compile();
    if (directExecutorOf(compiled) === executor) rememberInsert(executor, table, values, compiled);
  }
  return guardedInsertReturning(db, table, given, parameters, returning, guards);
}

/**
 * `INSERT INTO table (columns) SELECT <parameters> WHERE EXISTS (SELECT 1
 * FROM <target> WHERE <key> = <id>) AND … RETURNING <returning>`: the row,
 * or `RelatedRowMissing` when a guard's row does not exist, in which case
 * nothing was written and no sequence value taken (PostgreSQL infers each
 * parameter's type from its column, as for `VALUES`). Compiled once per
 * table, columns and guards on each executor, then only bound; each of
 * `parameters` is a plain one (a string, a number, a bigint or null).
 */
function guardedInsertReturning(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  table: string,
  columns: readonly string[],
  parameters: readonly unknown[],
  returning: readonly string[],
  guards: readonly InsertGuard[],
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const executor = db.getExecutor();
  const bound = parameters.slice();
  for (const guard of guards) bound.push(guard.id);
  let key = table;
  for (const column of columns) key += `\0${column}`;
  for (const guard of guards) key += `\0${guard.table}.${guard.key}`;
  let shapes = guardedShapes.get(executor);
  let shape = shapes?.get(key);
  if (shape === undefined) {
    const compiled = guardedInsert(table, columns, parameters, returning, guards).compile(db);
    if (compiled.parameters.length !== bound.length || compiled.parameters.some((p, i) => p !== bound[i])) {
      return executor.executeQuery(compiled).then((result) => guardedRow(result.rows));
    }
    shape = { sql: compiled.sql, query: compiled.query };
    if (shapes === undefined) guardedShapes.set(executor, (shapes = new Map()));
    if (shapes.size >= MAX_INSERT_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  const rows = readNow(executor, { sql: shape.sql, parameters: bound });
  if (rows !== undefined) return guardedRow(rows);
  return executor.executeQuery({ sql: shape.sql, query: shape.query, parameters: bound, queryId: createQueryId() }).then((result) => guardedRow(result.rows));
}

/** The guarded insert's SQL with `values` written to `columns` (see `guardedInsertReturning`). */
function guardedInsert(table: string, columns: readonly string[], values: readonly unknown[], returning: readonly string[], guards: readonly InsertGuard[]) {
  const exists = guards.map((g) => sql`exists (select 1 from ${sql.table(g.table)} where ${sql.ref(g.key)} = ${g.id})`);
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select ${sql.join(values.map((v) => sql`${v}`))} where ${sql.join(exists, sql` and `)} returning ${sql.join(returning.map((c) => sql.ref(c)))}`;
}

/** The row a guarded insert wrote; `RelatedRowMissing` when it wrote none. */
function guardedRow(rows: readonly unknown[]): Record<string, unknown> {
  const row = rows[0] as Record<string, unknown> | undefined;
  if (row === undefined) throw new RelatedRowMissing();
  return row;
}

/** The kind of a value an insert binds as a parameter; `null` for any other (such an insert is built each time). */
function valueKind(value: unknown): ValueKind | null {
  if (value === null) return 'null';
  const kind = typeof value;
  return kind === 'string' || kind === 'number' || kind === 'bigint' ? kind : null;
}

/** The known insert whose columns and kinds are those of `values` (its defined ones, in order). */
function knownInsertOf(seen: readonly KnownInsert[], values: Record<string, unknown>): KnownInsert | undefined {
  next: for (const known of seen) {
    const columns = known.columns;
    let i = 0;
    for (const column in values) {
      const value = values[column];
      if (value === undefined) continue;
      if (i === columns.length || columns[i] !== column || known.kinds[i] !== valueKind(value)) continue next;
      i++;
    }
    if (i === columns.length) return known;
  }
  return undefined;
}

/** Records the shape of an insert just compiled; one whose values are not all plain parameters is not recorded. */
function rememberInsert(executor: QueryExecutor, table: string, values: Record<string, unknown>, compiled: CompiledQuery): void {
  const given: string[] = [];
  const kinds: ValueKind[] = [];
  const parameters: unknown[] = [];
  for (const column in values) {
    const value = values[column];
    if (value === undefined) continue;
    const kind = valueKind(value);
    if (kind === null) return;
    given.push(column);
    kinds.push(kind);
    parameters.push(value);
  }
  const same = compiled.parameters.length === parameters.length && compiled.parameters.every((p, i) => p === parameters[i]);
  let tables = insertShapes.get(executor);
  if (tables === undefined) insertShapes.set(executor, (tables = new Map()));
  let list = tables.get(table);
  if (list === undefined || list.length >= MAX_INSERT_SHAPES) tables.set(table, (list = []));
  list.push({ columns: given, kinds, shape: same ? { sql: compiled.sql, query: compiled.query } : null });
}

/** The first row a write returned (`executeTakeFirstOrThrow`'s `NoResultError` when none). */
function firstRow(rows: readonly unknown[], query: CompiledQuery['query']): Record<string, unknown> {
  const row = rows[0] as Record<string, unknown> | undefined;
  if (row === undefined) throw new NoResultError(query as never);
  return row;
}

/** A boolean or a date as its column stores it; anything else as it is. */
function storableValue(v: unknown): unknown {
  return typeof v === 'boolean' ? toDbBoolean(v) : v instanceof Date ? toDbTimestamp(v) : v;
}

function storable(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) out[k] = storableValue(v);
  return out;
}
