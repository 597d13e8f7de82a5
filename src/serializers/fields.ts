import {
  Field,
  FieldError,
  pythonStr,
  pythonType,
  type FieldContext,
  type FieldFlags,
  type FieldOf,
  type FieldOptions,
  type JsonSchema,
  type SchemaMode,
} from './field.js';
import { pythonStr as pythonNumber } from '../utils/python-str.js';
import { isThenable } from '../utils/thenable.js';
import { validDate } from '../utils/dates.js';

// DRF's serializer fields, one class per kind, each with DRF's messages as
// its `messages` attribute; the lower-case factories infer the field's
// static type from their options (`string({ allowNull: true })` is
// `string | null`).

const MAX_STRING_LENGTH = 1000;

function setIf(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

// ------------------------------------------------------------------ strings

export interface StringOptions extends FieldOptions<string> {
  maxLength?: number;
  minLength?: number;
  /** `''` is accepted (default: refused with "This field may not be blank."). */
  allowBlank?: boolean;
  /** Leading/trailing white space is removed (default true). */
  trimWhitespace?: boolean;
}

/**
 * DRF's `CharField`: strings, and numbers as their string (DRF accepts
 * `int`/`float`); booleans, lists and objects are "Not a valid string.".
 */
export class CharField extends Field<string, string> {
  readonly kind: string = 'string';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid: 'Not a valid string.',
    blank: 'This field may not be blank.',
    max_length: 'Ensure this field has no more than {max_length} characters.',
    min_length: 'Ensure this field has at least {min_length} characters.',
    null_characters: 'Null characters are not allowed.',
    surrogate_characters: 'Surrogate characters are not allowed: U+{code_point}.',
  };
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly allowBlank: boolean;
  readonly trimWhitespace: boolean;

  constructor(options: StringOptions = {}) {
    super(options);
    this.maxLength = options.maxLength;
    this.minLength = options.minLength;
    this.allowBlank = options.allowBlank ?? false;
    this.trimWhitespace = options.trimWhitespace ?? true;
  }

  toInternal(value: unknown, _ctx?: FieldContext): string {
    // DRF: numbers become Python's str() of them (an overflowing 1e999 is "inf").
    if (typeof value !== 'string' && typeof value !== 'number') this.fail('invalid');
    let s = typeof value === 'number' ? pythonNumber(value) : value;
    if (this.trimWhitespace) s = s.trim();
    if (s === '') {
      if (!this.allowBlank) this.fail('blank');
      return '';
    }
    const errors = this.check(s);
    if (errors.length > 0) throw new FieldError(errors);
    return s;
  }

  /** DRF's validators of the field, all run, every message kept. */
  protected check(s: string): string[] {
    const errors: string[] = [];
    // Without any surrogate (nearly every string) the length in code points is
    // the length, and no lone surrogate needs looking for.
    const surrogates = ANY_SURROGATE.test(s);
    const length = surrogates ? codePoints(s) : s.length;
    if (this.maxLength !== undefined && length > this.maxLength) errors.push(this.message('max_length', { max_length: this.maxLength }));
    if (this.minLength !== undefined && length < this.minLength) errors.push(this.message('min_length', { min_length: this.minLength }));
    if (s.includes('\u0000')) errors.push(this.message('null_characters'));
    const surrogate = surrogates ? ANY_SURROGATE.exec(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')) : null;
    if (surrogate) {
      errors.push(this.message('surrogate_characters', { code_point: surrogate[0].charCodeAt(0).toString(16).toUpperCase() }));
    }
    return errors;
  }

  toRepresentation(value: unknown): string {
    return String(value);
  }

  valueSchema(_mode: SchemaMode): JsonSchema {
    const out: JsonSchema = { type: 'string' };
    setIf(out, 'maxLength', this.maxLength);
    const min = this.minLength ?? (this.allowBlank || this.readOnly || _mode === 'response' ? undefined : 1);
    setIf(out, 'minLength', min);
    return out;
  }

  override limits(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    setIf(out, 'max_length', this.maxLength);
    setIf(out, 'min_length', this.minLength);
    return out;
  }
}

/** Any UTF-16 surrogate, paired or not (no `g` flag: `test` keeps no state). */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** A string checked against a pattern after CharField's checks. */
abstract class PatternField extends CharField {
  protected abstract matches(s: string): boolean;
  override toInternal(value: unknown, ctx?: FieldContext): string {
    const s = super.toInternal(value, ctx);
    if (s !== '' && !this.matches(s)) this.fail('invalid');
    return s;
  }
}

// Django's EmailValidator, in short: a dot-atom or quoted local part, a domain with a dot (or an IP literal).
const EMAIL_RE = /^(?:[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")@(?:(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+[A-Z0-9-]{2,63}(?<!-)|\[[0-9.:a-f]+\]|localhost)$/i;

/** DRF's `EmailField`. */
export class EmailField extends PatternField {
  override readonly kind = 'email';
  override readonly inputType = 'email';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Enter a valid email address.' };
  protected matches(s: string): boolean {
    return s.length <= 320 && EMAIL_RE.test(s);
  }
  override valueSchema(mode: SchemaMode): JsonSchema {
    return { ...super.valueSchema(mode), format: 'email' };
  }
}

/** DRF's `URLField` (Django's `URLValidator`: http, https, ftp, ftps with a real host). */
export class URLField extends PatternField {
  override readonly kind = 'url';
  override readonly inputType = 'url';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Enter a valid URL.' };
  protected matches(s: string): boolean {
    if (/\s/.test(s) || s.length > 2048) return false;
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return false;
    }
    if (!['http:', 'https:', 'ftp:', 'ftps:'].includes(url.protocol)) return false;
    const host = url.hostname;
    return host === 'localhost' || /^\[[0-9a-f:.]+\]$/i.test(host) || /^(\d{1,3}\.){3}\d{1,3}$/.test(host) || /^([a-z0-9\u00a1-\uffff-]+\.)+[a-z\u00a1-\uffff-]{2,63}\.?$/i.test(host);
  }
  override valueSchema(mode: SchemaMode): JsonSchema {
    return { ...super.valueSchema(mode), format: 'uri' };
  }
}

/** DRF's `SlugField`: letters, numbers, underscores and hyphens. */
export class SlugField extends PatternField {
  override readonly kind = 'slug';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.' };
  protected matches(s: string): boolean {
    return /^[-a-zA-Z0-9_]+$/.test(s);
  }
  override valueSchema(mode: SchemaMode): JsonSchema {
    return { ...super.valueSchema(mode), pattern: '^[-a-zA-Z0-9_]+$' };
  }
}

/** DRF's `UUIDField`: hex with or without hyphens, braces or `urn:uuid:`; rendered hyphenated, lower case. */
export class UUIDField extends Field<string, string> {
  readonly kind = 'string';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Must be a valid UUID.' };
  toInternal(value: unknown): string {
    if (typeof value !== 'string') this.fail('invalid');
    const hex = value.replace(/^urn:/i, '').replace(/^uuid:/i, '').replace(/^\{|\}$/g, '').replace(/-/g, '');
    if (!/^[0-9a-f]{32}$/i.test(hex)) this.fail('invalid');
    const h = hex.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  toRepresentation(value: unknown): string {
    return String(value).toLowerCase();
  }
  valueSchema(): JsonSchema {
    return { type: 'string', format: 'uuid' };
  }
}

// ------------------------------------------------------------------ numbers

export interface NumberOptions extends FieldOptions<number> {
  minValue?: number;
  maxValue?: number;
}

function checkRange(field: Field<unknown, unknown>, n: number, min: number | undefined, max: number | undefined): void {
  if (max !== undefined && n > max) field.fail('max_value', { max_value: max });
  if (min !== undefined && n < min) field.fail('min_value', { min_value: min });
}

const RANGE_MESSAGES = {
  max_value: 'Ensure this value is less than or equal to {max_value}.',
  min_value: 'Ensure this value is greater than or equal to {min_value}.',
  max_string_length: 'String value too large.',
};

/** What IntegerField and FloatField share: `minValue`/`maxValue`, their OpenAPI bounds and their `limits()`. */
abstract class RangedNumberField extends Field<number, number> {
  override readonly inputType = 'number';
  readonly minValue: number | undefined;
  readonly maxValue: number | undefined;
  constructor(options: NumberOptions = {}) {
    super(options);
    this.minValue = options.minValue;
    this.maxValue = options.maxValue;
  }
  /** The JSON Schema type of the value, before its bounds. */
  protected abstract numberSchema(): JsonSchema;
  valueSchema(): JsonSchema {
    const out = this.numberSchema();
    setIf(out, 'minimum', this.minValue);
    setIf(out, 'maximum', this.maxValue);
    return out;
  }
  override limits(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    setIf(out, 'min_value', this.minValue);
    setIf(out, 'max_value', this.maxValue);
    return out;
  }
}

/** DRF's `IntegerField`: integers, and strings like `"12"` or `"12.0"`; `12.5` is refused. */
export class IntegerField extends RangedNumberField {
  readonly kind = 'integer';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'A valid integer is required.', ...RANGE_MESSAGES };
  toInternal(value: unknown): number {
    let n: number;
    if (typeof value === 'string') {
      if (value.length > MAX_STRING_LENGTH) this.fail('max_string_length');
      // int(re.sub(r'\.0*\s*$', '', str(data)))
      const m = /^\s*([-+]?\d+)(?:\.0*)?\s*$/.exec(value);
      if (!m) this.fail('invalid');
      n = Number(m[1]);
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      n = value;
    } else {
      this.fail('invalid');
    }
    if (!Number.isSafeInteger(n)) this.fail('invalid');
    checkRange(this, n, this.minValue, this.maxValue);
    return n;
  }
  toRepresentation(value: unknown): number {
    return typeof value === 'number' ? Math.trunc(value) : Number.parseInt(String(value), 10);
  }
  protected numberSchema(): JsonSchema {
    return { type: 'integer' };
  }
}

const FLOAT_RE = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** DRF's `FloatField`: numbers and numeric strings (`"1e3"`); NaN and infinities are refused (JSON has none). */
export class FloatField extends RangedNumberField {
  readonly kind = 'float';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'A valid number is required.', ...RANGE_MESSAGES };
  toInternal(value: unknown): number {
    let n: number;
    if (typeof value === 'string') {
      if (value.length > MAX_STRING_LENGTH) this.fail('max_string_length');
      if (!FLOAT_RE.test(value)) this.fail('invalid');
      n = Number(value);
    } else if (typeof value === 'number') n = value;
    else if (typeof value === 'boolean') n = value ? 1 : 0;
    else this.fail('invalid');
    if (!Number.isFinite(n)) this.fail('invalid');
    checkRange(this, n, this.minValue, this.maxValue);
    return n;
  }
  toRepresentation(value: unknown): number {
    return Number(value);
  }
  protected numberSchema(): JsonSchema {
    return { type: 'number', format: 'double' };
  }
}

/** Python's `decimal` rounding modes, by their names (DRF's `rounding=`). */
export type DecimalRounding =
  | 'ROUND_HALF_EVEN'
  | 'ROUND_HALF_UP'
  | 'ROUND_HALF_DOWN'
  | 'ROUND_UP'
  | 'ROUND_DOWN'
  | 'ROUND_CEILING'
  | 'ROUND_FLOOR'
  | 'ROUND_05UP';

const ROUNDINGS: ReadonlySet<string> = new Set<DecimalRounding>([
  'ROUND_HALF_EVEN',
  'ROUND_HALF_UP',
  'ROUND_HALF_DOWN',
  'ROUND_UP',
  'ROUND_DOWN',
  'ROUND_CEILING',
  'ROUND_FLOOR',
  'ROUND_05UP',
]);

export interface DecimalOptions extends FieldOptions<string> {
  maxDigits: number | null;
  decimalPlaces: number | null;
  minValue?: number | string;
  maxValue?: number | string;
  /**
   * Rendered as a JSON string (`"12.50"`, the default, DRF's
   * `COERCE_DECIMAL_TO_STRING`), or as a JSON number when `false`.
   */
  coerceToString?: boolean;
  /**
   * How a value with more places than `decimalPlaces` is rounded for
   * output: DRF's default is the decimal context's, `ROUND_HALF_EVEN`
   * (`"0.25"` → `"0.2"`); `ROUND_HALF_UP` gives `"0.3"`.
   */
  rounding?: DecimalRounding;
  /** Trailing zeros are dropped from the output (`"12.50"` → `"12.5"`), as DRF's `normalize_output`. */
  normalizeOutput?: boolean;
}

/**
 * DRF's `DecimalField`: numbers or numeric strings in, checked for digits
 * and places (DRF's `validate_precision`), kept as a string with exactly
 * `decimalPlaces` places (`"12.50"`); out, the value quantized to
 * `decimalPlaces` with the field's rounding (`"3.19"` → `"3.2"`,
 * `"999999.99"` → `"1000000.0"`), as a string unless `coerceToString` is
 * `false`. All of it is decimal string arithmetic: nothing goes through a
 * binary float.
 */
export class DecimalField extends Field<string, string | number> {
  readonly kind = 'decimal';
  override readonly inputType = 'number';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid: 'A valid number is required.',
    ...RANGE_MESSAGES,
    max_digits: 'Ensure that there are no more than {max_digits} digits in total.',
    max_decimal_places: 'Ensure that there are no more than {max_decimal_places} decimal places.',
    max_whole_digits: 'Ensure that there are no more than {max_whole_digits} digits before the decimal point.',
  };
  readonly maxDigits: number | null;
  readonly decimalPlaces: number | null;
  readonly minValue: number | string | undefined;
  readonly maxValue: number | string | undefined;
  readonly coerceToString: boolean;
  readonly rounding: DecimalRounding;
  readonly normalizeOutput: boolean;
  private readonly minDecimal: ParsedDecimal | null;
  private readonly maxDecimal: ParsedDecimal | null;
  constructor(options: DecimalOptions) {
    super(options);
    this.maxDigits = options.maxDigits;
    this.decimalPlaces = options.decimalPlaces;
    this.minValue = options.minValue;
    this.maxValue = options.maxValue;
    this.coerceToString = options.coerceToString ?? true;
    this.rounding = options.rounding ?? 'ROUND_HALF_EVEN';
    this.normalizeOutput = options.normalizeOutput ?? false;
    if (!ROUNDINGS.has(this.rounding)) {
      throw new TypeError(`Invalid rounding option ${String(this.rounding)}. Valid values for rounding are: ${[...ROUNDINGS].join(', ')}`);
    }
    this.minDecimal = bound(options.minValue, 'minValue');
    this.maxDecimal = bound(options.maxValue, 'maxValue');
  }

  toInternal(value: unknown): string {
    if (typeof value !== 'string' && typeof value !== 'number') this.fail('invalid');
    const text = (typeof value === 'number' ? pythonNumber(value) : value).trim();
    if (text.length > MAX_STRING_LENGTH) this.fail('max_string_length');
    const d = parseDecimal(text);
    if (!d) this.fail('invalid');
    // DRF's validate_precision, on the digit tuple and exponent of Python's Decimal, before quantizing.
    const digits = d.digits.length;
    let total: number;
    let whole: number;
    let places: number;
    if (d.exponent >= 0) {
      total = digits + d.exponent;
      whole = total;
      places = 0;
    } else if (digits > -d.exponent) {
      total = digits;
      whole = digits + d.exponent;
      places = -d.exponent;
    } else {
      total = -d.exponent;
      whole = 0;
      places = total;
    }
    if (this.maxDigits !== null && total > this.maxDigits) this.fail('max_digits', { max_digits: this.maxDigits });
    if (this.decimalPlaces !== null && places > this.decimalPlaces) {
      this.fail('max_decimal_places', { max_decimal_places: this.decimalPlaces });
    }
    if (this.maxDigits !== null && this.decimalPlaces !== null && whole > this.maxDigits - this.decimalPlaces) {
      this.fail('max_whole_digits', { max_whole_digits: this.maxDigits - this.decimalPlaces });
    }
    const q = this.quantize(d);
    if (this.maxDecimal !== null && compareDecimals(q, this.maxDecimal) > 0) this.fail('max_value', { max_value: this.maxValue });
    if (this.minDecimal !== null && compareDecimals(q, this.minDecimal) < 0) this.fail('min_value', { min_value: this.minValue });
    return formatDecimal(q);
  }

  toRepresentation(value: unknown): string | number {
    const text = typeof value === 'number' ? pythonNumber(value) : String(value).trim();
    const d = parseDecimal(text);
    if (!d) return this.coerceToString ? text : Number(text);
    let q = this.quantize(d);
    if (this.normalizeOutput) q = normalizeDecimal(q);
    const out = formatDecimal(q);
    // DRF hands the renderer a Decimal, which its JSON encoder writes as float(value).
    return this.coerceToString ? out : Number(out);
  }

  /** DRF's `quantize`: to `decimalPlaces` places with the field's rounding; unchanged without `decimalPlaces`. */
  quantize(d: ParsedDecimal): ParsedDecimal {
    return this.decimalPlaces === null ? d : quantizeDecimal(d, this.decimalPlaces, this.rounding);
  }

  valueSchema(mode: SchemaMode): JsonSchema {
    if (!this.coerceToString) return { type: 'number', format: 'double' };
    // drf-spectacular: a string with a pattern for the digits and places.
    const whole = this.maxDigits !== null && this.decimalPlaces !== null ? this.maxDigits - this.decimalPlaces : null;
    const places = this.decimalPlaces;
    const pattern = `^-?\\d${whole === null ? '*' : `{0,${whole}}`}(?:\\.\\d${places === null ? '*' : `{0,${places}}`})?$`;
    return { type: 'string', format: 'decimal', ...(mode === 'request' ? { pattern } : {}) };
  }

  override limits(): Record<string, unknown> {
    const out: Record<string, unknown> = { max_digits: this.maxDigits, decimal_places: this.decimalPlaces };
    setIf(out, 'min_value', this.minValue);
    setIf(out, 'max_value', this.maxValue);
    return out;
  }
}

