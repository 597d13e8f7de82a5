import { sql, type SelectQueryBuilder } from 'kysely';
import type { Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import { isDatabaseInputError } from '../db/input-errors.js';
import { isQueryBuilder } from '../views/source.js';
import { FieldError, type Field, type FieldFlags, type ValidatorContext } from './field.js';

// DRF's uniqueness validators (rest_framework/validators.py): checked
// before the write, with DRF's messages. The database's own constraint
// stays the guarantee: two requests may both pass the check, and the
// second write then fails at the database, which Trestle answers with the
// same message (see APIView.constraintError).

/**
 * Where uniqueness is looked up: a table of the app's database by name, or a
 * function of the request giving the rows (an array, or a Kysely select
 * builder, as a related field's `queryset`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UniqueQueryset = string | ((request: ApiRequest) => Source<any> | Promise<Source<any>>);

/** How values are compared: `exact` (the default) or `iexact` (case-insensitive). */
export type UniqueLookup = 'exact' | 'iexact';

export interface UniqueValidatorOptions {
  /** The rows the value must not already be in. */
  queryset: UniqueQueryset;
  /** The column compared (default: the field's `source`, else its name). */
  field?: string;
  /** Default `This field must be unique.` (a ModelSerializer says `book with this isbn already exists.`). */
  message?: string;
  /** Default `exact`. */
  lookup?: UniqueLookup;
  /** The instance's key, so an update may keep its own value (default `id`). */
  pk?: string;
}

/**
 * DRF's `UniqueValidator`, for a field: a value already present in
 * `queryset` is refused with `This field must be unique.` The instance being
 * updated (PUT/PATCH) is left out, so it may keep its own value.
 *
 * @example
 * const BookSerializer = serializer({
 *   isbn: string({ maxLength: 20, validators: [new UniqueValidator({ queryset: 'books' })] }),
 * });
 */
export class UniqueValidator {
  static message = 'This field must be unique.';
  readonly queryset: UniqueQueryset;
  readonly field: string | undefined;
  readonly message: string;
  readonly lookup: UniqueLookup;
  readonly pk: string;

  constructor(options: UniqueValidatorOptions) {
    this.queryset = options.queryset;
    this.field = options.field;
    this.message = options.message ?? UniqueValidator.message;
    this.lookup = options.lookup ?? 'exact';
    this.pk = options.pk ?? 'id';
  }

  async validate(value: unknown, ctx: ValidatorContext): Promise<void> {
    const column = this.field ?? columnOf(ctx.field, ctx.fieldName ?? '');
    const source = await rowsOf(this.queryset, ctx.request);
    const exclude = excluded(ctx.instance, this.pk);
    if (await exists(source, [[column, keyValue(value), this.lookup]], exclude)) throw new FieldError([this.message]);
  }
}

export interface UniqueTogetherValidatorOptions {
  /** The rows the combination must not already be in. */
  queryset: UniqueQueryset;
  /** The serializer's field names that together are unique (their `source` names the columns). */
  fields: readonly string[];
  /** Default `The fields {field_names} must make a unique set.` */
  message?: string;
  /** The instance's key, so an update may keep its own values (default `id`). */
  pk?: string;
}

/**
 * DRF's `UniqueTogetherValidator`, for a serializer (`serializer({...}, {
 * validators: [...] })`): the combination of `fields` already present in
 * `queryset` is refused with `{"non_field_errors": ["The fields title,
 * author must make a unique set."]}`. As DRF: on create every one of the
 * fields is required (`{"title": ["This field is required."]}` even for a
 * field declared `required: false`); on update a field not sent keeps the
 * instance's value, the instance itself is left out, and nothing is checked
 * when no value changes; a `null` among the values skips the check.
 */
export class UniqueTogetherValidator {
  static message = 'The fields {field_names} must make a unique set.';
  static missingMessage = 'This field is required.';
  readonly queryset: UniqueQueryset;
  readonly fields: readonly string[];
  readonly message: string;
  readonly pk: string;

  constructor(options: UniqueTogetherValidatorOptions) {
    if (options.fields.length === 0) throw new TypeError('UniqueTogetherValidator needs at least one field.');
    this.queryset = options.queryset;
    this.fields = options.fields;
    this.message = options.message ?? UniqueTogetherValidator.message;
    this.pk = options.pk ?? 'id';
  }

  async validate(value: unknown, ctx: ValidatorContext): Promise<void> {
    const attrs = value as Record<string, unknown>;
    const declared = (ctx.field as { fields?: Record<string, Field<unknown, unknown, FieldFlags>> }).fields ?? {};
    const instance = ctx.instance === null || ctx.instance === undefined ? null : (ctx.instance as Record<string, unknown>);
    if (instance === null) {
      const missing: Record<string, string[]> = {};
      for (const name of this.fields) if (!Object.hasOwn(attrs, name)) missing[name] = [UniqueTogetherValidator.missingMessage];
      if (Object.keys(missing).length > 0) throw new FieldError(missing);
    }
    const conditions: [string, unknown, UniqueLookup][] = [];
    const checked: unknown[] = [];
    for (const name of this.fields) {
      const field = declared[name];
      const column = field ? columnOf(field, name) : name;
      const current = instance?.[column];
      const given = Object.hasOwn(attrs, name) ? keyValue(attrs[name]) : current;
      conditions.push([column, given, 'exact']);
      // On update only changed values count: an update that keeps the combination is not a conflict with itself.
      if (instance === null) checked.push(given);
      else if (Object.hasOwn(attrs, name) && !sameValue(given, current)) checked.push(given);
    }
    if (checked.length === 0 || checked.some((v) => v === null || v === undefined)) return;
    const source = await rowsOf(this.queryset, ctx.request);
    if (await exists(source, conditions, excluded(instance, this.pk))) {
      throw new FieldError([this.message.replace('{field_names}', this.fields.join(', '))]);
    }
  }
}

/** The column a field stores: the first part of its `source`, else its name. */
function columnOf(field: Field<unknown, unknown, FieldFlags>, name: string): string {
  const source = field.source;
  return source && source !== '*' ? source.split('.')[0]! : name;
}

/** A related object (the row a related field looked up) compares by its key. */
function keyValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) && 'id' in value) {
    return (value as { id: unknown }).id;
  }
  return value;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b || (a !== null && b !== null && a !== undefined && b !== undefined && typeof a !== 'object' && String(a) === String(b));
}

