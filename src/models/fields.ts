import { createHash } from 'node:crypto';

/**
 * Model fields: Django's field kinds and options, each a `ModelField` that carries
 * the TypeScript types of its column (what a select reads, what an insert and
 * an update take) as phantom properties, so a model's row types are inferred
 * from its declaration without a hand-written table interface.
 *
 * @example
 * const Book = model('catalogue_book', {
 *   title: field.char({ maxLength: 200 }),
 *   author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
 *   year: field.integer({ null: true }),
 * });
 */

/** Django's field kinds (`CharField` → `char`, `AutoField` → `auto`, …). */
export type FieldKind =
  | 'auto'
  | 'bigAuto'
  | 'char'
  | 'text'
  | 'integer'
  | 'bigInteger'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'time'
  | 'uuid'
  | 'email'
  | 'url'
  | 'slug'
  | 'json'
  | 'foreignKey'
  | 'oneToOne'
  | 'manyToMany';

/** What happens to a row when the row its foreign key points at is deleted (Django's `on_delete`). */
export type OnDelete = 'cascade' | 'protect' | 'setNull' | 'restrict' | 'doNothing';

/** A `(value, label)` pair of `choices`, as Django writes them. */
export type Choice<T> = readonly [value: T, label: string];

/** Options every field kind takes (Django's `ModelField.__init__`). */
export interface ModelFieldOptions<T = unknown> {
  /** The column accepts NULL (`null=True`); the row type becomes `T | null`. */
  null?: boolean;
  /** Validation allows an empty value (`blank=True`); the database is not affected. */
  blank?: boolean;
  /**
   * The value an insert that omits the field gets. A constant is also the
   * column's default in the database; a function is called for each insert
   * made through `model.insertValues()` (Django's callable default).
   */
  default?: T | (() => T);
  /** A unique constraint on the column. */
  unique?: boolean;
  /** An index on the column (`db_index=True`). */
  dbIndex?: boolean;
  /** The allowed values, with their labels. */
  choices?: ReadonlyArray<Choice<T>>;
  /** This field is the primary key; the model then gets no automatic `id`. */
  primaryKey?: boolean;
  /** A human name for forms and the browsable API (`verbose_name`). */
  verboseName?: string;
  /** Help for forms and the OpenAPI document (`help_text`). */
  helpText?: string;
}

export interface CharOptions<T extends string = string> extends ModelFieldOptions<T> {
  maxLength: number;
}
export interface DecimalOptions extends ModelFieldOptions<string | number> {
  maxDigits: number;
  decimalPlaces: number;
}
export interface DateTimeOptions extends ModelFieldOptions<Date | string> {
  /** Set to the current time on every save: the database's default on insert, `model.updateValues()` on update. */
  autoNow?: boolean;
  /** Set to the current time when the row is created (the database's default). */
  autoNowAdd?: boolean;
}
export interface RelationOptions extends Omit<ModelFieldOptions<number | string>, 'choices'> {
  onDelete: OnDelete;
  /** The name of the reverse relation on the target model (`related_name`). */
  relatedName?: string;
}

/** Anything that has a table name and a primary-key field: what a foreign key points at. */
export interface RelationTarget {
  readonly tableName: string;
  readonly primaryKey: string;
  readonly fields: Readonly<Record<string, ModelField>>;
}

/**
 * A foreign key's target: the model, a function returning it (for models
 * declared later), `'self'`, or a table name (as migration files write it).
 */
export type TargetRef = RelationTarget | (() => RelationTarget) | string;

/**
 * One model field. `T` is the value a select reads; `N` whether the column is
 * nullable; `D` whether the database fills it when an insert omits it
 * (automatic keys, constant defaults, `autoNowAdd`); `A` whether
 * `model.insertValues()` fills it (any default, `autoNow`); `P` whether it is
 * declared the primary key. The type
 * parameters exist for inference only: no value of them is stored.
 */
export class ModelField<
  T = unknown,
  N extends boolean = boolean,
  D extends boolean = boolean,
  A extends boolean = boolean,
  P extends boolean = boolean,
