import { ValidationError, type ErrorDetail } from '../exceptions.js';
import {
  Field,
  FieldError,
  labelFor,
  pythonType,
  type FieldContext,
  type FieldFlags,
  type FieldInfo,
  type FieldOptions,
  type JsonSchema,
  type SchemaMode,
} from './field.js';
import { compileInternal, compileRepresentation, type CompiledInternal, type CompiledRepresentation, type InternalLater, type ReadableField, type WritableField } from './compiled.js';
import { isThenable, promiseOf } from '../utils/thenable.js';
import type { DeferredLookups } from './deferred-lookups.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = Field<any, any, FieldFlags>;

/** The fields of a serializer, by name. */
export type Shape = Record<string, AnyField>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type FlagOf<F extends AnyField, K extends keyof FieldFlags> = F['~types']['flags'][K];

/**
 * The validated body of a create or PUT: every writable field, optional
 * where the declaration has a default or `required: false`.
 */
export type InputOf<S extends Shape> = Simplify<
  {
    [K in keyof S as FlagOf<S[K], 'readOnly'> extends true ? never : FlagOf<S[K], 'optional'> extends true ? never : K]: S[K]['~types']['in'];
  } & {
    [K in keyof S as FlagOf<S[K], 'readOnly'> extends true ? never : FlagOf<S[K], 'optional'> extends true ? K : never]?: S[K]['~types']['in'];
  }
>;

/** The JSON of one instance: every field that is not write-only. */
export type OutputOf<S extends Shape> = Simplify<{
  [K in keyof S as FlagOf<S[K], 'writeOnly'> extends true ? never : K]: S[K]['~types']['out'];
}>;

/** `InputOf` / `OutputOf` of a serializer value: `type BookInput = Infer<typeof BookSerializer>['input']`. */
export type Infer<X> = X extends Serializer<infer S> ? { input: InputOf<S>; output: OutputOf<S> } : never;

export interface ValidateOptions extends Partial<FieldContext> {
  /** DRF's `NON_FIELD_ERRORS_KEY` (default `non_field_errors`). */
  readonly nonFieldErrorsKey?: string;
}

export interface SerializerOptions extends FieldOptions<unknown> {
  /**
   * The component name in OpenAPI (`Book` gives `Book`, `BookRequest`,
   * `PatchedBookRequest`); default: the view's name.
   */
  name?: string;
}

/**
 * A serializer, as DRF's `Serializer`: one declaration of a resource's
 * fields gives the validated input type (`InputOf`), the output shape
 * (`OutputOf`), DRF's validation messages, OPTIONS metadata, form field
 * descriptions and OpenAPI schemas. A serializer is itself a field, so it
 * nests (`author: AuthorSerializer`, `authors: list(AuthorSerializer)`).
 *
 * @example
 * const BookSerializer = serializer({
 *   url: hyperlinkedIdentity({ viewName: 'book-detail' }),
 *   id: integer({ readOnly: true }),
 *   title: string({ maxLength: 200 }),
 *   year: integer({ minValue: 0, required: false }),
 * }, { name: 'Book' });
 * // InputOf<typeof BookSerializer.fields> is { title: string; year?: number }
 */
