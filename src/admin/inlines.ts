import { sql, type Kysely } from 'kysely';
import type { ApiRequest } from '../request.js';
import { ValidationError } from '../exceptions.js';
import { constraintViolation } from '../db/constraint-errors.js';
import { modelSerializer, type ModelSerializer } from '../serializers/model.js';
import { RelationField, type ModelField } from '../models/fields.js';
import { html, type SafeHtml } from '../pages/html.js';
import type { InlineAdmin } from './model-admin.js';
import { columnKey, comparable, flatMessages, formData, formText, inputText, keysOf, type AdminForm, type FormErrors } from './model-form.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

/** What the user may do with an inline's rows. */
export interface InlinePermissions {
  readonly add: boolean;
  readonly change: boolean;
  readonly delete: boolean;
}

/** The writes a valid post of one inline makes, after the parent's. */
export interface InlineWrites {
  readonly inline: InlineAdmin;
  readonly creates: ReadonlyArray<{ index: number; data: Row }>;
  readonly updates: ReadonlyArray<{ index: number; row: Row; data: Row; changed: string[] }>;
  readonly deletes: readonly Row[];
}

/** The key of an inline row's error in the form's errors: `books-0-title`, `books-0-__all__`, `books-__all__`. */
export function inlineErrorKey(inline: InlineAdmin, index: number | null, field: string): string {
  return index === null ? `${inline.prefix}-${field}` : `${inline.prefix}-${index}-${field}`;
}

/** The parent's related rows, by primary key. */
export async function inlineRows(db: AnyDb, inline: InlineAdmin, parent: Row | null): Promise<Row[]> {
  if (parent === null) return [];
  const key = inline.fk.targetModel()?.primaryKey ?? inline.parent.primaryKey;
  const model = inline.model;
  return (await db
    .selectFrom(model.tableName)
    .selectAll()
    .where(sql.ref(inline.fk.columnName(inline.fkName)), '=', parent[key])
    .orderBy(sql.ref(model.primaryKey))
    .limit(inline.maxNum)
    .execute()) as Row[];
}

const serializers = new WeakMap<InlineAdmin, ModelSerializer>();
function serializerOf(inline: InlineAdmin): ModelSerializer {
  let s = serializers.get(inline);
  if (!s) {
    s = modelSerializer(inline.model, { fields: [...inline.fields] }) as unknown as ModelSerializer;
    serializers.set(inline, s);
  }
  return s;
}

/** The target's key field of a relation (to read key text), when the target is a model. */
function targetField(f: RelationField): ModelField | undefined {
  const target = f.targetModel() as { fields: Record<string, ModelField>; primaryKey: string } | null;
  return target ? target.fields[target.primaryKey] : undefined;
}

/** A field's text on a blank row (its default). */
function initialText(f: ModelField): string {
  const d = f.options.default;
  return typeof d === 'function' ? '' : inputText(f, d);
}

/** Whether a field of a blank row was changed from its initial value (Django's `has_changed`). */
function fieldChanged(f: ModelField, text: string | undefined): boolean {
  if (f.kind === 'boolean' && !f.null) return (text === 'on' || text === 'true') !== (initialText(f) === 'true');
  return (text ?? '') !== initialText(f);
}

/** A row's fields as a form of their own (`books-0-title` → `title`). */
function rowForm(inline: InlineAdmin, form: AdminForm, index: number): AdminForm {
  const out: AdminForm = {};
  for (const n of inline.fields) {
    const v = form[`${inline.prefix}-${index}-${n}`];
    if (v !== undefined) out[n] = v;
  }
  return out;
}

/** The management form's counts, or Django's error when it is missing or wrong. */
function management(inline: InlineAdmin, form: AdminForm): { total: number; initial: number } | { error: string } {
  const names = ['TOTAL_FORMS', 'INITIAL_FORMS'].map((n) => `${inline.prefix}-${n}`);
  const values = names.map((n) => formText(form, n));
  const missing = names.filter((_, i) => !/^\d{1,6}$/.test(values[i] ?? ''));
  if (missing.length) return { error: `ManagementForm data is missing or has been tampered with. Missing fields: ${missing.join(', ')}. You may need to file a bug report if the issue persists.` };
  const [total, initial] = values.map(Number) as [number, number];
  if (total > inline.maxNum) return { error: `Please submit at most ${inline.maxNum} form${inline.maxNum === 1 ? '' : 's'}.` };
  return { total, initial: Math.min(initial, total) };
}

