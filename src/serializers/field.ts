import { ValidationError, type ErrorDetail } from '../exceptions.js';
import type { DeferredLookups } from './deferred-lookups.js';
import type { ApiRequest } from '../request.js';

/** A JSON Schema (2020-12) fragment. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a field sees while it validates or renders: the request (for
 * `reverse`, querysets and the version), whether the write is partial (PATCH),
 * and the instance being updated.
 */
export interface FieldContext {
  readonly request: ApiRequest | null;
  readonly partial?: boolean;
  readonly instance?: unknown;
  readonly view?: unknown;
  /** The related rows a model view's create leaves to the insert (its foreign key or its guard, see `DeferredLookups`); set by that create only. */
  readonly deferLookups?: DeferredLookups;
}

/** Thrown by a field's `toInternal`: DRF's `ValidationError` of one field (a list, or a map for nested values). */
export class FieldError extends Error {
  constructor(readonly detail: ErrorDetail) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
  }
}

/** What a validator sees besides the value: the field context, and which field it checks. */
export interface ValidatorContext extends FieldContext {
  /** The field validated: for a serializer-level validator, the serializer itself. */
  readonly field: Field<unknown, unknown, FieldFlags>;
  /** The field's name in its serializer; `null` for the serializer validated as a whole. */
  readonly fieldName: string | null;
}

/**
 * A check that runs after a field converted its value (DRF's `validators=[…]`),
 * or, on a serializer, after every field passed (serializer-level validators
 * such as `UniqueTogetherValidator`). It throws `FieldError` (or
 * `ValidationError`) with a message list, or with a map of field names to
 * messages to report under those fields. A function, or an object with
 * `validate`.
 */
export type FieldValidator<T = unknown> =
  // A method's type, so a validator of `string` fits where the base field takes any value.
  | { check(value: T, ctx: ValidatorContext): void | Promise<void> }['check']
  | { validate(value: T, ctx: ValidatorContext): void | Promise<void> };

/** Options every field kind takes (DRF's `Field.__init__` arguments). */
export interface FieldOptions<T> {
  /** Must be sent on create/PUT (default: true unless there is a default or the field is read-only). */
  required?: boolean;
  /** Rendered, never accepted (`id`, `created`, links). */
  readOnly?: boolean;
  /** Accepted, never rendered (passwords). */
  writeOnly?: boolean;
  /** Used when the value is missing on create/PUT (not on PATCH); a function is called each time. */
  default?: T | (() => T);
  /** `null` is accepted and rendered. */
  allowNull?: boolean;
  /** The attribute of the instance to render (default: the field name); `'*'` is the whole instance; dots go deeper. */
  source?: string;
  /** Human label (default: the name, capitalised, underscores as spaces). */
  label?: string;
  /** Help text for forms, OPTIONS and OpenAPI descriptions. */
  helpText?: string;
  /** Replace some of the field's messages (`{ blank: 'Say something.' }`). */
  errorMessages?: Record<string, string>;
  /**
   * Run, in order, on a value that passed the field's own checks (never on
   * `null` or a missing value), as DRF's `validators=[…]`; every message is
   * kept. On a serializer they check the validated object as a whole.
   */
  validators?: readonly FieldValidator<T>[];
}

/** The static flags a field declaration carries, for the serializer's inferred types. */
export interface FieldFlags {
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  /** Not required on input (has a default or `required: false`). */
  readonly optional: boolean;
}

/** The flags implied by a literal options object. */
export type FlagsOf<O> = {
  readOnly: O extends { readOnly: true } ? true : false;
  writeOnly: O extends { writeOnly: true } ? true : false;
  optional: O extends { required: false } ? true : O extends { default: unknown } ? true : false;
};

/** `T`, or `T | null` when the options say `allowNull: true`. */
export type NullableIf<O, T> = O extends { allowNull: true } ? T | null : T;

/** The field type a factory returns for options `O`. */
export type FieldOf<O, In, Out> = Field<NullableIf<O, In>, NullableIf<O, Out>, FlagsOf<O>>;

