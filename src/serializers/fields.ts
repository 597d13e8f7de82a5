import { ValidationError } from '../exceptions.js';

/**
 * Declarative input validation with DRF's serializer-field messages, for
 * `validate()` in generic views and for hand-written handlers.
 *
 * @example
 * const BookInput = fields({ title: string({ maxLength: 200 }), year: integer({ required: false, min: 0 }) });
 * const data = BookInput.validate(req.data);          // { title: string; year?: number }
 * const patch = BookInput.validate(req.data, { partial: true });
 */
export interface Field<T> {
  readonly required: boolean;
  readonly allowNull: boolean;
  readonly default?: T;
  /** Converts and checks one value; throws a list of messages. */
  toInternal(value: unknown): T;
  /** JSON Schema of the value, for OpenAPI. */
  jsonSchema(): Record<string, unknown>;
  /** DRF's OPTIONS metadata of the field, without `required`/`label` (the set adds them). */
  describe(): Record<string, unknown>;
}

interface CommonOptions<T> {
  required?: boolean;
  allowNull?: boolean;
  default?: T;
}

class FieldError extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join(' '));
  }
}

function fail(message: string): never {
  throw new FieldError([message]);
}

function base<T>(
  opts: CommonOptions<T>,
  toInternal: (v: unknown) => T,
  schema: Record<string, unknown>,
  info: Record<string, unknown>,
): Field<T> {
  return {
    required: opts.required ?? opts.default === undefined,
    allowNull: opts.allowNull ?? false,
    default: opts.default,
    toInternal,
    jsonSchema: () => (opts.allowNull ? { ...schema, type: [schema['type'], 'null'] } : schema),
    describe: () => info,
  };
}

export function string(
  opts: CommonOptions<string> & { maxLength?: number; minLength?: number; allowBlank?: boolean; trim?: boolean } = {},
): Field<string> {
  return base(
    opts,
    (v) => {
      if (typeof v !== 'string' && typeof v !== 'number') fail('Not a valid string.');
      let s = String(v);
      if (opts.trim ?? true) s = s.trim();
      if (s === '' && !opts.allowBlank) fail('This field may not be blank.');
      if (s.includes('\u0000')) fail('Null characters are not allowed.');
      const surrogate = /[\uD800-\uDFFF]/.exec(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
      if (surrogate) fail(`Surrogate characters are not allowed: U+${surrogate[0].charCodeAt(0).toString(16).toUpperCase()}.`);
      if (opts.maxLength !== undefined && s.length > opts.maxLength) {
        fail(`Ensure this field has no more than ${opts.maxLength} characters.`);
      }
      if (opts.minLength !== undefined && s.length < opts.minLength) {
        fail(`Ensure this field has at least ${opts.minLength} characters.`);
      }
      return s;
    },
    { type: 'string', ...(opts.maxLength !== undefined && { maxLength: opts.maxLength }), ...(opts.minLength !== undefined && { minLength: opts.minLength }) },
    { type: 'string', ...(opts.maxLength !== undefined && { max_length: opts.maxLength }), ...(opts.minLength !== undefined && { min_length: opts.minLength }) },
  );
}

export function integer(opts: CommonOptions<number> & { min?: number; max?: number } = {}): Field<number> {
  return base(
    opts,
    (v) => {
      let n: number;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && /^\s*[-+]?\d+(\.0*)?\s*$/.test(v)) {
        if (v.length > 1000) fail('String value too large.');
        n = Number(v);
      } else fail('A valid integer is required.');
      if (!Number.isSafeInteger(n)) fail('A valid integer is required.');
      if (opts.max !== undefined && n > opts.max) fail(`Ensure this value is less than or equal to ${opts.max}.`);
      if (opts.min !== undefined && n < opts.min) fail(`Ensure this value is greater than or equal to ${opts.min}.`);
      return n;
    },
    { type: 'integer', ...(opts.min !== undefined && { minimum: opts.min }), ...(opts.max !== undefined && { maximum: opts.max }) },
    { type: 'integer', ...(opts.min !== undefined && { min_value: opts.min }), ...(opts.max !== undefined && { max_value: opts.max }) },
  );
}

const TRUE = new Set(['true', 'True', 'TRUE', 'on', 'On', 'ON', 'yes', 'Yes', 'YES', 'y', 'Y', '1', 't', 'T']);
const FALSE = new Set(['false', 'False', 'FALSE', 'off', 'Off', 'OFF', 'no', 'No', 'NO', 'n', 'N', '0', 'f', 'F']);