function bound(value: number | string | undefined, name: string): ParsedDecimal | null {
  if (value === undefined) return null;
  const d = parseDecimal(typeof value === 'number' ? pythonNumber(value) : value.trim());
  if (d === null) throw new TypeError(`DecimalField ${name} must be a number or a numeric string, not ${JSON.stringify(value)}.`);
  return d;
}

/** A decimal as Python's `Decimal.as_tuple()` holds it: sign, coefficient digits, exponent. */
export interface ParsedDecimal {
  readonly negative: boolean;
  /** The coefficient's digits without leading zeros (`'0'` for zero). */
  readonly digits: string;
  readonly exponent: number;
}

/** Python's `Decimal(text)` for finite numbers (`"12.50"`, `"-1e3"`, `".5"`), or `null`. */
export function parseDecimal(text: string): ParsedDecimal | null {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d{1,6}))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const intPart = m[2]!;
  const frac = m[3] ?? '';
  let digits = (intPart + frac).replace(/^0+/, '');
  const exponent = Number(m[4] ?? 0) - frac.length;
  if (digits === '') digits = '0';
  return { negative: m[1] === '-', digits, exponent };
}

/** `Decimal.quantize(Decimal('1e-places'), rounding)`, exactly, on the digit string. */
export function quantizeDecimal(d: ParsedDecimal, places: number, rounding: DecimalRounding): ParsedDecimal {
  const target = -places;
  if (d.exponent >= target) {
    const digits = d.digits === '0' ? '0' : d.digits + '0'.repeat(d.exponent - target);
    return { negative: d.negative, digits, exponent: target };
  }
  const drop = target - d.exponent;
  const padded = d.digits.padStart(drop + 1, '0');
  const kept = padded.slice(0, padded.length - drop);
  const dropped = padded.slice(padded.length - drop);
  const nonZero = /[1-9]/.test(dropped);
  const half = '5'.padEnd(drop, '0');
  const vsHalf = dropped === half ? 0 : dropped > half ? 1 : -1;
  const last = Number(kept[kept.length - 1]);
  let up: boolean;
  switch (rounding) {
    case 'ROUND_HALF_UP':
      up = vsHalf >= 0;
      break;
    case 'ROUND_HALF_DOWN':
      up = vsHalf > 0;
      break;
    case 'ROUND_HALF_EVEN':
      up = vsHalf > 0 || (vsHalf === 0 && last % 2 === 1);
      break;
    case 'ROUND_UP':
      up = nonZero;
      break;
    case 'ROUND_DOWN':
      up = false;
      break;
    case 'ROUND_CEILING':
      up = nonZero && !d.negative;
      break;
    case 'ROUND_FLOOR':
      up = nonZero && d.negative;
      break;
    case 'ROUND_05UP':
      up = nonZero && (last === 0 || last === 5);
      break;
  }
  const digits = (up ? incrementDigits(kept) : kept).replace(/^0+(?=\d)/, '');
  return { negative: d.negative, digits, exponent: target };
}

