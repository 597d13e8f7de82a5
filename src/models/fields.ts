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
  | 'oneToOne';

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
  /** The column this field is stored in when declared under `name`. */
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

type NullOf<O> = O extends { null: true } ? true : false;
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
type FieldFor<T, O> = ModelField<ChoiceOf<O, T>, NullOf<O>, HasConstantDefault<O>, HasDefault<O>, PrimaryKeyOf<O>>;
type PrimaryKeyOf<O> = O extends { primaryKey: true } ? true : false;

function make<T>(kind: FieldKind) {
  return <const O extends ModelFieldOptions<T>>(options?: O): FieldFor<T, O> => new ModelField(kind, options);
}
function sized<T extends string>(kind: FieldKind, maxLength: number) {
  return <const O extends Partial<CharOptions<T>>>(options?: O): FieldFor<T, O> =>
    new ModelField(kind, { maxLength, ...options });
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
  auto: (options?: Pick<ModelFieldOptions, 'verboseName'>): ModelField<number, false, true, true, true> => new ModelField('auto', options),
  /** `BigAutoField`: a 64-bit auto-incremented primary key (`bigserial`). */
  bigAuto: (options?: Pick<ModelFieldOptions, 'verboseName'>): ModelField<number, false, true, true, true> => new ModelField('bigAuto', options),
  /** `CharField(max_length=…)`: `varchar(n)`. */
  char: <const O extends CharOptions>(options: O): FieldFor<string, O> => new ModelField('char', options),
  text: make<string>('text'),
  integer: make<number>('integer'),
  bigInteger: make<string | number>('bigInteger'),
  float: make<number>('float'),
  /** `DecimalField(max_digits=…, decimal_places=…)`: `numeric(p, s)`. */
  decimal: <const O extends DecimalOptions>(options: O): FieldFor<string | number, O> => new ModelField('decimal', options),
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
  > => new ModelField('datetime', options),
  time: make<string>('time'),
  uuid: make<string>('uuid'),
  /** `EmailField`: `varchar(254)`. */
  email: sized<string>('email', 254),
  /** `URLField`: `varchar(200)`. */
  url: sized<string>('url', 200),
  /** `SlugField`: `varchar(50)`, indexed. */
  slug: <const O extends Partial<CharOptions>>(options?: O): FieldFor<string, O> =>
    new ModelField('slug', { maxLength: 50, dbIndex: true, ...options }),
  /** `JSONField`: `jsonb` / text, read as the JSON text. */
  json: make<unknown>('json'),
  /**
   * `ForeignKey(to, on_delete=…)`: the column is `<name>_id`, an integer
   * referencing the target's primary key, indexed.
   */
  foreignKey: <const O extends RelationOptions>(to: TargetRef, options: O): RelationField<number, NullOf<O>, HasConstantDefault<O>, HasDefault<O>, PrimaryKeyOf<O>> =>
    new RelationField('foreignKey', to, options),
  /** `OneToOneField(to, on_delete=…)`: a foreign key with a unique constraint. */
  oneToOne: <const O extends RelationOptions>(to: TargetRef, options: O): RelationField<number, NullOf<O>, HasConstantDefault<O>, HasDefault<O>, PrimaryKeyOf<O>> =>
    new RelationField('oneToOne', to, options),
} as const;