export function boolean(opts: CommonOptions<boolean> = {}): Field<boolean> {
  return base(
    opts,
    (v) => {
      if (v === true || v === false) return v;
      if (v === 1 || v === 0) return v === 1;
      if (typeof v === 'string' && TRUE.has(v)) return true;
      if (typeof v === 'string' && FALSE.has(v)) return false;
      fail('Must be a valid boolean.');
    },
    { type: 'boolean' },
    { type: 'boolean' },
  );
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function email(opts: CommonOptions<string> & { maxLength?: number; allowBlank?: boolean } = {}): Field<string> {
  const inner = string(opts);
  return {
    ...inner,
    toInternal(v) {
      const s = inner.toInternal(v);
      if (s !== '' && !EMAIL_RE.test(s)) fail('Enter a valid email address.');
      return s;
    },
    jsonSchema: () => ({ ...inner.jsonSchema(), format: 'email' }),
    describe: () => ({ ...inner.describe(), type: 'email' }),
  };
}

export function choice<C extends string>(choices: readonly C[], opts: CommonOptions<C> = {}): Field<C> {
  return base(
    opts,
    (v) => {
      if (typeof v === 'string' && (choices as readonly string[]).includes(v)) return v as C;
      fail(`"${String(v)}" is not a valid choice.`);
    },
    { type: 'string', enum: [...choices] },
    { type: 'choice', choices: choices.map((c) => ({ value: c, display_name: c })) },
  );
}

type Shape = Record<string, Field<unknown>>;
type Output<S extends Shape> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

export interface FieldSet<S extends Shape> {
  readonly shape: S;
  /**
   * Validates a request body. `partial` (PATCH) skips missing required
   * fields. Throws `ValidationError` with a `{field: [messages]}` map.
   */
  validate(data: unknown, options?: { partial?: boolean; nonFieldErrorsKey?: string }): Partial<Output<S>> & Record<string, unknown>;
  jsonSchema(): Record<string, unknown>;
  /** DRF's OPTIONS `actions` entry: `{name: {type, required, read_only, label, …}}`. */
  describe(): Record<string, Record<string, unknown>>;
}

/** DRF's default label: the name with underscores as spaces, first letter capital. */
function labelFor(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function fields<S extends Shape>(shape: S): FieldSet<S> {
  return {
    shape,
    validate(data, options = {}) {
      if (data === null || data === undefined) {
        throw new ValidationError({ [options.nonFieldErrorsKey ?? 'non_field_errors']: ['No data provided'] });
      }
      if (typeof data !== 'object' || Array.isArray(data)) {
        const kind = data === null ? 'NoneType' : Array.isArray(data) ? 'list' : typeof data === 'string' ? 'str' : typeof data;
        throw new ValidationError({
          [options.nonFieldErrorsKey ?? 'non_field_errors']: [`Invalid data. Expected a dictionary, but got ${kind}.`],
        });
      }
      const input = data as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const errors: Record<string, string[]> = {};
      for (const [name, field] of Object.entries(shape)) {
        const present = Object.hasOwn(input, name) && input[name] !== undefined;
        if (!present) {
          if (options.partial) continue;
          if (field.default !== undefined) out[name] = field.default;
          else if (field.required) errors[name] = ['This field is required.'];
          continue;
        }
        const value = input[name];
        if (value === null) {
          if (field.allowNull) out[name] = null;
          else errors[name] = ['This field may not be null.'];
          continue;
        }
        try {
          out[name] = field.toInternal(value);
        } catch (err) {
          if (err instanceof FieldError) errors[name] = err.messages;
          else throw err;
        }
      }
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      return out as Partial<Output<S>> & Record<string, unknown>;
    },
    describe() {
      const out: Record<string, Record<string, unknown>> = {};
      for (const [name, field] of Object.entries(shape)) {
        const { type, ...limits } = field.describe();
        out[name] = { type, required: field.required, read_only: false, label: labelFor(name), ...limits };
      }
      return out;
    },
    jsonSchema() {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [name, field] of Object.entries(shape)) {
        properties[name] = field.jsonSchema();
        if (field.required) required.push(name);
      }
      return { type: 'object', properties, ...(required.length && { required }) };
    },
  };
}
