import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ApiRequest } from '../request.js';
import { dialectOf, type DialectName } from '../db/dialect.js';
import { constraintViolation } from '../db/constraint-errors.js';
import { ManyToManyField, RelationField, type ModelField } from '../models/fields.js';
import type { AnyModel } from '../models/model.js';
import type { ModelAdmin } from './model-admin.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

/** Field errors of a form, by field name (`__all__` for the form as a whole). */
export type FormErrors = Record<string, string[]>;

/** A value as the database stores it: booleans 0/1 on SQLite, timestamps as ISO-8601 text, JSON as its text. */
export function storedValue(f: ModelField, value: unknown, dialect: DialectName): unknown {
  if (value === null || value === undefined) return value;
  if (f.kind === 'boolean') return dialect === 'sqlite' ? (value ? 1 : 0) : Boolean(value);
  if (value instanceof Date) return f.kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  return value;
}

function asDate(raw: unknown): Date | null {
  if (raw instanceof Date) return raw;
  if (typeof raw === 'string' && raw) {
    const d = new Date(raw);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/** A stored value as the form's input shows it (`datetime-local` wants `YYYY-MM-DDThh:mm:ss`, UTC). */
export function inputText(f: ModelField, raw: unknown): string {
  if (raw === null || raw === undefined) return '';
  switch (f.kind) {
    case 'boolean':
      return raw === true || raw === 1 || raw === '1' || raw === 'true' ? 'true' : 'false';
    case 'datetime': {
      const d = asDate(raw);
      return d ? d.toISOString().slice(0, 19) : String(raw);
    }
    case 'date':
      return raw instanceof Date ? raw.toISOString().slice(0, 10) : String(raw).slice(0, 10);
    case 'json':
      return typeof raw === 'string' ? raw : JSON.stringify(raw);
    default:
      return String(raw);
  }
}

/** The value compared to find what a change changed (booleans and timestamps normalised). */
function comparable(f: ModelField, raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  if (f.kind === 'datetime') return asDate(raw)?.toISOString() ?? String(raw);
  if (f.kind === 'decimal' || f.kind === 'float' || f.kind === 'integer' || f.kind === 'bigInteger' || f.isRelation) {
    const n = Number(raw);
    return Number.isNaN(n) ? String(raw) : String(n);
  }
  if (f.kind === 'json') {
    try {
      return JSON.stringify(typeof raw === 'string' ? JSON.parse(raw) : raw);
    } catch {
      return String(raw);
    }
  }
  return inputText(f, raw);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SLUG = /^[-a-zA-Z0-9_]+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;

class FieldProblem extends Error {}

/**
 * One field's form text as the value to save, or a `FieldProblem` with the
 * message DRF's model serializer gives for the same input. `text` is
 * `undefined` when the form did not send the field (an unchecked checkbox).
 */
function cleanField(name: string, f: ModelField, text: string | undefined): unknown {
  const blank = f.options.blank === true;
  if (f.kind === 'boolean') {
    if (f.null) return text === 'true' ? true : text === 'false' ? false : null;
    return text === 'on' || text === 'true';
  }
  const value = text ?? '';
  const isText = ['char', 'text', 'email', 'url', 'slug'].includes(f.kind) && !(f.options.choices?.length);
  if (value === '') {
    if (isText) {
      if (blank) return '';
      if (f.null) return null;
      throw new FieldProblem('This field may not be blank.');
    }
    if (f.null) return null;
    if (f.options.choices?.length || f.isRelation) throw new FieldProblem('This field is required.');
  }
  const choices = f.options.choices;
  if (choices?.length) {
    const match = choices.find(([v]) => String(v) === value);
    if (!match) throw new FieldProblem(`"${value}" is not a valid choice.`);
    return match[0];
  }
  switch (f.kind) {
    case 'char':
    case 'text':
    case 'email':
    case 'url':
    case 'slug': {
      const max = f.options['maxLength'] as number | undefined;
      if (max !== undefined && [...value].length > max) throw new FieldProblem(`Ensure this field has no more than ${max} characters.`);
      if (f.kind === 'email' && !EMAIL.test(value)) throw new FieldProblem('Enter a valid email address.');
      if (f.kind === 'url' && !/^https?:\/\/[^\s/]+\.[^\s]*$|^https?:\/\/localhost/.test(value)) throw new FieldProblem('Enter a valid URL.');
      if (f.kind === 'slug' && !SLUG.test(value)) throw new FieldProblem('Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.');
      return value;
    }
    case 'integer':
    case 'bigInteger': {
      if (!/^-?\d+(\.0*)?$/.test(value.trim())) throw new FieldProblem('A valid integer is required.');
      const n = Number.parseInt(value, 10);
      if (f.kind === 'integer' && (n > 2147483647 || n < -2147483648)) throw new FieldProblem(`Ensure this value is less than or equal to ${n > 0 ? 2147483647 : -2147483648}.`);
      return f.kind === 'bigInteger' ? value.trim().replace(/\.0*$/, '') : n;
    }
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw new FieldProblem('A valid number is required.');
      return n;
    }
    case 'decimal': {
      const t = value.trim();
      if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) throw new FieldProblem('A valid number is required.');
      const [int = '', frac = ''] = t.replace(/^-/, '').split('.');
      const places = f.options['decimalPlaces'] as number;
      const digits = f.options['maxDigits'] as number;
      const intDigits = int.replace(/^0+/, '').length;
      const fracDigits = frac.replace(/0+$/, '').length;
      if (intDigits + fracDigits > digits) throw new FieldProblem(`Ensure that there are no more than ${digits} digits in total.`);
      if (fracDigits > places) throw new FieldProblem(`Ensure that there are no more than ${places} decimal places.`);
      if (intDigits > digits - places) throw new FieldProblem(`Ensure that there are no more than ${digits - places} digits before the decimal point.`);
      return t;
    }
    case 'date':
      if (!DATE.test(value) || Number.isNaN(new Date(`${value}T00:00:00Z`).getTime())) {
        throw new FieldProblem('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
      }
      return value;
    case 'datetime': {
      // A datetime-local input has no zone: the value is UTC, as the admin shows it.
      const d = DATETIME.test(value) ? new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`) : null;
      if (!d || Number.isNaN(d.getTime())) {
        throw new FieldProblem('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
      }
      return d.toISOString();
    }
    case 'time':
      if (!TIME.test(value)) throw new FieldProblem('Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].');
      return value;
    case 'uuid':
      if (!UUID.test(value)) throw new FieldProblem('Must be a valid UUID.');
      return value.toLowerCase();
    case 'json':
      try {
        JSON.parse(value);
      } catch {
        throw new FieldProblem('Value must be valid JSON.');
      }
      return value;
    case 'foreignKey':
    case 'oneToOne':
      return value;
    default:
      void name;
      return value;
  }
}

/** The model's primary key value from URL text (an integer key is a number). */
export function keyValue(model: AnyModel, text: string): unknown {
  const f = model.fields[model.primaryKey]!;
  if (['auto', 'bigAuto', 'integer', 'bigInteger'].includes(f.kind)) return /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
  return text;
}

/** A posted form: each field's first value, a `manyToMany` field's every value. */
export type AdminForm = Record<string, string | readonly string[]>;

/** The form's text of a field (its first value). */
export function formText(form: AdminForm, name: string): string | undefined {
  const v = form[name];
  return typeof v === 'string' ? v : v?.[0];
}

/** The target primary keys of a `manyToMany` field of `row`, in the target's key order, as text. */
export async function relatedKeys(db: AnyDb, model: AnyModel, f: ManyToManyField, row: Row): Promise<string[]> {
  const join = f.throughTable(model.tableName);
  const rows = await db
    .selectFrom(join)
    .select(sql.ref(f.targetColumn(model.tableName)).as('k'))
    .where(sql.ref(f.sourceColumn(model.tableName)), '=', row[model.primaryKey])
    .orderBy(sql.ref(f.targetColumn(model.tableName)))
    .execute();
  return rows.map((r: Record<string, unknown>) => String(r['k']));
}

/** What `saveAdminForm` did, for the history. */
export interface AdminSaved {
  readonly row: Row;
  /** The labels of the fields a change changed (Django's change message). */
  readonly changed: readonly string[];
}

/** The outcome of a form post: the saved row, or the field errors to show with the form again. */
export type AdminSaveResult = { ok: true; saved: AdminSaved } | { ok: false; errors: FormErrors };

/**
 * The admin's form → data → validate → save path, in one place: cleans the
 * posted text of each form field with the model serializer's messages,
 * checks foreign keys and unique fields, then inserts (or updates
 * `instance`) on `db` — the caller's transaction, which also writes the
 * history. A constraint the database still refuses becomes a field error.
 */
export async function saveAdminForm(
  db: AnyDb,
  admin: ModelAdmin,
  instance: Row | null,
  form: AdminForm,
  _req: ApiRequest,
): Promise<AdminSaveResult> {
  const model = admin.model;
  const dialect = dialectOf(db);
  const errors: FormErrors = {};
  const data: Record<string, unknown> = {};
  for (const name of admin.formFields()) {
    if (admin.isReadonly(name)) continue;
    const f = model.fields[name]!;
    if (f instanceof ManyToManyField) {
      const raw = form[name];
      const list = (typeof raw === 'string' ? [raw] : [...(raw ?? [])]).filter((v) => v !== '');
      if (list.length === 0 && f.options.blank !== true) errors[name] = ['This list may not be empty.'];
      else data[name] = [...new Set(list)];
      continue;
    }
    try {
      data[name] = cleanField(name, f, formText(form, name));
    } catch (err) {
      if (err instanceof FieldProblem) errors[name] = [err.message];
      else throw err;
    }
  }
  // Foreign keys: the target row must exist (DRF's PrimaryKeyRelatedField).
  for (const [name, value] of Object.entries(data)) {
    const f = model.fields[name]!;
    if (!(f instanceof RelationField) || value === null) continue;
    const target = f.targetModel();
    const table = f.targetTable(model.tableName);
    const key = target ? target.primaryKey : 'id';
    const targetField = target?.fields[key];
    const numeric = !targetField || ['auto', 'bigAuto', 'integer', 'bigInteger'].includes(targetField.kind);
    if (numeric && !/^-?\d+$/.test(String(value))) {
      errors[name] = ['Incorrect type. Expected pk value, received str.'];
      continue;
    }
    const pk = numeric ? Number(value) : value;
    const found = await db.selectFrom(table).select(sql.ref(key).as('k')).where(sql.ref(key), '=', pk).executeTakeFirst();
    if (!found) errors[name] = [`Invalid pk "${String(value)}" - object does not exist.`];
    else data[name] = pk;
  }
  // Many-to-many: every target row must exist.
  for (const [name, value] of Object.entries(data)) {
    const f = model.fields[name]!;
    if (!(f instanceof ManyToManyField)) continue;
    const target = f.targetModel();
    const key = target ? target.primaryKey : 'id';
    const targetField = target?.fields[key];
    const numeric = !targetField || ['auto', 'bigAuto', 'integer', 'bigInteger'].includes(targetField.kind);
    const list = value as string[];
    const wrong = numeric ? list.find((v) => !/^-?\d{1,15}$/.test(v)) : undefined;
    if (wrong !== undefined) {
      errors[name] = ['Incorrect type. Expected pk value, received str.'];
      continue;
    }
    const keys = numeric ? list.map(Number) : list;
    const found = keys.length
      ? new Set((await db.selectFrom(f.targetTable(model.tableName)).select(sql.ref(key).as('k')).where(sql.ref(key), 'in', keys).execute()).map((r: Record<string, unknown>) => String(r['k'])))
      : new Set<string>();
    const missing = keys.find((k) => !found.has(String(k)));
    if (missing !== undefined) errors[name] = [`Invalid pk "${String(missing)}" - object does not exist.`];
    else data[name] = keys;
  }
  // Unique fields (DRF's UniqueValidator), before the write.
  for (const [name, value] of Object.entries(data)) {
    const f = model.fields[name]!;
    if (f.options.unique !== true && f.kind !== 'oneToOne') continue;
    if (errors[name] || value === null) continue;
    let q = db.selectFrom(model.tableName).select(sql.ref(model.primaryKey).as('k')).where(sql.ref(f.columnName(name)), '=', storedValue(f, value, dialect));
    if (instance) q = q.where(sql.ref(model.primaryKey), '<>', instance[model.primaryKey]);
    if (await q.executeTakeFirst()) errors[name] = [`${model.verboseName} with this ${admin.verboseFieldName(name)} already exists.`];
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const values: Row = {};
  const lists: Array<[string, ManyToManyField, unknown[]]> = [];
  for (const [name, value] of Object.entries(data)) {
    const f = model.fields[name]!;
    if (f instanceof ManyToManyField) lists.push([name, f, value as unknown[]]);
    else values[f.columnName(name)] = storedValue(f, value, dialect);
  }
  const changed: string[] = [];
  try {
    let row: Row;
    if (instance === null) {
      const insert = model.insertValues(values as never) as Row;
      row = await db.insertInto(model.tableName).values(insert).returningAll().executeTakeFirstOrThrow();
    } else {
      for (const [name, value] of Object.entries(data)) {
        const f = model.fields[name]!;
        if (f instanceof ManyToManyField) {
          const before = await relatedKeys(db, model, f, instance);
          const after = (value as unknown[]).map(String).sort();
          if (before.slice().sort().join('\u0000') !== after.join('\u0000')) changed.push(admin.label(name));
        } else if (comparable(f, instance[f.columnName(name)]) !== comparable(f, value)) changed.push(admin.label(name));
      }
      const update = model.updateValues(values as never) as Row;
      row = Object.keys(update).length
        ? await db.updateTable(model.tableName).set(update).where(sql.ref(model.primaryKey), '=', instance[model.primaryKey]).returningAll().executeTakeFirstOrThrow()
        : instance;
    }
    // The pairs of each many-to-many field: the ones posted, no others.
    for (const [, f, keys] of lists) {
      const join = f.throughTable(model.tableName);
      const source = f.sourceColumn(model.tableName);
      const target = f.targetColumn(model.tableName);
      await db.deleteFrom(join).where(sql.ref(source), '=', row[model.primaryKey]).execute();
      if (keys.length) await db.insertInto(join).values(keys.map((k) => ({ [source]: row[model.primaryKey], [target]: k }))).execute();
    }
    return { ok: true, saved: { row, changed } };
  } catch (err) {
    const violation = constraintViolation(err);
    if (!violation) throw err;
    const columns = model.columns();
    const field = Object.keys(columns).find((n) => violation.columns.includes(columns[n]!));
    const message =
      violation.kind === 'unique'
        ? field
          ? `${model.verboseName} with this ${admin.verboseFieldName(field)} already exists.`
          : `${model.verboseName} with these values already exists.`
        : violation.kind === 'not_null'
          ? 'This field may not be null.'
          : violation.kind === 'foreign_key'
            ? 'The related object does not exist.'
            : `The values break the constraint ${violation.constraint ?? ''}.`.replace(' .', '.');
    return { ok: false, errors: { [field ?? '__all__']: [message] } };
  }
}