> {
  declare readonly $type: T;
  /** Whether the field is declared `primaryKey: true`. */
  declare readonly $primaryKey: P;
  declare readonly $null: N;
  declare readonly $dbDefault: D;
  declare readonly $appDefault: A;
  /** Phantom: `blank: true` (a model serializer's field is then not required). */
  declare readonly $blank: boolean;
  /** Phantom: the value is written by the database or the model, never by a client (automatic keys, `autoNow`, `autoNowAdd`). */
  declare readonly $generated: boolean;
  /** Phantom: a `decimal` field (a string in a serializer, where a `bigInteger` is a number). */
  declare readonly $decimal: boolean;
  /** The kind-specific options (`maxLength`, `maxDigits`, `autoNow`, …) are kept here with the common ones. */
  readonly options: Readonly<Record<string, unknown> & ModelFieldOptions>;

  constructor(
    readonly kind: FieldKind,
    options: object = {},
  ) {
    this.options = Object.freeze({ ...options });
  }

  get null(): boolean {
    return this.options.null === true;
  }
  get primaryKey(): boolean {
    return this.options.primaryKey === true || this.kind === 'auto' || this.kind === 'bigAuto';
  }
  /** `true` for `foreignKey` and `oneToOne`: the column is `<name>_id`. */
  get isRelation(): boolean {
    return this.kind === 'foreignKey' || this.kind === 'oneToOne';
  }
  /**
   * Whether the field is a column of the model's table: `false` for a
   * `manyToMany`, whose rows live in a join table.
   */
  get hasColumn(): boolean {
    return this.kind !== 'manyToMany';
  }
  /** The column this field is stored in when declared under `name` (a `manyToMany` has none: its name is returned). */
  columnName(name: string): string {
    return this.isRelation ? `${name}_id` : name;
  }
}

/** A `foreignKey` or `oneToOne` field: its target is resolved when first needed. */
export class RelationField<
  T = number,
  N extends boolean = boolean,
  D extends boolean = boolean,
  A extends boolean = boolean,
  P extends boolean = boolean,
> extends ModelField<T, N, D, A, P> {
  constructor(
    kind: 'foreignKey' | 'oneToOne',
    readonly to: TargetRef,
    options: RelationOptions,
  ) {
    super(kind, options);
  }
  get onDelete(): OnDelete {
    return this.options['onDelete'] as OnDelete;
  }
  get relatedName(): string | undefined {
    return this.options['relatedName'] as string | undefined;
  }
  /** The target's table name; `'self'` is the model declaring this field. */
  targetTable(self: string): string {
    if (this.to === 'self') return self;
    if (typeof this.to === 'string') return this.to;
    return typeof this.to === 'function' ? this.to().tableName : this.to.tableName;
  }
  /** The target model, or `null` when the target is given by table name. */
  targetModel(): RelationTarget | null {
    if (typeof this.to === 'string') return null;
    return typeof this.to === 'function' ? this.to() : this.to;
  }
}

/** Options of `field.manyToMany` (Django's `ManyToManyField`). */
export interface ManyToManyOptions {
  /** The name of the reverse relation on the target model (`related_name`); defaults to `<modelName>_set`. */
  relatedName?: string;
  /**
   * A model (or its table name) holding a foreign key to each side, used as
   * the join table instead of an automatic one (`through=`); its extra
   * columns are its own. No table is created for the field then.
   */
  through?: TargetRef;
  /**
   * With `through`: its foreign keys to the source and to the target, by
   * field name (`through_fields`); needed when the through model has more
   * than one foreign key to a side, or is named by table.
   */
  throughFields?: readonly [source: string, target: string];
  /** Validation allows no related rows. */
  blank?: boolean;
  verboseName?: string;
  helpText?: string;
}

/** A table name and the model name Django derives from it (`catalogue_book` → `book`). */
export interface ModelNames {
  readonly tableName: string;
  readonly modelName: string;
}

/** Django's default `model_name` of a table: the name after its first `_`, lower case. */
export function defaultModelName(table: string): string {
  const cut = table.indexOf('_');
  return (cut > 0 && cut < table.length - 1 ? table.slice(cut + 1) : table).toLowerCase();
}

/**
 * An automatic join table's columns, as Django's
 * `create_many_to_many_intermediary_model` names them: `<source>_id` and
 * `<target>_id` by model name, or `from_<m>_id` / `to_<m>_id` when both
 * sides have the same model name (a relation to itself).
 */
export function joinColumns(sourceModelName: string, targetModelName: string): { source: string; target: string } {
  if (sourceModelName === targetModelName) return { source: `from_${sourceModelName}_id`, target: `to_${targetModelName}_id` };
  return { source: `${sourceModelName}_id`, target: `${targetModelName}_id` };
}

