import { ManyToManyField, ModelField, RelationField } from './fields.js';
import type { AnyModel, ConstraintDeclaration, IndexDeclaration, ModelMeta } from './model.js';
import {
  addConstraint,
  addField,
  addIndex,
  alterField,
  createModel,
  deleteModel,
  removeConstraint,
  removeField,
  removeIndex,
  renameField,
  type Operation,
} from './operations.js';
import { columnOf, indexName, type ModelState, type ProjectState } from './state.js';

/** How `detectChanges` treats what it cannot decide alone. */
export interface DetectOptions {
  /**
   * Fields renamed, as `{ 'table.old': 'new' }` (`--rename table.old=new`).
   * A removed and an added field of one table are never guessed to be a rename.
   */
  renames?: Readonly<Record<string, string>>;
  /**
   * Removed/added pairs answered "not a rename", as `'table.old=new'`: the
   * old field is removed and the new one added.
   */
  notRenamed?: readonly string[];
  /**
   * One-off defaults for non-null fields added to existing tables, as
   * `{ 'table.field': value }` (Django's "Provide a one-off default now"):
   * existing rows get the value, the field itself keeps no default (an
   * `addField` with it, then an `alterField` without it).
   */
  oneOffDefaults?: Readonly<Record<string, unknown>>;
}