/**
 * Reads and validates one inline's rows of a post (Django's inline formset):
 * existing rows (`<prefix>-<i>-id`) are deleted when `DELETE` is checked,
 * else validated by the inline model's serializer and updated when changed;
 * a blank row left as it was is skipped, others are validated to be
 * created. Errors are keyed as `inlineErrorKey` names them.
 */
export async function readInline(req: ApiRequest, inline: InlineAdmin, parent: Row | null, form: AdminForm, may: InlinePermissions): Promise<{ writes: InlineWrites; errors: FormErrors }> {
  const db = req.app.services.get('db') as AnyDb;
  const model = inline.model;
  const errors: FormErrors = {};
  const creates: Array<{ index: number; data: Row }> = [];
  const updates: Array<{ index: number; row: Row; data: Row; changed: string[] }> = [];
  const deletes: Row[] = [];
  const writes = { inline, creates, updates, deletes };
  const counts = management(inline, form);
  if ('error' in counts) {
    errors[inlineErrorKey(inline, null, '__all__')] = [counts.error];
    return { writes, errors };
  }
  const existing = new Map((await inlineRows(db, inline, parent)).map((r) => [String(r[model.primaryKey]), r]));
  const serializer = serializerOf(inline);
  const validRows: Array<{ index: number; data: Row }> = [];
  for (let i = 0; i < counts.total; i++) {
    const isInitial = i < counts.initial;
    const deleting = inline.canDelete && may.delete && ['on', 'true'].includes(formText(form, `${inline.prefix}-${i}-DELETE`) ?? '');
    let instance: Row | null = null;
    if (isInitial) {
      const key = columnKey(model.fields[model.primaryKey], formText(form, `${inline.prefix}-${i}-id`) ?? '');
      instance = key === undefined ? null : (existing.get(String(key)) ?? null);
      if (!instance) {
        errors[inlineErrorKey(inline, i, 'id')] = ['Select a valid choice. That choice is not one of the available choices.'];
        continue;
      }
      if (deleting) {
        deletes.push(instance);
        continue;
      }
      if (!may.change) continue;
    } else {
      if (deleting || !may.add) continue;
      if (!inline.fields.some((n) => fieldChanged(model.fields[n]!, formText(form, `${inline.prefix}-${i}-${n}`)))) continue;
    }
    const read = formData(model, inline.fields, rowForm(inline, form, i));
    let valid: Row;
    try {
      valid = (await serializer.validate(read.data, { request: req, instance: instance ?? undefined, partial: false, nonFieldErrorsKey: '__all__' })) as Row;
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const detail = err.detail as Record<string, unknown>;
      for (const [name, messages] of Object.entries(typeof detail === 'object' && !Array.isArray(detail) ? detail : { __all__: detail })) {
        const k = inlineErrorKey(inline, i, name);
        errors[k] = [...(errors[k] ?? []), ...flatMessages(messages)];
      }
      for (const [name, messages] of Object.entries(read.errors)) errors[inlineErrorKey(inline, i, name)] = [...(errors[inlineErrorKey(inline, i, name)] ?? []), ...messages];
      continue;
    }
    if (Object.keys(read.errors).length) {
      for (const [name, messages] of Object.entries(read.errors)) errors[inlineErrorKey(inline, i, name)] = messages;
      continue;
    }
    validRows.push({ index: i, data: valid });
    if (instance === null) {
      creates.push({ index: i, data: valid });
      continue;
    }
    const changed = inline.fields.filter((n) => {
      const f = model.fields[n]!;
      return n in valid && comparable(f, instance[f.columnName(n)]) !== comparable(f, f.isRelation ? keysOf(f, valid[n]) : valid[n]);
    });
    if (changed.length) updates.push({ index: i, row: instance, data: valid, changed: changed.map((n) => inline.label(n)) });
  }
  // Django's formset `validate_unique`: a unique field's value twice among the rows posted.
  for (const name of inline.fields) {
    const f = model.fields[name]!;
    if (!f.options.unique) continue;
    const seen = new Set<string>();
    for (const { index, data } of validRows) {
      const value = data[name];
      if (value === null || value === undefined) continue;
      const key = comparable(f, f.isRelation ? keysOf(f, value) : value) ?? '';
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      errors[inlineErrorKey(inline, null, '__all__')] = [...new Set([...(errors[inlineErrorKey(inline, null, '__all__')] ?? []), `Please correct the duplicate data for ${name}.`])];
      errors[inlineErrorKey(inline, index, '__all__')] = ['Please correct the duplicate values below.'];
    }
  }
  return { writes, errors };
}