export class Serializer<S extends Shape> extends Field<InputOf<S>, OutputOf<S>> {
  readonly kind = 'nested object';
  override readonly inputType = 'fieldset';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid: 'Invalid data. Expected a dictionary, but got {datatype}.',
  };
  readonly name: string | undefined;
  /** Fields that are rendered, with the attribute path each reads. */
  private readonly readable: readonly ReadableField[];
  private readonly writable: readonly WritableField[];
  /**
   * `toRepresentation` compiled for `readable`, from its second call on (a
   * serializer declared per request and used once is not compiled); `null`
   * when it cannot be (see `compileRepresentation`).
   */
  private compiledRepresentation: CompiledRepresentation | null | undefined = undefined;
  private representations = 0;
  /** `toInternal` on a dict compiled for `writable`, from its second call on, as `compiledRepresentation`. */
  private compiledInternal: CompiledInternal | null | undefined = undefined;
  private internals = 0;

  constructor(readonly fields: S, options: SerializerOptions = {}) {
    super(options);
    this.name = options.name;
    this.readable = Object.entries(fields)
      .filter(([, f]) => !f.writeOnly)
      .map(([name, f]) => [name, f, f.source === '*' ? null : (f.source ?? name).split('.')] as const);
    this.writable = Object.entries(fields).filter(([, f]) => !f.readOnly);
  }

  /**
   * Validates a request body, every field, and throws `ValidationError`
   * with DRF's `{field: [messages]}` map. With `partial` (PATCH) only the
   * fields sent are validated and returned, and defaults are not applied.
   */
  validate(data: unknown, options: ValidateOptions & { partial: true }): Promise<Partial<InputOf<S>>>;
  validate(data: unknown, options?: ValidateOptions & { partial?: false }): Promise<InputOf<S>>;
  validate(data: unknown, options?: ValidateOptions): Promise<Partial<InputOf<S>>>;
  validate(data: unknown, options: ValidateOptions = {}): Promise<Partial<InputOf<S>>> {
    return promiseOf(() => this.validateNow(data, options));
  }

  /**
   * `validate` without a promise where every field answers at once (a
   * related field's row read from SQLite, no validators that wait): the
   * validated data itself, else a promise of it. Generic views call this
   * one unless `validate` is overridden.
   */
  validateNow(data: unknown, options: ValidateOptions = {}): Partial<InputOf<S>> | Promise<Partial<InputOf<S>>> {
    const key = options.nonFieldErrorsKey ?? 'non_field_errors';
    if (data === null || data === undefined) throw new ValidationError({ [key]: ['No data provided'] });
    const failed = (err: unknown) => this.validationFailed(err, key);
    const deferred = options.deferLookups;
    if (deferred !== undefined) return this.validateLeavingLookups(data, options, deferred, failed);
    try {
      const ctx: FieldContext = { ...options, request: options.request ?? null };
      const attrs = this.toInternal(data, ctx);
      if (isThenable(attrs)) return attrs.then((a) => this.withValidators(a, ctx)).then(undefined, failed);
      const checked = this.withValidators(attrs, ctx);
      return isThenable(checked) ? checked.then(undefined, failed) : checked;
    } catch (err) {
      return failed(err);
    }
  }

  /**
   * `validateNow` where some related fields leave their lookup to the
   * insert (`deferred`): a refusal runs those lookups first, so their errors
   * come as DRF's would — beside the other fields' errors when a field
   * failed, alone when a serializer-level validator refused.
   */
  private validateLeavingLookups(
    data: unknown,
    options: ValidateOptions,
    deferred: DeferredLookups,
    failed: (err: unknown) => never,
  ): Partial<InputOf<S>> | Promise<Partial<InputOf<S>>> {
    const fieldsFailed = (err: unknown) => deferred.fieldsFailed(err, Object.keys(this.fields), failed);
    const validatorsFailed = (err: unknown) => deferred.validatorsFailed(err, failed);
    const ctx: FieldContext = { ...options, request: options.request ?? null };
    const checked = (attrs: InputOf<S>) => {
      try {
        const out = this.withValidators(attrs, ctx);
        return isThenable(out) ? out.then(undefined, validatorsFailed) : out;
      } catch (err) {
        return validatorsFailed(err);
      }
    };
    let attrs: InputOf<S> | Promise<InputOf<S>>;
    try {
      attrs = this.toInternal(data, ctx);
    } catch (err) {
      return fieldsFailed(err);
    }
    return isThenable(attrs) ? attrs.then(checked, fieldsFailed) : checked(attrs);
  }

  /** Serializer-level validators (DRF's `validators` / `Meta.validators`), once every field passed. */
  private withValidators(attrs: InputOf<S>, ctx: FieldContext): InputOf<S> | Promise<InputOf<S>> {
    if (this.validators.length === 0) return attrs;
    return this.runValidators(attrs, ctx, null).then(() => attrs);
  }

  /** A `FieldError` of validation as DRF's `ValidationError` map; anything else as it is. */
  private validationFailed(err: unknown, key: string): never {
    if (!(err instanceof FieldError)) throw err;
    const detail = err.detail;
    throw new ValidationError(Array.isArray(detail) || typeof detail === 'string' ? { [key]: detail } : detail);
  }

  /**
   * The nested form of `validate`: a dict in, errors as a `FieldError` map.
   * Without a promise while every field answers at once.
   */
  toInternal(value: unknown, ctx: FieldContext): InputOf<S> | Promise<InputOf<S>> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail('invalid', { datatype: pythonType(value) });
    }
    let compiled = this.compiledInternal;
    if (compiled === undefined && ++this.internals >= 2) {
      compiled = this.compiledInternal = compileInternal(this.writable, (...args) => this.internalLater(...args));
    }
    if (compiled) return compiled(value as Record<string, unknown>, ctx) as InputOf<S> | Promise<InputOf<S>>;
    return this.internalFrom(value as Record<string, unknown>, ctx, 0, {}, {});
  }

  /** The writable fields from `start` on, those before it done (`out`, `errors`); the first that waits makes the rest wait. */
  private internalFrom(
    input: Record<string, unknown>,
    ctx: FieldContext,
    start: number,
    out: Record<string, unknown>,
    errors: Record<string, ErrorDetail>,
  ): InputOf<S> | Promise<InputOf<S>> {
    const writable = this.writable;
    for (let i = start; i < writable.length; i++) {
      const [name, field] = writable[i]!;
      const given = Object.hasOwn(input, name) ? input[name] : undefined;
      if (given === undefined) {
        if (ctx.partial) continue;
        if (field.hasDefault) out[name] = field.getDefault();
        else if (field.required) errors[name] = [field.message('required')];
        continue;
      }
      if (given === null) {
        if (field.allowNull) out[name] = null;
        else errors[name] = [field.message('null')];
        continue;
      }
      let v: unknown;
      try {
        v = field.toInternal(given, ctx);
      } catch (err) {
        if (!(err instanceof FieldError)) throw err;
        errors[name] = err.detail;
        continue;
      }
      if (isThenable(v) || field.validators.length > 0) return this.internalLater(input, ctx, i, v, out, errors);
      out[name] = v;
    }
    if (Object.keys(errors).length > 0) throw new FieldError(errors);
    return out as InputOf<S>;
  }

  /** Field `i`'s value (`pending`, maybe a promise) and its validators awaited, then the fields after it. */
  private async internalLater(...[input, ctx, i, pending, out, errors]: Parameters<InternalLater>): Promise<InputOf<S>> {
    const [name, field] = this.writable[i]!;
    try {
      out[name] = isThenable(pending) ? await pending : pending;
      if (field.validators.length > 0) await field.runValidators(out[name], ctx, name);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      errors[name] = err.detail;
    }
    return this.internalFrom(input, ctx, i + 1, out, errors);
  }

  /**
   * The JSON of one instance (no I/O: related fields render from the keys
   * they read). An attribute the instance lacks is handled as DRF's
   * `Field.get_attribute` handles a `KeyError`: the field's default, else
   * `null` when it allows null, else left out when it is not required
   * (read-only fields are not), else an error naming the field, the
   * serializer and the view — never a silent `null`.
   */
  toRepresentation(instance: unknown, ctx: FieldContext): OutputOf<S> {
    let compiled = this.compiledRepresentation;
    if (compiled === undefined && ++this.representations >= 2) {
      compiled = this.compiledRepresentation = compileRepresentation(this.readable, (i, c, start, done) => this.representationFrom(i, c, start, done));
    }
    if (compiled) return compiled(instance, ctx) as OutputOf<S>;
    return this.representationFrom(instance, ctx, 0, []) as OutputOf<S>;
  }

  /**
   * The generic form of `toRepresentation`, from field `start` on, the
   * fields before it rendered as `done`: each attribute read by its path,
   * each value converted by its field.
   */
  private representationFrom(instance: unknown, ctx: FieldContext, start: number, done: readonly unknown[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const readable = this.readable;
    for (let i = 0; i < start; i++) out[readable[i]![0]] = done[i];
    for (let i = start; i < readable.length; i++) {
      const [name, field, path] = readable[i]!;
      let value: unknown = instance;
      if (path) for (let j = 0; j < path.length && value !== null && value !== undefined; j++) value = (value as Record<string, unknown>)[path[j]!];
      if (value === undefined) {
        if (field.hasDefault) {
          const d = field.getDefault();
          out[name] = d === null || d === undefined ? null : field.toRepresentation(d, ctx);
        } else if (field.allowNull) {
          out[name] = null;
        } else if (field.required) {
          throw this.missingAttribute(name, path, instance, ctx);
        }
        // Not required: DRF's SkipField, the key is left out.
        continue;
      }
      out[name] = value === null ? null : field.toRepresentation(value, ctx);
    }
    return out;
  }

  /** DRF's message for a source the instance does not have (a misnamed field, a column the query did not select). */
  private missingAttribute(name: string, path: readonly string[] | null, instance: unknown, ctx: FieldContext): Error {
    let holder: unknown = instance;
    let key = path?.[0] ?? name;
    for (const part of path ?? []) {
      key = part;
      if (holder === null || holder === undefined) break;
      const next = (holder as Record<string, unknown>)[part];
      if (next === undefined) break;
      holder = next;
    }
    const view = ctx.view as { constructor?: { name?: string } } | undefined;
    const where = view?.constructor?.name ? ` of view \`${view.constructor.name}\`` : '';
    return new Error(
      `Got KeyError when attempting to get a value for field \`${name}\` on serializer \`${this.name ?? 'Serializer'}\`${where}.\n` +
        `The serializer field might be named incorrectly and not match any attribute or key on the \`${pythonType(holder)}\` instance.\n` +
        `Original exception text was: '${key}'.`,
    );
  }

  /** The object schema of one side: `response` (what is rendered), `request` (what is accepted), or `partial` (PATCH). */
  objectSchema(mode: SchemaMode | 'partial'): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const fieldMode: SchemaMode = mode === 'response' ? 'response' : 'request';
    for (const [name, field] of Object.entries(this.fields)) {
      if (mode === 'response' ? field.writeOnly : field.readOnly) continue;
      const schema = field.jsonSchema(fieldMode);
      delete schema['readOnly'];
      delete schema['writeOnly'];
      // drf-spectacular writes a title only when the label says more than the name (`is_trivial_string_variation`).
      if (field.label && !trivialVariation(field.label, name)) schema['title'] = field.label;
      properties[name] = schema;
      if (mode === 'response' ? field.required || field.readOnly || field.hasDefault : mode === 'request' && field.required) required.push(name);
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  }

  /** Whether request and response differ (read-only or write-only fields), as drf-spectacular splits components. */
  get splitsRequest(): boolean {
    return Object.values(this.fields).some((f) => f.readOnly || f.writeOnly);
  }

  /** The schema of DRF's 400 body for this serializer: each writable field's messages, and the non-field errors. */
  errorSchema(nonFieldErrorsKey = 'non_field_errors'): JsonSchema {
    const messages: JsonSchema = { type: 'array', items: { type: 'string' } };
    const properties: Record<string, JsonSchema> = { [nonFieldErrorsKey]: messages };
    for (const [name, field] of this.writable) {
      properties[name] = field instanceof Serializer || field.kind === 'list' || field.kind === 'nested object' ? { oneOf: [messages, { type: 'object' }] } : messages;
    }
    return { type: 'object', properties };
  }

  valueSchema(mode: SchemaMode): JsonSchema {
    return this.objectSchema(mode);
  }

  /** DRF's OPTIONS `actions` entry: `{name: {type, required, read_only, label, …}}`. */
  describe(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const info of this.fieldInfo()) {
      if (info.field instanceof Serializer) {
        out[info.name] = { ...baseInfo(info), children: info.field.describe() };
        continue;
      }
      const limits = { ...info.limits };
      // DRF's SimpleMetadata lists the choices of writable fields only.
      if (info.readOnly) delete limits['choices'];
      out[info.name] = { ...baseInfo(info), ...limits };
    }
    return out;
  }

  override limits(): Record<string, unknown> {
    return { children: this.describe() };
  }

  /**
   * Every field with what a form needs: name, kind, label, required,
   * read-only/write-only, choices, help text, limits. The browsable API and
   * the admin draw their forms from this.
   */
  fieldInfo(): FieldInfo[] {
    return Object.entries(this.fields).map(([name, field]) => {
      const choices = field.choiceList();
      return {
        name,
        kind: field.kind,
        label: field.label ?? labelFor(name),
        required: field.required,
        readOnly: field.readOnly,
        writeOnly: field.writeOnly,
        allowNull: field.allowNull,
        ...(field.helpText ? { helpText: field.helpText } : {}),
        ...(choices ? { choices } : {}),
        inputType: field.inputType,
        limits: field.limits(),
        field,
      };
    });
  }
}