/**
 * A `manyToMany` field: no column on its model's table; its pairs live in a
 * join table, automatic (`<table>_<field>`, Django's naming) or the
 * `through` model. The model it is declared on binds it (its table and the
 * field's name), so the join table can be named.
 */
export class ManyToManyField<To extends string = string, Auto extends boolean = boolean> extends ModelField<never, false, false, false, false> {
  /** The target's model name, for the join table's type (`'self'` for a relation to the declaring model). */
  declare readonly $to: To;
  /** Whether the join table is automatic (no `through`). */
  declare readonly $autoCreated: Auto;
  private bound: { model: ModelNames; name: string } | null = null;

  constructor(
    readonly to: TargetRef,
    options: ManyToManyOptions = {},
  ) {
    super('manyToMany', options);
  }

  get relatedName(): string | undefined {
    return this.options['relatedName'] as string | undefined;
  }
  /** The through model, when one is given as a model (or a function returning it). */
  get through(): RelationTarget | undefined {
    const through = this.options['through'] as TargetRef | undefined;
    if (through === undefined || typeof through === 'string') return undefined;
    return typeof through === 'function' ? through() : through;
  }
  /** `true` when the join table is created for the field (no `through`). */
  get autoCreated(): boolean {
    return this.options['through'] === undefined;
  }
  /** The field's name on its model, once a model has bound it. */
  get name(): string | undefined {
    return this.bound?.name;
  }

  /**
   * The field as declared on `model` under `name`: this field when it is not
   * bound yet, else a copy (one declaration may be spread into two models).
   */
  bind(model: ModelNames, name: string): ManyToManyField<To, Auto> {
    const f = this.bound && (this.bound.model !== model || this.bound.name !== name) ? new ManyToManyField<To, Auto>(this.to, this.options) : this;
    f.bound = { model, name };
    return f;
  }

  private self(selfTable?: string): ModelNames {
    const model = this.bound?.model;
    if (selfTable === undefined || selfTable === model?.tableName) {
      if (!model) throw new Error('This manyToMany field is not declared on a model: pass the table it belongs to.');
      return model;
    }
    return { tableName: selfTable, modelName: defaultModelName(selfTable) };
  }

  /** The target's table name; `'self'` is the model declaring this field. */
  targetTable(selfTable?: string): string {
    if (this.to === 'self') return this.self(selfTable).tableName;
    if (typeof this.to === 'string') return this.to;
    return typeof this.to === 'function' ? this.to().tableName : this.to.tableName;
  }
  /** The target model (for `'self'`, the model declaring the field), or `null` when the target is given by table name. */
  targetModel(): RelationTarget | null {
    if (this.to === 'self') {
      const model = this.bound?.model as (ModelNames & Partial<RelationTarget>) | undefined;
      return model?.fields ? (model as RelationTarget) : null;
    }
    if (typeof this.to === 'string') return null;
    return typeof this.to === 'function' ? this.to() : this.to;
  }

  private names(selfTable?: string): { source: ModelNames; target: ModelNames } {
    const source = this.self(selfTable);
    if (this.to === 'self') return { source, target: source };
    const model = this.targetModel() as (RelationTarget & { modelName?: unknown }) | null;
    const table = this.targetTable(selfTable);
    const modelName = model && typeof model.modelName === 'string' ? model.modelName : defaultModelName(table);
    return { source, target: { tableName: table, modelName } };
  }

  /** The join table: the `through` model's, or `<table>_<field>` (shortened past 63 characters). */
  throughTable(selfTable?: string): string {
    const through = this.options['through'] as TargetRef | undefined;
    if (through !== undefined) {
      if (through === 'self') return this.self(selfTable).tableName;
      if (typeof through === 'string') return through;
      return (typeof through === 'function' ? through() : through).tableName;
    }
    const name = this.bound?.name;
    if (name === undefined) throw new Error('This manyToMany field is not declared on a model: its join table has no name yet.');
    return autoJoinTableName(this.self(selfTable).tableName, name);
  }

  /** The join table's column pointing at the declaring model's row. */
  sourceColumn(selfTable?: string): string {
    return this.throughColumns(selfTable).source;
  }
  /** The join table's column pointing at the target's row. */
  targetColumn(selfTable?: string): string {
    return this.throughColumns(selfTable).target;
  }

