import type { Kysely } from 'kysely';
import type { ModelField } from './fields.js';
import { ModelField as FieldClass } from './fields.js';
import type { ConstraintDeclaration, IndexDeclaration, ModelMeta } from './model.js';
import { SchemaEditor } from './schema-editor.js';
import { columnOf, fieldOf, indexName, modelOf, withModel, type ModelState, type ProjectState } from './state.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * One step of a migration, as data (Django's `Operation`): it changes the
 * in-memory state (`stateForwards`) and writes the same change to a
 * database (`up`), or takes it back (`down`).
 */
export interface Operation {
  readonly type: string;
  /** The arguments the operation was made with, in order (a migration writer prints them back). */
  readonly args: readonly unknown[];
  /** One line for `trestle migrate` and `sqlmigrate`: `Create model catalogue_book`. */
  describe(): string;
  /** The state after this operation. */
  stateForwards(state: ProjectState): ProjectState;
  /** Applies the change; `before` is the state before it, `after` the state after. */
  up(db: AnyDb, before: ProjectState, after: ProjectState): Promise<void>;
  /** Takes the change back: the database goes from `after` to `before`. */
  down(db: AnyDb, before: ProjectState, after: ProjectState): Promise<void>;
}

function withField(model: ModelState, name: string, f: ModelField | null, rename?: string): ModelState {
  const fields: Record<string, ModelField> = {};
  for (const [n, existing] of Object.entries(model.fields)) {
    if (n === name) {
      if (f) fields[rename ?? n] = f;
    } else fields[n] = existing;
  }
  if (f && !(name in model.fields)) fields[name] = f;
  return { ...model, fields: Object.freeze(fields) };
}

function withMeta(model: ModelState, meta: ModelMeta): ModelState {
  return { ...model, meta: Object.freeze({ ...meta }) };
}

/** Creates a table with its fields (the primary key included), meta, indexes and constraints. */
export function createModel(table: string, fields: Record<string, ModelField>, meta: ModelMeta = {}): Operation {
  for (const [name, f] of Object.entries(fields)) {
    if (!(f instanceof FieldClass)) throw new Error(`createModel ${table}: field "${name}" is not a model field.`);
  }
  const state: ModelState = { table, fields: Object.freeze({ ...fields }), meta: Object.freeze({ ...meta }) };
  return {
    type: 'createModel',
    args: [table, state.fields, meta],
    describe: () => `Create model ${table}`,
    stateForwards: (s) => {
      if (s[table]) throw new Error(`createModel: model "${table}" already exists in the migration state.`);
      return withModel(s, table, state);
    },
    async up(db, _before, after) {
      const editor = new SchemaEditor(db, after);
      await editor.createTable(state);
      await editor.createIndexes(state);
      // Many-to-many join tables: after the table, whose key they reference.
      await editor.createJoinTables(state);
    },
    async down(db, _before, after) {
      const editor = new SchemaEditor(db, after);
      await editor.dropJoinTables(state);
      await editor.dropTable(table);
    },
  };
}

/** Drops a table; `down` creates it again from the state before. */
export function deleteModel(table: string): Operation {
  return {
    type: 'deleteModel',
    args: [table],
    describe: () => `Delete model ${table}`,
    stateForwards: (s) => (modelOf(s, table), withModel(s, table, null)),
    async up(db, before) {
      const editor = new SchemaEditor(db, before);
      await editor.dropJoinTables(modelOf(before, table));
      await editor.dropTable(table);
    },
    async down(db, before) {
      const editor = new SchemaEditor(db, before);
      await editor.createTable(modelOf(before, table));
      await editor.createIndexes(modelOf(before, table));
      await editor.createJoinTables(modelOf(before, table));
    },
  };
}

/** Adds a field (a column `<name>` or `<name>_id`) to a table. */
export function addField(table: string, name: string, f: ModelField): Operation {
  return {
    type: 'addField',
    args: [table, name, f],
    describe: () => `Add field ${name} to ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      if (name in model.fields) throw new Error(`addField: ${table} already has a field "${name}".`);
      return withModel(s, table, withField(model, name, f));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).addField(modelOf(before, table), modelOf(after, table), name);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).removeField(modelOf(after, table), modelOf(before, table), name);
    },
  };
}

/** Removes a field; `down` adds it back as it was (its rows get the default, or NULL). */
export function removeField(table: string, name: string): Operation {
  return {
    type: 'removeField',
    args: [table, name],
    describe: () => `Remove field ${name} from ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      fieldOf(model, name);
      return withModel(s, table, withField(model, name, null));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).removeField(modelOf(before, table), modelOf(after, table), name);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).addField(modelOf(after, table), modelOf(before, table), name);
    },
  };
}