/** What pages and OPTIONS need to draw a form field. */
export interface FieldInfo {
  readonly name: string;
  /** DRF's OPTIONS type: `string`, `integer`, `choice`, `field` (related), `nested object`, … */
  readonly kind: string;
  readonly label: string;
  readonly required: boolean;
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly allowNull: boolean;
  readonly helpText?: string;
  /** `[value, display name]` pairs for choice fields. */
  readonly choices?: readonly { value: string | number; displayName: string }[];
  /** A hint for an HTML input: `text`, `number`, `email`, `url`, `date`, `datetime-local`, `time`, `checkbox`, `select`, `select-multiple` (a list of related keys), `textarea`. */
  readonly inputType: string;
  /** Length/value limits as DRF names them (`max_length`, `min_value`, …). */
  readonly limits: Readonly<Record<string, unknown>>;
  /** The field itself, e.g. for `relatedChoices()`. */
  readonly field: Field<unknown, unknown, FieldFlags>;
}

const MISSING_DEFAULT = Symbol('no default');

/**
 * One field of a serializer, as DRF's `Field`: converts a primitive value of
 * a request body to its internal value (`toInternal`), an attribute of an
 * instance to its JSON value (`toRepresentation`), and describes itself for
 * OPTIONS, forms and OpenAPI. Messages are the `messages` attribute, so a
 * subclass changes the words without touching the logic.
 *
 * `In` is the validated value, `Out` the rendered one; `F` carries
 * read-only / write-only / optional for the serializer's inferred types.
 */
export abstract class Field<In, Out, F extends FieldFlags = FieldFlags> {
  /** Phantom: the types this declaration stands for (never set at run time). */
  declare readonly '~types': { in: In; out: Out; flags: F };

  /** DRF's OPTIONS `type` of this kind. */
  abstract readonly kind: string;
  /** The HTML input a form would use. */
  readonly inputType: string = 'text';

  /**
   * DRF's `default_error_messages`: each class adds its own; a subclass
   * changes the words with `static override defaultMessages = { blank: '…' }`.
   */
  static defaultMessages: Readonly<Record<string, string>> = {
    required: 'This field is required.',
    null: 'This field may not be null.',
  };

  /** The messages of this field: every class's defaults, then `errorMessages`. */
  readonly messages: Readonly<Record<string, string>>;

  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly required: boolean;
  readonly allowNull: boolean;
  readonly source: string | undefined;
  readonly label: string | undefined;
  readonly helpText: string | undefined;
  /** `validators` of the declaration (DRF's `validators`). */
  readonly validators: readonly FieldValidator<unknown>[];
  private readonly defaultValue: unknown;