/** drf-spectacular's `is_trivial_string_variation`: equal once lower-cased with spaces and dashes as `_`. */
function trivialVariation(a: string, b: string): boolean {
  const norm = (x: string) => x.trim().toLowerCase().replaceAll(' ', '_').replaceAll('-', '_');
  return norm(a) === norm(b);
}

function baseInfo(info: FieldInfo): Record<string, unknown> {
  return {
    type: info.kind,
    required: info.required,
    read_only: info.readOnly,
    label: info.label,
    ...(info.helpText ? { help_text: info.helpText } : {}),
  };
}

/** Declares a serializer (see `Serializer`). */
export function serializer<const S extends Shape>(fields: S, options: SerializerOptions = {}): Serializer<S> {
  return new Serializer(fields, options);
}

/**
 * A serializer nested as a field with its own options, e.g. read-only or
 * nullable: `author: nested(AuthorSerializer, { readOnly: true })`.
 */
export function nested<S extends Shape, const O extends FieldOptions<unknown> = {}>(
  inner: Serializer<S>,
  options?: O,
): Field<
  O extends { allowNull: true } ? InputOf<S> | null : InputOf<S>,
  O extends { allowNull: true } ? OutputOf<S> | null : OutputOf<S>,
  import('./field.js').FlagsOf<O>
> {
  return new Serializer(inner.fields, { name: inner.name, ...options }) as never;
}

/** The earlier name of `serializer`, kept for existing declarations. */
export const fields = serializer;
