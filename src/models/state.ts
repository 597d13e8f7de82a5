import { createHash } from 'node:crypto';
import { defaultModelName, field, type ModelField } from './fields.js';
import type { ModelMeta } from './model.js';

/** A table as the migrations have built it (Django's `ModelState`). */
export interface ModelState {
  readonly table: string;
  /** Field name → field, the primary key first; relation columns are `<name>_id`. */
  readonly fields: Readonly<Record<string, ModelField>>;
  readonly meta: Readonly<ModelMeta>;
}

/** Every table the migrations have built, by table name (Django's `ProjectState`). */
export type ProjectState = Readonly<Record<string, ModelState>>;

/** The state before any migration. */
export const EMPTY_STATE: ProjectState = Object.freeze({});

/**
 * The framework's tables a model may point at without their models being in
 * the project's migrations (as Django's `AUTH_USER_MODEL`): a foreign key to
 * `'trestle_user'` is an integer column referencing its `id`.
 */
export const FRAMEWORK_TABLES: ProjectState = Object.freeze({
  trestle_user: { table: 'trestle_user', fields: { id: field.auto() }, meta: { modelName: 'user' } },
});

/** The state of `table` (or of a framework table), or an error naming the migration history's gap. */
export function modelOf(state: ProjectState, table: string): ModelState {
  const found = state[table] ?? (Object.hasOwn(FRAMEWORK_TABLES, table) ? FRAMEWORK_TABLES[table] : undefined);
  if (!found) throw new Error(`No model "${table}" in the migration state (is its createModel in an earlier migration?).`);
  return found;
}

/** The field `name` of `table`. */
export function fieldOf(model: ModelState, name: string): ModelField {
  const found = model.fields[name];
  if (!found) throw new Error(`Model ${model.table} has no field "${name}" in the migration state.`);
  return found;
}

/** The model name of a state (`meta.modelName`, else Django's default from the table name). */
export function modelNameOf(model: ModelState): string {
  return model.meta.modelName || defaultModelName(model.table);
}

/** The primary key's field name. */
export function primaryKeyOf(model: ModelState): string {
  const key = Object.entries(model.fields).find(([, f]) => f.primaryKey);
  if (!key) throw new Error(`Model ${model.table} has no primary key.`);
  return key[0];
}

/** The column of a field name or of a column name (`author` or `author_id`). */
export function columnOf(model: ModelState, name: string): string {
  const f = model.fields[name];
  return f ? f.columnName(name) : name;
}

/**
 * An identifier within PostgreSQL's 63 bytes, as Django's `names_digest`
 * shortens them: the readable head, then a hash of the whole.
 */
export function shortName(name: string): string {
  if (name.length <= 63) return name;
  const digest = createHash('md5').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 54)}_${digest}`;
}

/** The default name of an index over `columns`. */
export function indexName(table: string, columns: readonly string[], unique = false): string {
  return shortName(`${table}_${columns.join('_')}_${unique ? 'uniq' : 'idx'}`);
}

/** Returns `state` with `table` replaced (or removed, when `model` is null). */
export function withModel(state: ProjectState, table: string, model: ModelState | null): ProjectState {
  const next: Record<string, ModelState> = { ...state };
  if (model) next[table] = model;
  else delete next[table];
  return Object.freeze(next);
}