/** Changes a field's declaration: type, `null`, `default`, `unique`, `dbIndex`. */
export function alterField(table: string, name: string, f: ModelField): Operation {
  return {
    type: 'alterField',
    args: [table, name, f],
    describe: () => `Alter field ${name} on ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      fieldOf(model, name);
      return withModel(s, table, withField(model, name, f));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).alterField(modelOf(before, table), modelOf(after, table), name);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).alterField(modelOf(after, table), modelOf(before, table), name);
    },
  };
}

/**
 * The meta's references to a renamed field, renamed (ordering, indexes,
 * unique sets). A check constraint is SQL text and is kept as written:
 * PostgreSQL follows the rename itself; on SQLite the rebuild re-creates it
 * as written, so a check over a renamed column is removed before the rename.
 */
function renameInMeta(model: ModelState, from: string, to: string): ModelMeta {
  const meta = model.meta;
  const swap = (name: string) => (name === from ? to : name);
  const out: ModelMeta = { ...meta };
  if (meta.ordering) out.ordering = meta.ordering.map((o) => (o.startsWith('-') ? `-${swap(o.slice(1))}` : swap(o)));
  // An index keeps the name it was created with.
  if (meta.indexes) out.indexes = meta.indexes.map((i) => ({ ...named(model.table, model, i), fields: i.fields.map(swap) }));
  if (meta.uniqueTogether) out.uniqueTogether = meta.uniqueTogether.map((u) => u.map(swap));
  if (meta.constraints) out.constraints = meta.constraints.map((c) => (c.kind === 'unique' ? { ...c, fields: c.fields.map(swap) } : c));
  return out;
}

/** Renames a field, keeping its rows. */
export function renameField(table: string, from: string, to: string): Operation {
  return {
    type: 'renameField',
    args: [table, from, to],
    describe: () => `Rename field ${from} on ${table} to ${to}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      if (to in model.fields) throw new Error(`renameField: ${table} already has a field "${to}".`);
      const renamed = withField(model, from, fieldOf(model, from), to);
      return withModel(s, table, withMeta(renamed, renameInMeta(model, from, to)));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).renameField(modelOf(before, table), modelOf(after, table), from, to);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).renameField(modelOf(after, table), modelOf(before, table), to, from);
    },
  };
}

function named(table: string, model: ModelState, index: IndexDeclaration): IndexDeclaration & { name: string } {
  return { ...index, name: index.name ?? indexName(table, index.fields.map((n) => columnOf(model, n)), index.unique) };
}

/** Adds an index from `meta.indexes`. */
export function addIndex(table: string, index: IndexDeclaration): Operation {
  return {
    type: 'addIndex',
    args: [table, index],
    describe: () => `Create index ${index.name ?? index.fields.join(', ')} on ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      return withModel(s, table, withMeta(model, { ...model.meta, indexes: [...(model.meta.indexes ?? []), index] }));
    },
    async up(db, _before, after) {
      const model = modelOf(after, table);
      await new SchemaEditor(db, after).createIndex(model, named(table, model, index));
    },
    async down(db, before, after) {
      const model = modelOf(after, table);
      await new SchemaEditor(db, before).dropIndex(model, named(table, model, index).name);
    },
  };
}

/** Removes an index of `meta.indexes` by name. */
export function removeIndex(table: string, name: string): Operation {
  const find = (model: ModelState) => {
    const found = (model.meta.indexes ?? []).find((i) => named(table, model, i).name === name);
    if (!found) throw new Error(`removeIndex: ${table} has no index "${name}" in the migration state.`);
    return found;
  };
  return {
    type: 'removeIndex',
    args: [table, name],
    describe: () => `Remove index ${name} from ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      const found = find(model);
      return withModel(s, table, withMeta(model, { ...model.meta, indexes: (model.meta.indexes ?? []).filter((i) => i !== found) }));
    },
    async up(db, before) {
      await new SchemaEditor(db, before).dropIndex(modelOf(before, table), name);
    },
    async down(db, before) {
      const model = modelOf(before, table);
      await new SchemaEditor(db, before).createIndex(model, named(table, model, find(model)));
    },
  };
}

/** Adds a check or unique constraint from `meta.constraints`. */
export function addConstraint(table: string, constraint: ConstraintDeclaration): Operation {
  return {
    type: 'addConstraint',
    args: [table, constraint],
    describe: () => `Create constraint ${constraint.name} on ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      return withModel(s, table, withMeta(model, { ...model.meta, constraints: [...(model.meta.constraints ?? []), constraint] }));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).addConstraint(modelOf(before, table), modelOf(after, table), constraint);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).removeConstraint(modelOf(after, table), modelOf(before, table), constraint.name);
    },
  };
}

/** Removes a constraint of `meta.constraints` by name. */
export function removeConstraint(table: string, name: string): Operation {
  const find = (model: ModelState) => {
    const found = (model.meta.constraints ?? []).find((c) => c.name === name);
    if (!found) throw new Error(`removeConstraint: ${table} has no constraint "${name}" in the migration state.`);
    return found;
  };
  return {
    type: 'removeConstraint',
    args: [table, name],
    describe: () => `Remove constraint ${name} from ${table}`,
    stateForwards: (s) => {
      const model = modelOf(s, table);
      const found = find(model);
      return withModel(s, table, withMeta(model, { ...model.meta, constraints: (model.meta.constraints ?? []).filter((c) => c !== found) }));
    },
    async up(db, before, after) {
      await new SchemaEditor(db, after).removeConstraint(modelOf(before, table), modelOf(after, table), name);
    },
    async down(db, before, after) {
      await new SchemaEditor(db, before).addConstraint(modelOf(after, table), modelOf(before, table), find(modelOf(before, table)));
    },
  };
}