/** Adds one to a string of decimal digits. */
function incrementDigits(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== '9') {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
    out[i] = '0';
  }
  return `1${out.join('')}`;
}

/** `Decimal.normalize()`: trailing zeros of the coefficient moved into the exponent. */
function normalizeDecimal(d: ParsedDecimal): ParsedDecimal {
  if (d.digits === '0') return { negative: d.negative, digits: '0', exponent: 0 };
  const trimmed = d.digits.replace(/0+$/, '');
  return { negative: d.negative, digits: trimmed, exponent: d.exponent + (d.digits.length - trimmed.length) };
}

/** Orders two decimals by value. */
function compareDecimals(a: ParsedDecimal, b: ParsedDecimal): number {
  const za = a.digits === '0';
  const zb = b.digits === '0';
  if (za && zb) return 0;
  const sa = za ? 0 : a.negative ? -1 : 1;
  const sb = zb ? 0 : b.negative ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  // Same sign: compare magnitudes on a common exponent.
  const e = Math.min(a.exponent, b.exponent);
  const ma = a.digits + '0'.repeat(a.exponent - e);
  const mb = b.digits + '0'.repeat(b.exponent - e);
  const mag = ma.length !== mb.length ? (ma.length < mb.length ? -1 : 1) : ma === mb ? 0 : ma < mb ? -1 : 1;
  return sa < 0 ? -mag : mag;
}