  private throughColumns(selfTable?: string): { source: string; target: string } {
    const { source, target } = this.names(selfTable);
    if (this.autoCreated) return joinColumns(source.modelName, target.modelName);
    const given = this.options['throughFields'] as readonly [string, string] | undefined;
    const through = this.through;
    const column = (name: string): string => {
      const f = through?.fields[name];
      return f ? f.columnName(name) : `${name}_id`;
    };
    if (given) return { source: column(given[0]), target: column(given[1]) };
    if (!through) throw new Error(`A manyToMany field through the table "${this.throughTable(selfTable)}" needs throughFields: [source, target].`);
    const keys = Object.entries(through.fields).filter(([, f]) => f instanceof RelationField);
    const to = (table: string) => keys.filter(([, f]) => (f as RelationField).targetTable(through.tableName) === table);
    const sources = to(source.tableName);
    const targets = source.tableName === target.tableName ? sources.slice(1) : to(target.tableName);
    if (sources.length === 0 || targets.length === 0 || (source.tableName !== target.tableName && (sources.length > 1 || targets.length > 1))) {
      throw new Error(
        `The through model ${through.tableName} needs one foreign key to ${source.tableName} and one to ${target.tableName}, or throughFields: [source, target].`,
      );
    }
    return { source: column(sources[0]![0]), target: column(targets[0]![0]) };
  }
}