/** The autodetector cannot decide alone: a person must answer (the CLI asks or refuses with `message`). */
export class ChangeQuestion extends Error {
  override name = 'ChangeQuestion';
  constructor(
    readonly kind: 'rename' | 'default',
    readonly table: string,
    readonly field: string,
    message: string,
    /** For a possible rename: the removed field it may have been. */
    readonly candidates: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A model as a state (relations name their target table). */
export function modelState(m: AnyModel): ModelState {
  return { table: m.tableName, fields: m.fields, meta: m.meta };
}

/**
 * The operations that take `from` (the migrations' state) to `models`
 * (Django's `MigrationAutodetector.changes`): models created and deleted,
 * fields added, removed, altered and renamed, indexes and constraints.
 * Throws `ChangeQuestion` when a removed and an added field of one table
 * could be a rename not given in `options.renames`, or when a non-null
 * field without a default is added to an existing table.
 */
export function detectChanges(from: ProjectState, models: readonly AnyModel[], options: DetectOptions = {}): Operation[] {
  const to = new Map(models.map((m) => [m.tableName, modelState(m)]));
  const created: Operation[] = [];
  const fieldOps: Operation[] = [];
  const metaOps: Operation[] = [];
  const deleted: Operation[] = [];

  // As Django's autodetector: a many-to-many field is created with its model when its target exists by
  // then (already migrated, created earlier, or itself); otherwise it is added once every model exists.
  const later: Operation[] = [];
  const exists = new Set(Object.keys(from));
  for (const model of orderByDependencies([...to.values()].filter((m) => !from[m.table]))) {
    const fields: Record<string, ModelField> = {};
    const deferred: Array<[string, ModelField]> = [];
    for (const [name, f] of Object.entries(model.fields)) {
      const target = f instanceof ManyToManyField ? f.targetTable(model.table) : null;
      if (target !== null && target !== model.table && !exists.has(target)) deferred.push([name, f]);
      else fields[name] = f;
    }
    created.push(createModel(model.table, fields, plainMeta(model.meta)));
    for (const [name, f] of deferred) later.push(addField(model.table, name, f));
    exists.add(model.table);
  }
  created.push(...later);
  for (const [table, before] of Object.entries(from)) {
    const after = to.get(table);
    if (!after) {
      deleted.push(deleteModel(table));
      continue;
    }
    const removed = Object.keys(before.fields).filter((n) => !(n in after.fields));
    const added = Object.keys(after.fields).filter((n) => !(n in before.fields));
    const renamedFrom = new Map<string, string>();
    for (const old of removed) {
      const to = options.renames?.[`${table}.${old}`];
      if (to !== undefined) {
        if (!added.includes(to)) throw new Error(`--rename ${table}.${old}=${to}: ${table} has no new field "${to}".`);
        renamedFrom.set(to, old);
      }
    }
    for (const name of added) {
      if (renamedFrom.has(name)) continue;
      const candidates = removed.filter(
        (old) =>
          ![...renamedFrom.values()].includes(old) &&
          after.fields[name]!.kind === before.fields[old]!.kind &&
          sameJoin(before.fields[old]!, after.fields[name]!) &&
          !options.notRenamed?.includes(`${table}.${old}=${name}`),
      );
      if (candidates.length > 0) {
        throw new ChangeQuestion(
          'rename',
          table,
          name,
          `Was ${table}.${candidates[0]} renamed to ${table}.${name}? Answer with --rename ${table}.${candidates[0]}=${name}, or keep both fields in one run of makemigrations and remove the old one in the next.`,
          candidates,
        );
      }
    }
    for (const [name, old] of renamedFrom) {
      fieldOps.push(renameField(table, old, name));
      if (!sameField(before.fields[old]!, after.fields[name]!)) fieldOps.push(alterField(table, name, after.fields[name]!));
    }
    for (const name of added) {
      if (renamedFrom.has(name)) continue;
      const f = after.fields[name]!;
      if (f.hasColumn && !f.null && f.options.default === undefined && !autoNow(f) && !f.primaryKey) {
        const key = `${table}.${name}`;
        if (options.oneOffDefaults && Object.hasOwn(options.oneOffDefaults, key)) {
          fieldOps.push(addField(table, name, withOptions(f, { default: options.oneOffDefaults[key] })), alterField(table, name, f));
          continue;
        }
        throw new ChangeQuestion(
          'default',
          table,
          name,
          `${table}.${name} is added without null: true and without a default, so existing rows have no value: give the field a default (or null: true) and run makemigrations again.`,
        );
      }
      fieldOps.push(addField(table, name, f));
    }
    for (const name of removed) if (![...renamedFrom.values()].includes(name)) fieldOps.push(removeField(table, name));
    for (const name of Object.keys(after.fields)) {
      if (name in before.fields && !sameField(before.fields[name]!, after.fields[name]!)) fieldOps.push(alterField(table, name, after.fields[name]!));
    }
    metaOps.push(...metaChanges(before, after));
  }
  return [...created, ...fieldOps, ...metaOps, ...deleted];
}

/** The same field with some options changed. */
function withOptions(f: ModelField, extra: Record<string, unknown>): ModelField {
  const options = { ...f.options, ...extra };
  return f instanceof RelationField ? new RelationField(f.kind as 'foreignKey' | 'oneToOne', f.to, options as never) : new ModelField(f.kind, options);
}

function autoNow(f: ModelField): boolean {
  return f.options['autoNow'] === true || f.options['autoNowAdd'] === true;
}

function plainMeta(meta: ModelMeta): ModelMeta {
  const out: ModelMeta = {};
  // The model name names the join tables' columns: the state keeps it when it is not the default.
  if (meta.modelName) out.modelName = meta.modelName;
  if (meta.ordering?.length) out.ordering = meta.ordering;
  if (meta.indexes?.length) out.indexes = meta.indexes;
  if (meta.uniqueTogether?.length) out.uniqueTogether = meta.uniqueTogether;
  if (meta.constraints?.length) out.constraints = meta.constraints;
  return out;
}

function named(model: ModelState, i: IndexDeclaration): string {
  return i.name ?? indexName(model.table, i.fields.map((n) => columnOf(model, n)), i.unique);
}

function metaChanges(before: ModelState, after: ModelState): Operation[] {
  const ops: Operation[] = [];
  const key = (m: ModelState, i: IndexDeclaration) => `${named(m, i)}|${i.fields.join(',')}|${i.unique === true}`;
  const oldIndexes = new Map((before.meta.indexes ?? []).map((i) => [key(before, i), i]));
  const newIndexes = new Map((after.meta.indexes ?? []).map((i) => [key(after, i), i]));
  for (const [k, i] of oldIndexes) if (!newIndexes.has(k)) ops.push(removeIndex(after.table, named(before, i)));
  for (const [k, i] of newIndexes) if (!oldIndexes.has(k)) ops.push(addIndex(after.table, { ...i, name: named(after, i) }));
  const ckey = (c: ConstraintDeclaration) => JSON.stringify(c);
  const oldConstraints = new Map((before.meta.constraints ?? []).map((c) => [ckey(c), c]));
  const newConstraints = new Map((after.meta.constraints ?? []).map((c) => [ckey(c), c]));
  for (const [k, c] of oldConstraints) if (!newConstraints.has(k)) ops.push(removeConstraint(after.table, c.name));
  for (const [k, c] of newConstraints) if (!oldConstraints.has(k)) ops.push(addConstraint(after.table, c));
  if (JSON.stringify(before.meta.uniqueTogether ?? []) !== JSON.stringify(after.meta.uniqueTogether ?? [])) {
    throw new Error(`${after.table}: changing uniqueTogether is not detected yet; use meta.constraints (uniqueConstraint) for a new set.`);
  }
  return ops;
}

/** Many-to-many fields may be a rename of each other only when they join the same tables (Django compares the declarations). */
function sameJoin(a: ModelField, b: ModelField): boolean {
  if (!(a instanceof ManyToManyField && b instanceof ManyToManyField)) return true;
  return a.targetTable('') === b.targetTable('') && a.autoCreated === b.autoCreated && (a.autoCreated || a.throughTable('') === b.throughTable(''));
}

/** Two declarations of one field are the same when kind, options and relation target agree. */
export function sameField(a: ModelField, b: ModelField): boolean {
  if (a.kind !== b.kind) return false;
  if (a instanceof RelationField && b instanceof RelationField && a.targetTable('') !== b.targetTable('')) return false;
  if (a instanceof ManyToManyField && b instanceof ManyToManyField) {
    if (a.targetTable('') !== b.targetTable('') || a.autoCreated !== b.autoCreated) return false;
    if (!a.autoCreated && a.throughTable('') !== b.throughTable('')) return false;
  }
  const keys = new Set([...Object.keys(a.options), ...Object.keys(b.options)]);
  for (const k of keys) {
    // The through model is compared by table above (a model, or its name in a migration file).
    if (k === 'through' && a instanceof ManyToManyField) continue;
    const x = a.options[k];
    const y = b.options[k];
    // A callable default cannot be compared: any function equals any function, as a migration file cannot hold one.
    if (typeof x === 'function' && typeof y === 'function') continue;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

function orderByDependencies(models: ModelState[]): ModelState[] {
  const pending = new Map(models.map((m) => [m.table, m]));
  const out: ModelState[] = [];
  while (pending.size > 0) {
    const ready = [...pending.values()].find((m) =>
      Object.values(m.fields).every(
        (f) => !(f instanceof RelationField || f instanceof ManyToManyField) || !pending.has(f.targetTable(m.table)) || f.targetTable(m.table) === m.table,
      ),
    );
    const next = ready ?? pending.values().next().value!;
    out.push(next);
    pending.delete(next.table);
  }
  return out;
}