/** Python's `'{:f}'.format(decimal)`: positional notation, every place of the exponent kept. */
export function formatDecimal(d: ParsedDecimal): string {
  let intPart: string;
  let frac: string;
  if (d.exponent >= 0) {
    intPart = d.digits === '0' ? '0' : d.digits + '0'.repeat(d.exponent);
    frac = '';
  } else {
    const k = -d.exponent;
    const padded = d.digits.padStart(k + 1, '0');
    intPart = padded.slice(0, padded.length - k);
    frac = padded.slice(padded.length - k);
  }
  intPart = intPart.replace(/^0+(?=\d)/, '');
  return `${d.negative ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`;
}

// ------------------------------------------------------------------ booleans

const TRUE = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);

/** DRF's `BooleanField` with its accepted spellings (`"yes"`, `"on"`, `1`, `"f"`, …). */
export class BooleanField extends Field<boolean, boolean> {
  readonly kind = 'boolean';
  override readonly inputType = 'checkbox';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Must be a valid boolean.' };
  toInternal(value: unknown): boolean {
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    this.fail('invalid');
  }
  toRepresentation(value: unknown): boolean {
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    return Boolean(value);
  }
  valueSchema(): JsonSchema {
    return { type: 'boolean' };
  }
}

// ------------------------------------------------------------------ dates and times