function excluded(instance: unknown, pk: string): [string, unknown] | null {
  if (instance === null || instance === undefined || typeof instance !== 'object') return null;
  const key = (instance as Record<string, unknown>)[pk];
  return key === undefined || key === null ? null : [pk, key];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rowsOf(queryset: UniqueQueryset, request: ApiRequest | null): Promise<Source<any>> {
  if (!request) throw new TypeError('A uniqueness validator needs the request to reach the database.');
  if (typeof queryset === 'function') return queryset(request);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (request.app.services.get('db') as any).selectFrom(queryset).selectAll();
}

/**
 * Whether a row of `source` matches every condition (and is not `exclude`).
 * A value the database refuses for the column's type matches nothing, as
 * DRF's `qs_exists` treats a `DataError`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function exists(source: Source<any>, conditions: readonly [string, unknown, UniqueLookup][], exclude: [string, unknown] | null): Promise<boolean> {
  if (isQueryBuilder(source)) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let q = source as SelectQueryBuilder<any, any, unknown>;
    for (const [column, value, lookup] of conditions) {
      q =
        lookup === 'iexact'
          ? q.where(sql`lower(cast(${sql.ref(column)} as text))`, '=', String(value).toLowerCase())
          : q.where(sql.ref(column), '=', value);
    }
    if (exclude) q = q.where(sql.ref(exclude[0]), '<>', exclude[1]);
    try {
      return (await q.limit(1).executeTakeFirst()) !== undefined;
    } catch (err) {
      if (isDatabaseInputError(err)) return false;
      throw err;
    }
  }
  return (source as readonly Record<string, unknown>[]).some(
    (row) =>
      conditions.every(([column, value, lookup]) =>
        lookup === 'iexact' ? String(row[column]).toLowerCase() === String(value).toLowerCase() : String(row[column]) === String(value),
      ) && !(exclude && String(row[exclude[0]]) === String(exclude[1])),
  );
}