  constructor(options: FieldOptions<unknown> = {}) {
    this.readOnly = options.readOnly ?? false;
    this.writeOnly = options.writeOnly ?? false;
    this.defaultValue = 'default' in options ? options.default : MISSING_DEFAULT;
    this.required = options.required ?? (!this.readOnly && this.defaultValue === MISSING_DEFAULT);
    this.allowNull = options.allowNull ?? false;
    this.source = options.source;
    this.label = options.label;
    this.helpText = options.helpText;
    this.validators = (options.validators ?? []) as readonly FieldValidator<unknown>[];
    const chain: Readonly<Record<string, string>>[] = [];
    for (let c: unknown = this.constructor; typeof c === 'function' && 'defaultMessages' in c; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'defaultMessages')) chain.unshift((c as typeof Field).defaultMessages);
    }
    this.messages = Object.assign({}, ...chain, options.errorMessages);
    if (this.readOnly && this.writeOnly) throw new TypeError('A field may not be both readOnly and writeOnly.');
    if (this.readOnly && options.required) throw new TypeError('A field may not be both readOnly and required.');
  }

  /** Whether a default applies when the value is missing. */
  get hasDefault(): boolean {
    return this.defaultValue !== MISSING_DEFAULT;
  }

  /** The default value (a function default is called). */
  getDefault(): In {
    const d = this.defaultValue;
    return (typeof d === 'function' ? (d as () => In)() : d) as In;
  }

  /** The message for `key` with `{name}` placeholders filled, as DRF's `fail`. */
  message(key: string, params: Record<string, unknown> = {}): string {
    const template = this.messages[key] ?? key;
    return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
  }

  /** Throws this field's error `key` (DRF's `self.fail`). */
  fail(key: string, params: Record<string, unknown> = {}): never {
    throw new FieldError([this.message(key, params)]);
  }

  /**
   * Runs `validators` on a converted value, as DRF's `run_validators`: every
   * validator runs and their messages are kept together; one that reports a
   * map of fields ends the run with that map.
   */
  async runValidators(value: In, ctx: FieldContext, fieldName: string | null): Promise<void> {
    const errors: ErrorDetail[] = [];
    const vctx: ValidatorContext = { ...ctx, field: this as Field<unknown, unknown, FieldFlags>, fieldName };
    for (const validator of this.validators) {
      try {
        await (typeof validator === 'function' ? validator(value, vctx) : validator.validate(value, vctx));
      } catch (err) {
        const detail = validatorDetail(err);
        if (detail === undefined) throw err;
        if (!Array.isArray(detail) && typeof detail === 'object') throw new FieldError(detail);
        if (Array.isArray(detail)) errors.push(...detail);
        else errors.push(detail);
      }
    }
    if (errors.length > 0) throw new FieldError(errors);
  }

  /**
   * A present, non-null value of a request body to its internal value; throws
   * `FieldError`. May return a promise (related fields look objects up).
   */
  abstract toInternal(value: unknown, ctx: FieldContext): In | Promise<In>;

  /** The attribute value of an instance (non-null) to JSON. */
  abstract toRepresentation(value: unknown, ctx: FieldContext): Out;

  /** JSON Schema of the value (without null), for OpenAPI; `mode` tells request from response. */
  abstract valueSchema(mode: SchemaMode): JsonSchema;

  /** JSON Schema of the value, with `null` when allowed. */
  jsonSchema(mode: SchemaMode): JsonSchema {
    const schema = this.valueSchema(mode);
    const out: JsonSchema = this.allowNull ? nullable(schema) : { ...schema };
    if (this.readOnly) out['readOnly'] = true;
    if (this.writeOnly) out['writeOnly'] = true;
    if (this.helpText) out['description'] = this.helpText;
    if (this.hasDefault && typeof this.defaultValue !== 'function') {
      const d = this.defaultValue;
      out['default'] = d instanceof Date ? d.toISOString() : d;
    }
    return out;
  }

  /** Limits and extras for OPTIONS (`max_length`, `choices`, `child`, …), DRF's names. */
  limits(): Record<string, unknown> {
    return {};
  }

  /** Choices for a form's select, when the kind has them. */
  choiceList(): { value: string | number; displayName: string }[] | undefined {
    return undefined;
  }
}

/** The detail of a validator's error (`FieldError` or a `ValidationError`-like `ApiError`), or `undefined` for any other error. */
function validatorDetail(err: unknown): ErrorDetail | undefined {
  if (err instanceof FieldError) return err.detail;
  if (err instanceof ValidationError) return err.detail;
  return undefined;
}

/** Which side of the wire a schema describes. */
export type SchemaMode = 'request' | 'response';

/** `schema` that also allows `null` (3.1 style). */
export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema['$ref'] === 'string' || !('type' in schema)) return { oneOf: [schema, { type: 'null' }] };
  const type = schema['type'];
  const types = Array.isArray(type) ? type : [type];
  const out: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(out['enum'])) out['enum'] = [...(out['enum'] as unknown[]), null];
  return out;
}

/** Python's `type(value).__name__` for a JSON value, as DRF's messages show it. */
export function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'bigint':
      return 'int';
    case 'object':
      return 'dict';
    default:
      return typeof value;
  }
}

/** Python's `str(value)` for a JSON value, as DRF's messages show input. */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

function pythonRepr(value: unknown): string {
  return typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : pythonStr(value);
}

/** DRF's default label: the name with underscores as spaces, first letter capital. */
export function labelFor(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