const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TIME_PART = '(\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:[.,](\\d{1,6})\\d{0,6})?)?';
const DATETIME_RE = new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})[T ]${TIME_PART}\\s*(Z|[+-]\\d{2}(?::?\\d{2})?)?$`);
const TIME_RE = new RegExp(`^${TIME_PART}$`);

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * An ISO 8601 date and time (`T` or a space between them, seconds, up to six
 * fraction digits and an offset optional; no offset is UTC): the instant to
 * the millisecond and the fraction's microseconds, or `null`.
 */
function parseDateTime(text: string): { date: Date; micros: number } | null {
  const m = DATETIME_RE.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = Number(m[6] ?? 0);
  const micros = Number((m[7] ?? '').padEnd(6, '0') || 0);
  if (!validDate(y!, mo!, d!) || h! > 23 || mi! > 59 || s > 59) return null;
  let offsetMinutes = 0;
  const tz = m[8];
  if (tz && tz !== 'Z') {
    const t = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)!;
    offsetMinutes = (t[1] === '-' ? -1 : 1) * (Number(t[2]) * 60 + Number(t[3] ?? 0));
    if (Math.abs(offsetMinutes) >= 24 * 60) return null;
  }
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear puts them back.
  const utc = new Date(Date.UTC(2000, mo! - 1, d!, h!, mi!, s, Math.floor(micros / 1000)));
  utc.setUTCFullYear(y!, mo! - 1, d!);
  const date = new Date(utc.getTime() - offsetMinutes * 60_000);
  if (Number.isNaN(date.getTime())) return null;
  return { date, micros };
}

/**
 * The representation of a stored time already in UTC and to the second or
 * finer, `YYYY-MM-DDThh:mm:ss[.f{1,6}]Z` (how Trestle stores a time as text,
 * `toISOString`), straight from its text: what `parseDateTime` and
 * `toISOString` would give back, without building two `Date`s per value (the
 * text itself when it is already the representation). `null` for any other
 * form (and for an impossible date), which takes the long way.
 */
export function canonicalUtc(text: string): string | null {
  const n = text.length;
  // 20 characters without a fraction, 22 to 27 with one to six digits.
  if (n < 20 || n > 27 || n === 21 || text.charCodeAt(n - 1) !== 0x5a /* Z */) return null;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x54 || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) {
    return null;
  }
  const y = digitsAt(text, 0, 4);
  const mo = digitsAt(text, 5, 2);
  const d = digitsAt(text, 8, 2);
  const h = digitsAt(text, 11, 2);
  const mi = digitsAt(text, 14, 2);
  const s = digitsAt(text, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0 || h > 23 || mi > 59 || s > 59) return null;
  if (!validDate(y, mo, d)) return null;
  if (n === 20) return text;
  if (text.charCodeAt(19) !== 0x2e /* . */) return null;
  const fraction = digitsAt(text, 20, n - 21);
  if (fraction < 0) return null;
  if (fraction === 0) return text.slice(0, 19) + 'Z';
  // Six fraction digits, as Python's isoformat writes microseconds.
  return n === 27 ? text : `${text.slice(0, n - 1)}${'000000'.slice(n - 21)}Z`;
}

/** The number written by `count` ASCII digits of `text` at `start`, or -1 when one is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}

/** DRF's `DateField`: ISO 8601 `YYYY-MM-DD`, kept and rendered as that string. */
export class DateField extends Field<string, string> {
  readonly kind = 'date';
  override readonly inputType = 'date';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid: 'Date has wrong format. Use one of these formats instead: {format}.',
    datetime: 'Expected a date but got a datetime.',
  };
  toInternal(value: unknown): string {
    const m = typeof value === 'string' ? DATE_RE.exec(value) : null;
    if (!m) this.fail('invalid', { format: 'YYYY-MM-DD' });
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!validDate(y, mo, d)) this.fail('invalid', { format: 'YYYY-MM-DD' });
    return `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
  }
  toRepresentation(value: unknown): string {
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    return String(value).slice(0, 10);
  }
  valueSchema(): JsonSchema {
    return { type: 'string', format: 'date' };
  }
}

/**
 * DRF's `DateTimeField`: ISO 8601 in (`2024-05-01T12:30`, seconds,
 * fractions and an offset optional; without an offset the time is UTC, as
 * Django with `TIME_ZONE = 'UTC'`), a `Date` inside, ISO 8601 with `Z` out
 * (`2024-05-01T12:30:00Z`, microseconds only when not zero, as Python's
 * `isoformat`).
 */
export class DateTimeField extends Field<Date, string> {
  readonly kind = 'datetime';
  override readonly inputType = 'datetime-local';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid: 'Datetime has wrong format. Use one of these formats instead: {format}.',
    date: 'Expected a datetime but got a date.',
  };
  toInternal(value: unknown): Date {
    const format = 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]';
    const parsed = typeof value === 'string' ? parseDateTime(value.trim()) : null;
    if (parsed === null) this.fail('invalid', { format });
    return parsed.date;
  }
  /**
   * A `Date` (node-postgres' `timestamptz`) to the millisecond; text (SQLite's
   * ISO 8601, or PostgreSQL's `2024-05-01 12:30:00.123456+00`) to the
   * microsecond it holds, as Python's `isoformat` in UTC.
   */
  toRepresentation(value: unknown): string {
    let date: Date;
    let micros: number;
    if (value instanceof Date) {
      date = value;
      micros = value.getUTCMilliseconds() * 1000;
    } else {
      if (typeof value === 'string') {
        const canonical = canonicalUtc(value);
        if (canonical !== null) return canonical;
      }
      const parsed = parseDateTime(String(value).trim());
      if (parsed === null) {
        date = new Date(String(value));
        if (Number.isNaN(date.getTime())) return String(value);
        micros = date.getUTCMilliseconds() * 1000;
      } else {
        ({ date, micros } = parsed);
      }
    }
    if (Number.isNaN(date.getTime())) return String(value);
    return `${date.toISOString().slice(0, 19)}${micros ? `.${pad(micros, 6)}` : ''}Z`;
  }
  valueSchema(): JsonSchema {
    return { type: 'string', format: 'date-time' };
  }
}

