import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ApiRequest } from '../request.js';
import { constraintViolation } from '../db/constraint-errors.js';
import { ValidationError } from '../exceptions.js';
import { modelSerializer, type ModelSerializer } from '../serializers/model.js';
import { ManyToManyField, RelationField, type ModelField } from '../models/fields.js';
import type { AnyModel } from '../models/model.js';
import type { ModelAdmin } from './model-admin.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

/** Field errors of a form, by field name (`__all__` for the form as a whole). */
export type FormErrors = Record<string, string[]>;

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
export function comparable(f: ModelField, raw: unknown): string | null {
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

const INT32 = [-2147483648n, 2147483647n] as const;
const INT64 = [-9223372036854775808n, 9223372036854775807n] as const;

/**
 * A key's value from URL or query text for a column of `f`'s kind, or
 * `undefined` when no row can have it (not a number, outside the column's
 * range, not a UUID): the caller answers 404 or 400, never a database error.
 */
export function columnKey(f: ModelField | undefined, text: string): unknown {
  const kind = f?.kind ?? 'auto';
  const integer = (range: readonly [bigint, bigint]) => {
    if (!/^-?\d{1,19}$/.test(text)) return undefined;
    const n = BigInt(text);
    if (n < range[0] || n > range[1]) return undefined;
    return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
  };
  switch (kind) {
    case 'auto':
    case 'integer':
      return integer(INT32);
    case 'bigAuto':
    case 'bigInteger':
      return integer(INT64);
    case 'uuid':
      return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(text) ? text.toLowerCase() : undefined;
    default:
      return text;
  }
}

/** The model's primary key value from URL text (`undefined`: no row has it). */
export function keyValue(model: AnyModel, text: string): unknown {
  return columnKey(model.fields[model.primaryKey], text);
}

/** The value of a relation's target key from text (`undefined`: no row has it). */
export function targetKeyValue(f: RelationField | ManyToManyField, text: string): unknown {
  const target = f.targetModel();
  return columnKey(target ? target.fields[target.primaryKey] : undefined, text);
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

/** What `writeAdminForm` did, for the history. */
export interface AdminSaved {
  readonly row: Row;
  /** The labels of the fields a change changed (Django's change message). */
  readonly changed: readonly string[];
}

/** The outcome of a form post: the saved row, or the field errors to show with the form again. */
export type AdminSaveResult = { ok: true; saved: AdminSaved } | { ok: false; errors: FormErrors };

/** What the form's text of each field is as input to the model serializer, as DRF reads an HTML form. */
export function formData(model: AnyModel, fields: readonly string[], form: AdminForm): { data: Record<string, unknown>; errors: FormErrors } {
  const data: Record<string, unknown> = {};
  const errors: FormErrors = {};
  for (const name of fields) {
    const f = model.fields[name]!;
    const raw = form[name];
    if (f instanceof ManyToManyField) {
      data[name] = (typeof raw === 'string' ? [raw] : [...(raw ?? [])]).filter((v) => v !== '');
      continue;
    }
    const text = formText(form, name);
    if (f.kind === 'boolean') {
      // An unchecked checkbox sends nothing (DRF's BooleanField reads it as false); a nullable one is a select.
      data[name] = f.null ? (text === 'true' ? true : text === 'false' ? false : null) : text === 'on' || text === 'true';
      continue;
    }
    const value = text ?? '';
    const isText = ['char', 'text', 'email', 'url', 'slug'].includes(f.kind) && !f.options.choices?.length;
    // DRF's html input: an empty value is null for a field that may be null (and may not be blank).
    if (value === '' && f.null && !(isText && f.options.blank === true)) {
      data[name] = null;
      continue;
    }
    if (f.kind === 'json') {
      try {
        data[name] = JSON.parse(value);
      } catch {
        errors[name] = ['Value must be valid JSON.'];
      }
      continue;
    }
    data[name] = value;
  }
  return { data, errors };
}

/** A relation's validated value (the related row, or rows) as its key(s), to compare with the stored value. */
export function keysOf(f: ModelField, value: unknown): unknown {
  const target = (f as RelationField | ManyToManyField).targetModel?.();
  const key = target?.primaryKey ?? 'id';
  const one = (v: unknown) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? (v as Row)[key] : v);
  return Array.isArray(value) ? value.map(one) : one(value);
}

/** The serializer of the admin's form: the model serializer of its writable fields, once per model admin. */
const formSerializers = new WeakMap<ModelAdmin, ModelSerializer>();
function formSerializer(admin: ModelAdmin): { serializer: ModelSerializer; fields: string[] } {
  const fields = admin.formFields().filter((n) => !admin.isReadonly(n));
  let serializer = formSerializers.get(admin);
  if (!serializer) {
    serializer = modelSerializer(admin.model, { fields }) as unknown as ModelSerializer;
    formSerializers.set(admin, serializer);
  }
  return { serializer, fields };
}

/** A form that passed validation: the serializer's data, and the labels of the fields a change changes. */
export interface AdminValidForm {
  readonly ok: true;
  readonly data: Record<string, unknown>;
  readonly changed: readonly string[];
}

/**
 * The admin's form → data → validate path (its save is `writeAdminForm`):
 * the posted text of each form field is read as DRF reads an HTML form and
 * validated by the model's serializer (`modelSerializer(model, { fields })`:
 * DRF's messages, foreign keys, unique checks). Runs before the write's
 * transaction (the serializer reads through the request's connection).
 */
export async function validateAdminForm(admin: ModelAdmin, instance: Row | null, form: AdminForm, req: ApiRequest): Promise<AdminValidForm | { ok: false; errors: FormErrors }> {
  const model = admin.model;
  const db = req.app.services.get('db') as AnyDb;
  const { serializer, fields } = formSerializer(admin);
  const { data, errors } = formData(model, fields, form);
  let valid: Record<string, unknown>;
  try {
    valid = (await serializer.validate(data, { request: req, instance: instance ?? undefined, partial: false, nonFieldErrorsKey: '__all__' })) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const detail = err.detail as Record<string, unknown>;
    for (const [name, messages] of Object.entries(typeof detail === 'object' && !Array.isArray(detail) ? detail : { __all__: detail })) {
      errors[name] = [...(errors[name] ?? []), ...flatMessages(messages)];
    }
    return { ok: false, errors };
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const changed: string[] = [];
  if (instance !== null) {
    for (const name of fields) {
      if (!(name in valid)) continue;
      const f = model.fields[name]!;
      if (f instanceof ManyToManyField) {
        const before = (await relatedKeys(db, model, f, instance)).sort();
        const after = (keysOf(f, valid[name]) as unknown[]).map(String).sort();
        if (before.join('\u0000') !== after.join('\u0000')) changed.push(admin.label(name));
      } else {
        const value = f.isRelation ? keysOf(f, valid[name]) : valid[name];
        if (comparable(f, instance[f.columnName(name)]) !== comparable(f, value)) changed.push(admin.label(name));
      }
    }
  }
  return { ok: true, data: valid, changed };
}

/**
 * Writes a validated form with the model serializer's `create` (or
 * `update` of `instance`) on `db`, the caller's transaction, which also
 * writes the history. A constraint the database still refuses (a race with
 * another write) becomes a field error.
 */
export async function writeAdminForm(db: AnyDb, admin: ModelAdmin, instance: Row | null, form: AdminValidForm, req: ApiRequest): Promise<AdminSaveResult> {
  const model = admin.model;
  const { serializer } = formSerializer(admin);
  try {
    const row = (instance === null ? await serializer.create(db, form.data, { request: req }) : await serializer.update(db, instance, form.data, { request: req })) as Row;
    return { ok: true, saved: { row, changed: form.changed } };
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

export function flatMessages(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(flatMessages);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => flatMessages(v).map((m) => `${k}: ${m}`));
  return [String(value)];
}