/** A write of an inline row the database refused: the errors to show in its row. */
export class InlineRowRejected extends Error {
  constructor(readonly errors: FormErrors) {
    super('inline row rejected');
  }
}

/** One line of Django's change message about an inline row. */
export type InlineChange = { added: { name: string; object: string } } | { changed: { name: string; object: string; fields: string[] } } | { deleted: { name: string; object: string } };

/**
 * Writes an inline's rows on `db`, the parent's transaction, after the
 * parent `parent` (changes and deletes first, then new rows, as Django's
 * formset saves), and returns Django's change message lines for them.
 */
export async function writeInline(db: AnyDb, req: ApiRequest, writes: InlineWrites, parent: Row, name: (row: Row) => Promise<string>): Promise<InlineChange[]> {
  const { inline } = writes;
  const model = inline.model;
  const serializer = serializerOf(inline);
  const verbose = model.verboseName;
  const changes: InlineChange[] = [];
  const refused = (index: number | null, err: unknown): never => {
    const violation = constraintViolation(err);
    if (!violation) throw err;
    const message = violation.kind === 'unique' ? `${verbose.charAt(0).toUpperCase()}${verbose.slice(1)} with these values already exists.` : violation.kind === 'foreign_key' ? 'The related object does not exist.' : 'The database refused the row.';
    throw new InlineRowRejected({ [inlineErrorKey(inline, index, '__all__')]: [message] });
  };
  const added: InlineChange[] = [];
  const deleted: InlineChange[] = [];
  for (const u of writes.updates) {
    let row: Row;
    try {
      row = (await serializer.update(db, u.row, u.data, { request: req })) as Row;
    } catch (err) {
      return refused(u.index, err);
    }
    changes.push({ changed: { name: verbose, object: await name(row), fields: u.changed } });
  }
  for (const row of writes.deletes) {
    const label = await name(row);
    try {
      await db.deleteFrom(model.tableName).where(sql.ref(model.primaryKey), '=', row[model.primaryKey]).execute();
    } catch (err) {
      return refused(null, err);
    }
    deleted.push({ deleted: { name: verbose, object: label } });
  }
  for (const c of writes.creates) {
    let row: Row;
    try {
      row = (await serializer.create(db, { ...c.data, [inline.fkName]: parent }, { request: req })) as Row;
    } catch (err) {
      return refused(c.index, err);
    }
    added.push({ added: { name: verbose, object: await name(row) } });
  }
  // Django's order: added, changed, deleted.
  return [...added, ...changes, ...deleted];
}

/** What the table of one inline shows. */
export interface InlineTable {
  readonly inline: InlineAdmin;
  readonly rows: readonly Row[];
  readonly posted: AdminForm | null;
  readonly errors: FormErrors;
  readonly may: InlinePermissions;
  /** The options of a foreign key column: `[key, name]`. */
  readonly choices: (f: RelationField, keys?: readonly unknown[]) => Promise<Array<readonly [string, string]>>;
  /** The `autocomplete/` URL of a column of the inline's `autocompleteFields`. */
  readonly autocompleteUrl: (field: string) => string;
  /** A row's name (Django's `original`). */
  readonly name: (row: Row) => string;
}

/** A value as a read-only cell shows it: Yes/No, a choice's label, a related row's name, `-` for none. */
function shownText(f: ModelField, text: string, related: ReadonlyArray<readonly [string, string]> | undefined): string {
  if (text === '') return '-';
  if (f.kind === 'boolean') return text === 'true' ? 'Yes' : 'No';
  const label = (f.options.choices?.map(([v, l]) => [String(v), l] as const) ?? related ?? []).find(([v]) => v === text);
  return label ? label[1] : f.kind === 'datetime' ? text.replace('T', ' ') : text;
}