/** DRF's `TimeField`: `hh:mm[:ss[.uuuuuu]]`, kept and rendered as `hh:mm:ss[.uuuuuu]`. */
export class TimeField extends Field<string, string> {
  readonly kind = 'time';
  override readonly inputType = 'time';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Time has wrong format. Use one of these formats instead: {format}.' };
  toInternal(value: unknown): string {
    const format = 'hh:mm[:ss[.uuuuuu]]';
    const m = typeof value === 'string' ? TIME_RE.exec(value) : null;
    if (!m) this.fail('invalid', { format });
    const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    if (h > 23 || mi > 59 || s > 59) this.fail('invalid', { format });
    const micros = (m[4] ?? '').padEnd(6, '0');
    return `${pad(h)}:${pad(mi)}:${pad(s)}${m[4] && Number(micros) !== 0 ? `.${micros}` : ''}`;
  }
  toRepresentation(value: unknown): string {
    return String(value);
  }
  valueSchema(): JsonSchema {
    return { type: 'string', format: 'time' };
  }
}

// ------------------------------------------------------------------ choices

type ChoiceValue = string | number;
/** `['a', 'b']`, or `{ a: 'Display A' }`, or `[['a', 'Display A']]`. */
export type Choices<C extends ChoiceValue> = readonly C[] | readonly (readonly [C, string])[] | Readonly<Record<C, string>>;

function choicePairs<C extends ChoiceValue>(choices: Choices<C>): [C, string][] {
  if (Array.isArray(choices)) {
    return (choices as readonly (C | readonly [C, string])[]).map((c) => (Array.isArray(c) ? [c[0], c[1]] : [c as C, String(c)]));
  }
  return Object.entries(choices as Record<string, string>).map(([k, v]) => [k as C, v]);
}

export interface ChoiceOptions<C> extends FieldOptions<C> {
  allowBlank?: boolean;
}

/** DRF's `ChoiceField`: the value must be one of `choices` (compared as strings, as DRF does: `1` matches `"1"`). */
export class ChoiceField<C extends ChoiceValue = string> extends Field<C, C> {
  readonly kind: string = 'choice';
  override readonly inputType: string = 'select';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid_choice: '"{input}" is not a valid choice.' };
  readonly choices: readonly [C, string][];
  protected readonly byString: Map<string, C>;
  readonly allowBlank: boolean;
  constructor(choices: Choices<C>, options: ChoiceOptions<C> = {}) {
    super(options);
    this.choices = choicePairs(choices);
    this.byString = new Map(this.choices.map(([v]) => [String(v), v]));
    this.allowBlank = options.allowBlank ?? false;
  }
  toInternal(value: unknown): C {
    if (value === '' && this.allowBlank) return '' as C;
    const key = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? pythonStr(value) : null;
    const found = key === null ? undefined : this.byString.get(key);
    if (found === undefined) this.fail('invalid_choice', { input: pythonStr(value) });
    return found;
  }
  toRepresentation(value: unknown): C {
    return (this.byString.get(String(value)) ?? value) as C;
  }
  valueSchema(): JsonSchema {
    const values = this.choices.map(([v]) => v);
    const types = [...new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : 'string')))];
    return { ...(types.length === 1 ? { type: types[0] } : {}), enum: values };
  }
  override choiceList(): { value: string | number; displayName: string }[] {
    return this.choices.map(([value, displayName]) => ({ value, displayName }));
  }
  override limits(): Record<string, unknown> {
    return { choices: this.choices.map(([value, display_name]) => ({ value, display_name })) };
  }
}

export interface MultipleChoiceOptions<C> extends FieldOptions<C[]> {
  /** An empty list is accepted (default true). */
  allowEmpty?: boolean;
}

/** DRF's `MultipleChoiceField`: a list of choices, each once. */
export class MultipleChoiceField<C extends ChoiceValue = string> extends Field<C[], C[]> {
  readonly kind = 'multiple choice';
  override readonly inputType = 'select';
  static override defaultMessages: Readonly<Record<string, string>> = {
    invalid_choice: '"{input}" is not a valid choice.',
    not_a_list: 'Expected a list of items but got type "{input_type}".',
    empty: 'This selection may not be empty.',
  };
  private readonly inner: ChoiceField<C>;
  readonly allowEmpty: boolean;
  constructor(choices: Choices<C>, options: MultipleChoiceOptions<C> = {}) {
    super(options);
    this.inner = new ChoiceField(choices, { errorMessages: options.errorMessages });
    this.allowEmpty = options.allowEmpty ?? true;
  }
  toInternal(value: unknown): C[] {
    if (typeof value === 'string' || !Array.isArray(value)) this.fail('not_a_list', { input_type: pythonType(value) });
    if (value.length === 0 && !this.allowEmpty) this.fail('empty');
    const out: C[] = [];
    for (const item of value) {
      const c = this.inner.toInternal(item);
      if (!out.includes(c)) out.push(c);
    }
    return out;
  }
  toRepresentation(value: unknown): C[] {
    return [...(value as Iterable<unknown>)].map((v) => this.inner.toRepresentation(v));
  }
  valueSchema(): JsonSchema {
    return { type: 'array', items: this.inner.valueSchema(), uniqueItems: true };
  }
  override choiceList(): { value: string | number; displayName: string }[] {
    return this.inner.choiceList();
  }
  override limits(): Record<string, unknown> {
    return this.inner.limits();
  }
}

// ------------------------------------------------------------------ containers

type AnyField = Field<unknown, unknown, FieldFlags>;

export interface ListOptions<T> extends FieldOptions<T[]> {
  allowEmpty?: boolean;
  minLength?: number;
  maxLength?: number;
}