/** The automatic join table's name: `<table>_<field>`, shortened as Django's `truncate_name` past 63 characters. */
export function autoJoinTableName(table: string, field: string): string {
  const name = `${table}_${field}`;
  if (name.length <= 63) return name;
  const digest = createHash('md5').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 54)}_${digest}`;
}

/** The model name a `manyToMany` target gives the join table's type. */
type ModelNameOfTable<T extends string> = T extends `${infer H}_${infer R}` ? (H extends '' ? Lowercase<T> : R extends '' ? Lowercase<T> : Lowercase<R>) : Lowercase<T>;
export type { ModelNameOfTable };
type TargetNameOf<To> = To extends 'self'
  ? 'self'
  : To extends string
    ? ModelNameOfTable<To>
    : To extends () => infer M
      ? M extends { readonly $modelName: infer N extends string } ? N : string
      : To extends { readonly $modelName: infer N extends string }
        ? N
        : string;

type NullOf<O> = O extends { null: true } ? true : false;
type BlankOf<O> = O extends { blank: true } ? true : false;

/**
 * The phantom facts a factory records beyond the column's types, for the
 * types a model serializer derives from a field (never set at run time).
 */
export interface FieldTraits<Blank extends boolean = boolean, Generated extends boolean = boolean, Decimal extends boolean = boolean> {
  readonly $blank: Blank;
  readonly $generated: Generated;
  readonly $decimal: Decimal;
}

/** An automatic primary key's field type (`field.auto()`, the `id` a model adds). */
export type AutoField = ModelField<number, false, true, true, true> & FieldTraits<false, true, false>;
type HasDefault<O> = O extends { default: infer V } ? ([V] extends [undefined] ? false : true) : false;
type HasConstantDefault<O> = O extends { default: infer V }
  ? [V] extends [undefined]
    ? false
    : [V] extends [(...args: never[]) => unknown]
      ? false
      : true
  : false;
type Or<A extends boolean, B extends boolean> = A extends true ? true : B;
/** The value type: the union of `choices` values when given, else `T`. */
type ChoiceOf<O, T> = O extends { choices: ReadonlyArray<readonly [infer V, string]> } ? (V extends T ? V : T) : T;

/** The `ModelField` a factory returns for options `O`. */
type FieldFor<T, O, Decimal extends boolean = false> = ModelField<ChoiceOf<O, T>, NullOf<O>, HasConstantDefault<O>, HasDefault<O>, PrimaryKeyOf<O>> &
  FieldTraits<BlankOf<O>, false, Decimal>;
type PrimaryKeyOf<O> = O extends { primaryKey: true } ? true : false;
/** The `RelationField` a `foreignKey`/`oneToOne` factory returns for options `O`. */
type RelationFor<O> = RelationField<number, NullOf<O>, HasConstantDefault<O>, HasDefault<O>, PrimaryKeyOf<O>> & FieldTraits<BlankOf<O>, false, false>;

function make<T>(kind: FieldKind) {
  return <const O extends ModelFieldOptions<T>>(options?: O): FieldFor<T, O> => new ModelField(kind, options) as FieldFor<T, O>;
}
function sized<T extends string>(kind: FieldKind, maxLength: number) {
  return <const O extends Partial<CharOptions<T>>>(options?: O): FieldFor<T, O> =>
    new ModelField(kind, { maxLength, ...options }) as FieldFor<T, O>;
}

/**
 * The field factories, one per Django field kind. Types read by a select:
 * `bigInteger` and `decimal` are `string | number` (PostgreSQL's driver reads
 * `bigint` and `numeric` as text, SQLite as numbers); `datetime` is
 * `Date | string` (a `Date` from `timestamptz`, ISO-8601 text on SQLite);
 * `date` and `time` are text; `json` is the JSON text.
 */
export const field = {
  /** `AutoField`: an auto-incremented integer primary key (`serial` / `integer … autoincrement`). */
  auto: (options?: Pick<ModelFieldOptions, 'verboseName'>): AutoField => new ModelField('auto', options) as AutoField,
  /** `BigAutoField`: a 64-bit auto-incremented primary key (`bigserial`). */
  bigAuto: (options?: Pick<ModelFieldOptions, 'verboseName'>): AutoField => new ModelField('bigAuto', options) as AutoField,
  /** `CharField(max_length=…)`: `varchar(n)`. */
  char: <const O extends CharOptions>(options: O): FieldFor<string, O> => new ModelField('char', options) as FieldFor<string, O>,
  text: make<string>('text'),
  integer: make<number>('integer'),
  bigInteger: make<string | number>('bigInteger'),
  float: make<number>('float'),
  /** `DecimalField(max_digits=…, decimal_places=…)`: `numeric(p, s)`. */
  decimal: <const O extends DecimalOptions>(options: O): FieldFor<string | number, O, true> => new ModelField('decimal', options) as FieldFor<string | number, O, true>,
  boolean: make<boolean>('boolean'),
  date: make<string>('date'),
  /** `DateTimeField`: `timestamptz` / ISO-8601 text; `autoNowAdd` and `autoNow` are a database default of now. */
  datetime: <const O extends DateTimeOptions>(
    options?: O,
  ): ModelField<
    Date | string,
    NullOf<O>,
    Or<HasConstantDefault<O>, O extends { autoNow: true } | { autoNowAdd: true } ? true : false>,
    Or<HasDefault<O>, O extends { autoNow: true } | { autoNowAdd: true } ? true : false>,
    PrimaryKeyOf<O>
  > &
    FieldTraits<BlankOf<O>, O extends { autoNow: true } | { autoNowAdd: true } ? true : false, false> => new ModelField('datetime', options) as never,
  time: make<string>('time'),
  uuid: make<string>('uuid'),
  /** `EmailField`: `varchar(254)`. */
  email: sized<string>('email', 254),
  /** `URLField`: `varchar(200)`. */
  url: sized<string>('url', 200),
  /** `SlugField`: `varchar(50)`, indexed. */
  slug: <const O extends Partial<CharOptions>>(options?: O): FieldFor<string, O> =>
    new ModelField('slug', { maxLength: 50, dbIndex: true, ...options }) as FieldFor<string, O>,
  /** `JSONField`: `jsonb` / text, read as the JSON text. */
  json: make<unknown>('json'),
  /**
   * `ForeignKey(to, on_delete=…)`: the column is `<name>_id`, an integer
   * referencing the target's primary key, indexed.
   */
  foreignKey: <const O extends RelationOptions>(to: TargetRef, options: O): RelationFor<O> => new RelationField('foreignKey', to, options) as RelationFor<O>,
  /** `OneToOneField(to, on_delete=…)`: a foreign key with a unique constraint. */
  oneToOne: <const O extends RelationOptions>(to: TargetRef, options: O): RelationFor<O> => new RelationField('oneToOne', to, options) as RelationFor<O>,
  /**
   * `ManyToManyField(to)`: no column on the model's table. Without `through`
   * a join table `<table>_<field>` is created with an `id`, `<source>_id`
   * and `<target>_id` (by model name; `from_<m>_id`/`to_<m>_id` for a
   * relation to itself), both NOT NULL foreign keys ON DELETE CASCADE,
   * unique together, the target's column indexed. `DatabaseOf` includes it.
   */
  manyToMany: <const To extends TargetRef, const O extends ManyToManyOptions = {}>(
    to: To,
    options?: O,
  ): ManyToManyField<TargetNameOf<To>, O extends { through: TargetRef } ? false : true> & FieldTraits<BlankOf<O>, false, false> =>
    new ManyToManyField(to, options) as ManyToManyField<TargetNameOf<To>, O extends { through: TargetRef } ? false : true> & FieldTraits<BlankOf<O>, false, false>,
} as const;