function errorList(errors: readonly string[] | undefined): SafeHtml | '' {
  return errors?.length ? html`<ul class="errorlist">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : '';
}

/**
 * One inline's table (Django's `tabular.html`): the management form, a
 * header per column, a row per related row (its name, hidden key and
 * foreign key, a widget per field, "Delete?"), then the blank rows.
 */
export async function inlineHtml(t: InlineTable): Promise<SafeHtml> {
  const { inline, posted, errors, may } = t;
  const model = inline.model;
  const p = inline.prefix;
  const byKey = new Map(t.rows.map((r) => [String(r[model.primaryKey]), r]));
  let initial: number;
  let total: number;
  if (posted) {
    const counts = management(inline, posted);
    initial = 'error' in counts ? 0 : counts.initial;
    total = 'error' in counts ? 0 : counts.total;
  } else {
    initial = t.rows.length;
    total = initial + (may.add ? Math.max(0, Math.min(inline.extra, inline.maxNum - initial)) : 0);
  }
  const originalOf = (i: number) => (i < initial ? (posted ? byKey.get(formText(posted, `${p}-${i}-id`) ?? '') : t.rows[i]) : undefined);
  const textOf = (i: number, f: ModelField, n: string) => {
    const original = originalOf(i);
    const name = `${p}-${i}-${n}`;
    return posted ? (formText(posted, name) ?? (f.kind === 'boolean' && !f.null ? 'false' : '')) : original ? inputText(f, original[f.columnName(n)]) : initialText(f);
  };
  const choices = new Map<string, Array<readonly [string, string]>>();
  for (const n of inline.fields) {
    const f = model.fields[n]!;
    if (!(f instanceof RelationField)) continue;
    const chosen = [...new Set(Array.from({ length: total }, (_, i) => textOf(i, f, n)).filter((x) => x !== ''))];
    const keysOf = (texts: readonly string[]) => texts.map((x) => columnKey(targetField(f), x)).filter((k) => k !== undefined);
    if (!inline.isAutocomplete(n)) {
      // The first thousand targets, and the rows' chosen ones past them (a save must not drop them).
      const list = await t.choices(f);
      const listed = new Set(list.map(([k]) => k));
      const missing = chosen.filter((x) => !listed.has(x));
      choices.set(n, missing.length ? [...list, ...(await t.choices(f, keysOf(missing)))] : list);
      continue;
    }
    // An autocomplete column lists the rows' own targets only; its search box finds the others.
    choices.set(n, await t.choices(f, keysOf(chosen)));
  }
  const deletable = inline.canDelete && may.delete;
  // Nothing to post: no management form, no hidden keys (a view-only page).
  const viewOnly = !may.add && !may.change && !deletable;
  const parentKey = (row: Row | undefined) => (row ? String(row[inline.fk.columnName(inline.fkName)] ?? '') : '');
  const rows: SafeHtml[] = [];
  for (let i = 0; i < total; i++) {
    const original = originalOf(i);
    const id = (n: string) => `id_${p}-${i}-${n}`;
    const cells = inline.fields.map((n) => {
      const f = model.fields[n]!;
      const name = `${p}-${i}-${n}`;
      const errs = errors[inlineErrorKey(inline, i, n)];
      const text = textOf(i, f, n);
      const auto = inline.isAutocomplete(n);
      const attrs = html` name="${name}" id="${id(n)}" aria-label="${inline.label(n)}"${errs?.length ? html` aria-invalid="true"` : ''}${auto ? html` class="admin-autocomplete" data-autocomplete-url="${t.autocompleteUrl(n)}"` : ''}`;
      let widget: SafeHtml;
      const readonly = original !== undefined && !may.change;
      if (readonly) {
        widget = html`<p>${shownText(f, text, choices.get(n))}</p>`;
      } else if (f.kind === 'boolean' && !f.null) {
        widget = html`<input type="checkbox"${attrs}${text === 'on' || text === 'true' ? html` checked` : ''}>`;
      } else {
        const options: Array<readonly [string, string]> | null =
          f.kind === 'boolean' ? [['true', 'Yes'], ['false', 'No']] : f.options.choices?.length ? f.options.choices.map(([v, l]) => [String(v), l] as const) : (choices.get(n) ?? null);
        if (options) {
          const search = auto
            ? html`<input type="search" class="admin-autocomplete-search" id="${id(n)}_search" data-for="${id(n)}" aria-controls="${id(n)}" aria-label="Search ${((f as RelationField).targetModel() as { verboseNamePlural?: string } | null)?.verboseNamePlural ?? n}" placeholder="Search…" autocomplete="off">`
            : '';
          widget = html`<select${attrs}><option value=""${text === '' ? html` selected` : ''}>---------</option>${options.map(([v, l]) => html`<option value="${v}"${v === text ? html` selected` : ''}>${l}</option>`)}</select>${search}`;
        } else if (f.kind === 'text' || f.kind === 'json') {
          widget = html`<textarea${attrs} rows="2">${text}</textarea>`;
        } else {
          const type: Record<string, string> = { integer: 'number', bigInteger: 'number', float: 'number', decimal: 'number', date: 'date', datetime: 'datetime-local', time: 'time', email: 'email', url: 'url' };
          const max = f.options['maxLength'];
          widget = html`<input type="${type[f.kind] ?? 'text'}"${attrs} value="${text}"${typeof max === 'number' ? html` maxlength="${max}"` : ''}${f.kind === 'float' || f.kind === 'decimal' ? html` step="any"` : ''}>`;
        }
      }
      return html`<td class="field-${n}">${errorList(errs)}${widget}</td>`;
    });
    const rowErrors = [...(errors[inlineErrorKey(inline, i, '__all__')] ?? []), ...(errors[inlineErrorKey(inline, i, 'id')] ?? [])];
    const checked = posted ? ['on', 'true'].includes(formText(posted, `${p}-${i}-DELETE`) ?? '') : false;
    const keyText = original ? String(original[model.primaryKey]) : posted && i < initial ? (formText(posted, `${p}-${i}-id`) ?? '') : '';
    if (rowErrors.length) rows.push(html`<tr class="row-form-errors"><td colspan="${String(inline.fields.length + 2)}">${html`<ul class="errorlist nonfield">${rowErrors.map((e) => html`<li>${e}</li>`)}</ul>`}</td></tr>\n`);
    const keys = viewOnly
      ? ''
      : html`${i < initial ? html`<input type="hidden" name="${p}-${String(i)}-id" value="${keyText}" id="${id('id')}">` : ''}<input type="hidden" name="${p}-${String(i)}-${inline.fkName}" value="${parentKey(original)}" id="${id(inline.fkName)}">`;
    rows.push(html`<tr class="form-row${original ? ' has_original' : ''}" id="${p}-${String(i)}"><td class="original">${original ? html`<p>${t.name(original)}</p>` : ''}${keys}</td>${cells}<td class="delete">${
      deletable && i < initial ? html`<input type="checkbox" name="${p}-${String(i)}-DELETE" id="${id('DELETE')}" aria-label="Delete"${checked ? html` checked` : ''}>` : ''
    }</td></tr>\n`);
  }
  const hidden = (n: string, v: number) => (viewOnly ? '' : html`<input type="hidden" name="${p}-${n}" value="${String(v)}" id="id_${p}-${n}">`);
  const plural = model.verboseNamePlural;
  return html`<div class="js-inline-admin-formset inline-group" id="${p}-group">
<div class="tabular inline-related">
${hidden('TOTAL_FORMS', total)}${hidden('INITIAL_FORMS', initial)}${hidden('MIN_NUM_FORMS', 0)}${hidden('MAX_NUM_FORMS', inline.maxNum)}
<fieldset class="module">
<legend><h2 class="inline-heading">${plural.charAt(0).toUpperCase()}${plural.slice(1)}</h2></legend>
${errorList(errors[inlineErrorKey(inline, null, '__all__')])}
<table>
<thead><tr><th class="original"></th>${inline.fields.map((n) => {
    const f = model.fields[n]!;
    const required = !f.null && f.options.blank !== true && f.options.default === undefined && !(f.kind === 'boolean');
    return html`<th class="column-${n}${required ? ' required' : ''}" scope="col">${inline.label(n)}</th>`;
  })}<th scope="col">${deletable ? 'Delete?' : ''}</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
</fieldset>
</div>
</div>
`;
}