/** DRF's `ListField(child=…)`: a list whose items the child validates; errors are keyed by index. */
export class ListField<I, O> extends Field<I[], O[]> {
  readonly kind = 'list';
  override readonly inputType = 'textarea';
  static override defaultMessages: Readonly<Record<string, string>> = {
    not_a_list: 'Expected a list of items but got type "{input_type}".',
    empty: 'This list may not be empty.',
    min_length: 'Ensure this field has at least {min_length} elements.',
    max_length: 'Ensure this field has no more than {max_length} elements.',
  };
  readonly allowEmpty: boolean;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  constructor(readonly child: Field<I, O, FieldFlags>, options: ListOptions<I> = {}) {
    super(options);
    this.allowEmpty = options.allowEmpty ?? true;
    this.minLength = options.minLength;
    this.maxLength = options.maxLength;
  }
  async toInternal(value: unknown, ctx: FieldContext): Promise<I[]> {
    if (typeof value === 'string' || !Array.isArray(value)) this.fail('not_a_list', { input_type: pythonType(value) });
    if (value.length === 0 && !this.allowEmpty) this.fail('empty');
    const sizeErrors: string[] = [];
    if (this.maxLength !== undefined && value.length > this.maxLength) sizeErrors.push(this.message('max_length', { max_length: this.maxLength }));
    if (this.minLength !== undefined && value.length < this.minLength) sizeErrors.push(this.message('min_length', { min_length: this.minLength }));
    if (sizeErrors.length > 0) throw new FieldError(sizeErrors);
    const out: I[] = [];
    const errors: Record<string, import('../exceptions.js').ErrorDetail> = {};
    for (let i = 0; i < value.length; i++) {
      try {
        out.push(await runChild(this.child, value[i], ctx));
      } catch (err) {
        if (!(err instanceof FieldError)) throw err;
        errors[String(i)] = err.detail;
      }
    }
    if (Object.keys(errors).length > 0) throw new FieldError(errors);
    return out;
  }
  toRepresentation(value: unknown, ctx: FieldContext): O[] {
    return [...(value as Iterable<unknown>)].map((v) => (v === null || v === undefined ? null : this.child.toRepresentation(v, ctx)) as O);
  }
  valueSchema(mode: SchemaMode): JsonSchema {
    const out: JsonSchema = { type: 'array', items: this.child.jsonSchema(mode) };
    setIf(out, 'minItems', this.minLength ?? (this.allowEmpty ? undefined : 1));
    setIf(out, 'maxItems', this.maxLength);
    return out;
  }
  override limits(): Record<string, unknown> {
    const out: Record<string, unknown> = { child: { type: this.child.kind, ...this.child.limits() } };
    setIf(out, 'min_length', this.minLength);
    setIf(out, 'max_length', this.maxLength);
    return out;
  }
}

/** A child value, null handled as DRF's `run_validation` does. */
export async function runChild<I>(child: Field<I, unknown, FieldFlags>, value: unknown, ctx: FieldContext): Promise<I> {
  if (value === null || value === undefined) {
    if (child.allowNull) return null as I;
    child.fail('null');
  }
  const raw = child.toInternal(value, ctx);
  const out = isThenable(raw) ? await raw : raw;
  // The child's own `validators`, as DRF's child `run_validation` runs them.
  if (child.validators.length > 0) await child.runValidators(out, ctx, null);
  return out;
}

export interface DictOptions<T> extends FieldOptions<Record<string, T>> {
  allowEmpty?: boolean;
}

/** DRF's `DictField(child=…)`: an object whose values the child validates; errors are keyed by key. */
export class DictField<I, O> extends Field<Record<string, I>, Record<string, O>> {
  readonly kind = 'nested object';
  override readonly inputType = 'textarea';
  static override defaultMessages: Readonly<Record<string, string>> = {
    not_a_dict: 'Expected a dictionary of items but got type "{input_type}".',
    empty: 'This dictionary may not be empty.',
  };
  readonly allowEmpty: boolean;
  constructor(readonly child: Field<I, O, FieldFlags>, options: DictOptions<I> = {}) {
    super(options);
    this.allowEmpty = options.allowEmpty ?? true;
  }
  async toInternal(value: unknown, ctx: FieldContext): Promise<Record<string, I>> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail('not_a_dict', { input_type: pythonType(value) });
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && !this.allowEmpty) this.fail('empty');
    const out: Record<string, I> = {};
    const errors: Record<string, import('../exceptions.js').ErrorDetail> = {};
    for (const [key, item] of entries) {
      try {
        Object.defineProperty(out, key, { value: await runChild(this.child, item, ctx), enumerable: true, writable: true, configurable: true });
      } catch (err) {
        if (!(err instanceof FieldError)) throw err;
        errors[key] = err.detail;
      }
    }
    if (Object.keys(errors).length > 0) throw new FieldError(errors);
    return out;
  }
  toRepresentation(value: unknown, ctx: FieldContext): Record<string, O> {
    const out: Record<string, O> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      Object.defineProperty(out, k, { value: v === null ? null : this.child.toRepresentation(v, ctx), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  valueSchema(mode: SchemaMode): JsonSchema {
    return { type: 'object', additionalProperties: this.child.jsonSchema(mode) };
  }
  override limits(): Record<string, unknown> {
    return { child: { type: this.child.kind, ...this.child.limits() } };
  }
}

export interface JSONOptions extends FieldOptions<unknown> {
  /**
   * The instance holds a JSON column's text (`jsonType(db)`: `jsonb` on
   * PostgreSQL, `text` on SQLite, both read as the JSON text): it is parsed
   * for output, and validated input is its `JSON.stringify` text, ready to
   * store on either database.
   */
  column?: boolean;
}

/**
 * DRF's `JSONField`: any JSON value, as sent; with `column: true`, the value
 * of a JSON column (text in the row and in the validated data, the document
 * on the wire).
 */
export class JSONField extends Field<unknown, unknown> {
  readonly kind = 'json';
  override readonly inputType = 'textarea';
  static override defaultMessages: Readonly<Record<string, string>> = { invalid: 'Value must be valid JSON.' };
  readonly column: boolean;
  constructor(options: JSONOptions = {}) {
    super(options);
    this.column = options.column ?? false;
  }
  toInternal(value: unknown): unknown {
    if (!this.column) return value;
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      this.fail('invalid');
    }
    if (text === undefined) this.fail('invalid');
    return text;
  }
  toRepresentation(value: unknown): unknown {
    if (!this.column || typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      // Not JSON text (a column written by other code): shown as it is rather than failing the page.
      return value;
    }
  }
  valueSchema(): JsonSchema {
    return {};
  }
}

/**
 * DRF's `SerializerMethodField`: a read-only value computed from the whole
 * instance (and the request, for links); `schema` describes it for OpenAPI.
 */
export class SerializerMethodField<T> extends Field<never, T> {
  readonly kind = 'field';
  constructor(
    readonly compute: (instance: never, ctx: FieldContext) => T,
    private readonly schema: JsonSchema = {},
    options: Omit<FieldOptions<never>, 'readOnly' | 'writeOnly' | 'default' | 'required' | 'source'> = {},
  ) {
    super({ ...options, readOnly: true, source: '*' });
  }
  toInternal(): never {
    throw new TypeError('A computed field is read-only.');
  }
  toRepresentation(value: unknown, ctx: FieldContext): T {
    return this.compute(value as never, ctx);
  }
  valueSchema(): JsonSchema {
    return { ...this.schema };
  }
}

// ------------------------------------------------------------------ factories

/** A string (`CharField`): trimmed, not blank unless `allowBlank`, `minLength`/`maxLength`. */
export function string<const O extends StringOptions = {}>(options?: O): FieldOf<O, string, string> {
  return new CharField(options) as unknown as FieldOf<O, string, string>;
}
/** An email address (`EmailField`). */
export function email<const O extends StringOptions = {}>(options?: O): FieldOf<O, string, string> {
  return new EmailField(options) as unknown as FieldOf<O, string, string>;
}
/** An http(s)/ftp(s) URL (`URLField`). */
export function url<const O extends StringOptions = {}>(options?: O): FieldOf<O, string, string> {
  return new URLField(options) as unknown as FieldOf<O, string, string>;
}
/** A slug (`SlugField`). */
export function slug<const O extends StringOptions = {}>(options?: O): FieldOf<O, string, string> {
  return new SlugField(options) as unknown as FieldOf<O, string, string>;
}
/** A UUID (`UUIDField`), kept as its hyphenated lower-case string. */
export function uuid<const O extends FieldOptions<string> = {}>(options?: O): FieldOf<O, string, string> {
  return new UUIDField(options) as unknown as FieldOf<O, string, string>;
}
/** An integer (`IntegerField`) with `minValue`/`maxValue`. */
export function integer<const O extends NumberOptions = {}>(options?: O): FieldOf<O, number, number> {
  return new IntegerField(options) as unknown as FieldOf<O, number, number>;
}
/** A number (`FloatField`) with `minValue`/`maxValue`. */
export function float<const O extends NumberOptions = {}>(options?: O): FieldOf<O, number, number> {
  return new FloatField(options) as unknown as FieldOf<O, number, number>;
}
/** A decimal (`DecimalField`), as a string with `decimalPlaces` places. */
export function decimal<const O extends DecimalOptions>(options: O): FieldOf<O, string, O extends { coerceToString: false } ? number : string> {
  return new DecimalField(options) as unknown as FieldOf<O, string, O extends { coerceToString: false } ? number : string>;
}
/** A boolean (`BooleanField`) with DRF's accepted spellings. */
export function boolean<const O extends FieldOptions<boolean> = {}>(options?: O): FieldOf<O, boolean, boolean> {
  return new BooleanField(options) as unknown as FieldOf<O, boolean, boolean>;
}
/** A date (`DateField`), `YYYY-MM-DD`. */
export function date<const O extends FieldOptions<string> = {}>(options?: O): FieldOf<O, string, string> {
  return new DateField(options) as unknown as FieldOf<O, string, string>;
}
/** A date and time (`DateTimeField`): a `Date` inside, ISO 8601 with `Z` outside. */
export function datetime<const O extends FieldOptions<Date> = {}>(options?: O): FieldOf<O, Date, string> {
  return new DateTimeField(options) as unknown as FieldOf<O, Date, string>;
}
/** A time of day (`TimeField`), `hh:mm:ss`. */
export function time<const O extends FieldOptions<string> = {}>(options?: O): FieldOf<O, string, string> {
  return new TimeField(options) as unknown as FieldOf<O, string, string>;
}
/** One of `choices` (`ChoiceField`). */
export function choice<const C extends ChoiceValue, const O extends ChoiceOptions<C> = {}>(choices: Choices<C>, options?: O): FieldOf<O, C, C> {
  return new ChoiceField(choices, options) as unknown as FieldOf<O, C, C>;
}
/** Several of `choices` (`MultipleChoiceField`). */
export function multipleChoice<const C extends ChoiceValue, const O extends MultipleChoiceOptions<C> = {}>(
  choices: Choices<C>,
  options?: O,
): FieldOf<O, C[], C[]> {
  return new MultipleChoiceField(choices, options) as unknown as FieldOf<O, C[], C[]>;
}
/** A list of `child` values (`ListField`). */
export function list<I, Out, const O extends ListOptions<I> = {}>(child: Field<I, Out, FieldFlags>, options?: O): FieldOf<O, I[], Out[]> {
  return new ListField(child, options) as unknown as FieldOf<O, I[], Out[]>;
}
/** An object of `child` values (`DictField`). */
export function dict<I, Out, const O extends DictOptions<I> = {}>(
  child: Field<I, Out, FieldFlags>,
  options?: O,
): FieldOf<O, Record<string, I>, Record<string, Out>> {
  return new DictField(child, options) as unknown as FieldOf<O, Record<string, I>, Record<string, Out>>;
}
/** Any JSON value (`JSONField`); `{ column: true }` for a JSON column's text. */
export function json<const O extends JSONOptions = {}>(options?: O): FieldOf<O, O extends { column: true } ? string : unknown, unknown> {
  return new JSONField(options) as unknown as FieldOf<O, O extends { column: true } ? string : unknown, unknown>;
}

/** A read-only value computed from the instance (`SerializerMethodField`); `schema` is its JSON Schema. */
export function computed<I, T>(
  compute: (instance: I, ctx: FieldContext) => T,
  schema: JsonSchema = {},
  options: Omit<FieldOptions<never>, 'readOnly' | 'writeOnly' | 'default' | 'required' | 'source'> = {},
): Field<never, T, { readOnly: true; writeOnly: false; optional: true }> {
  return new SerializerMethodField(compute as (instance: never, ctx: FieldContext) => T, schema, options) as unknown as Field<
    never,
    T,
    { readOnly: true; writeOnly: false; optional: true }
  >;
}

export type { AnyField };
