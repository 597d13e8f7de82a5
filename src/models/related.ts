/**
 * Relations seen from the other end (`relatedObjects`), and related rows
 * for a page of rows (`loadRelated`), without a query per row (Django's
 * `select_related` / `prefetch_related`, done the way `prefetch_related`
 * does both): one `WHERE pk IN (…)` query per to-one relation, one query
 * through the join table per many-to-many relation, whatever the number of
 * rows. The rows are left as the view's query returned them (its joins,
 * derived tables, pagination and cursor positions are not touched); the
 * related rows are attached under the field's name, as the row convention
 * of `ModelSaving` says: `row.author = {…}` or `null`, `row.tags = […]`
 * ordered by the target's primary key.
 */
import { sql, type Kysely } from 'kysely';
import { closestMatch } from '../checks/difflib.js';
import { ManyToManyField, RelationField, type ModelField, type OnDelete, type RelationTarget } from './fields.js';
import type { AnyModel } from './model.js';

/**
 * A relation pointing at a model from another (or the same) model: a
 * foreign key, a one-to-one or a many-to-many field, seen from its target
 * (Django's `ForeignObjectRel`, `_meta.related_objects`).
 */
export interface RelatedObject {
  /** The model that declares the field. */
  readonly model: AnyModel;
  /** The field's name on that model. */
  readonly field: string;
  readonly kind: 'foreignKey' | 'oneToOne' | 'manyToMany';
  /**
   * The reverse accessor's name: the field's `relatedName`, else Django's
   * default, `<modelName>_set` (`<modelName>` for a one-to-one).
   */
  readonly name: string;
  /** `relatedName` ends with `+`: the relation has no reverse accessor (its rows still follow `onDelete`). */
  readonly hidden: boolean;
  /**
   * What deleting a row of the target does: the foreign key's `onDelete`;
   * for a many-to-many field `'cascade'`, which deletes the join rows (not
   * the related rows).
   */
  readonly onDelete: OnDelete;
  /** Several related rows per target row (foreign key, many-to-many) or at most one (one-to-one). */
  readonly multiple: boolean;
  /**
   * The column pointing at the target's row: the foreign key's column on
   * `model`'s table (`author_id`), or the join table's column for a
   * many-to-many field (`tag_id` in `catalogue_book_tags`).
   */
  readonly column: string;
  /** For a many-to-many field: the join table and its column pointing at `model`'s row. */
  readonly through?: { readonly table: string; readonly column: string };
}

/**
 * The relations among `allModels` that point at `target`: its reverse
 * relations, in the order the models and their fields are declared. The
 * admin's delete confirmation and filters read them.
 *
 * @example
 * relatedObjects(Author, [Author, Book]);
 * // [{ model: Book, field: 'author', kind: 'foreignKey', name: 'books', onDelete: 'cascade', column: 'author_id', … }]
 */
export function relatedObjects(target: AnyModel, allModels: readonly AnyModel[]): RelatedObject[] {
  const out: RelatedObject[] = [];
  const seen = new Set<AnyModel>();
  for (const m of allModels.includes(target) ? allModels : [...allModels, target]) {
    if (seen.has(m)) continue;
    seen.add(m);
    for (const [name, f] of Object.entries(m.fields)) {
      if (!(f instanceof RelationField || f instanceof ManyToManyField)) continue;
      if (f.targetTable(m.tableName) !== target.tableName) continue;
      const related = f.relatedName;
      const accessor = related ?? (f.kind === 'oneToOne' ? m.modelName : `${m.modelName}_set`);
      const common = { model: m, field: name, name: accessor, hidden: related?.endsWith('+') === true };
      if (f instanceof ManyToManyField) {
        out.push({
          ...common,
          kind: 'manyToMany',
          onDelete: 'cascade',
          multiple: true,
          column: f.targetColumn(m.tableName),
          through: { table: f.throughTable(m.tableName), column: f.sourceColumn(m.tableName) },
        });
      } else {
        out.push({ ...common, kind: f.kind as 'foreignKey' | 'oneToOne', onDelete: f.onDelete, multiple: f.kind === 'foreignKey', column: f.columnName(name) });
      }
    }
  }
  return out;
}

/** What to load: to-one names (`author`, `author__publisher`) and many-to-many (or to-one) names. */
export interface RelatedToLoad {
  readonly selectRelated?: readonly string[];
  readonly prefetchRelated?: readonly string[];
}

/**
 * A many-to-many field as the loader reads it (`field.manyToMany(…)`): the
 * join table and its two columns, and the target model.
 */
export interface ManyToManyLike {
  readonly kind: 'manyToMany';
  readonly to: unknown;
  throughTable(selfTable: string): string;
  sourceColumn(selfTable: string): string;
  targetColumn(selfTable: string): string;
  targetModel(): RelationTarget | null;
}

interface ToOneLike {
  readonly kind: 'foreignKey' | 'oneToOne';
  readonly to: unknown;
  columnName(name: string): string;
  targetTable(self: string): string;
  targetModel(): RelationTarget | null;
}

/** Rows stay under this many keys per `IN (…)` list (PostgreSQL takes 65535 parameters, SQLite 32766). */
const IN_LIST_LIMIT = 10_000;
/** The join table's source column, selected beside the target's columns under this name and removed after. */
const SOURCE_ALIAS = '__trestle_source';

function isToOne(f: ModelField | undefined): f is ModelField & ToOneLike {
  return !!f && (f.kind === 'foreignKey' || f.kind === 'oneToOne');
}

/** The model a relation points at (`'self'`: `source`), or `null` when given by table name only. */
function toOneTarget(f: ToOneLike | ManyToManyLike, source: RelationTarget): RelationTarget | null {
  return f.to === 'self' ? source : f.targetModel();
}

function isManyToMany(f: unknown): f is ManyToManyLike {
  const m = f as Partial<ManyToManyLike> | undefined;
  return !!m && (m.kind as string) === 'manyToMany' && typeof m.throughTable === 'function' && typeof m.targetModel === 'function';
}

/** The names of a model's relations: to-one (foreign key, one-to-one) and many-to-many. */
export function relationNames(target: RelationTarget): { toOne: string[]; manyToMany: string[] } {
  const toOne: string[] = [];
  const manyToMany: string[] = [];
  for (const [name, f] of Object.entries(target.fields)) {
    if (isToOne(f)) toOne.push(name);
    else if (isManyToMany(f)) manyToMany.push(name);
  }
  return { toOne, manyToMany };
}

/** What is wrong with a `selectRelated` / `prefetchRelated` name, with a hint. */
export interface RelatedNameProblem {
  readonly msg: string;
  readonly hint: string;
}

function modelLabel(target: RelationTarget): string {
  const named = target as { objectName?: unknown };
  return typeof named.objectName === 'string' ? `model ${named.objectName} (table '${target.tableName}')` : `table '${target.tableName}'`;
}

/**
 * Why `name` cannot be loaded from `target` under `setting`, or `null`.
 * `selectRelated` takes to-one fields, `__` between levels
 * (`author__publisher`); `prefetchRelated` takes many-to-many and to-one
 * fields, one level.
 */
export function relatedNameProblem(target: RelationTarget, name: string, setting: 'selectRelated' | 'prefetchRelated'): RelatedNameProblem | null {
  const parts = setting === 'selectRelated' ? name.split('__') : [name];
  let current: RelationTarget = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const f = current.fields[part];
    const { toOne, manyToMany } = relationNames(current);
    const allowed = setting === 'selectRelated' ? toOne : [...manyToMany, ...toOne];
    const where = i === 0 ? '' : ` (in '${name}')`;
    if (isToOne(f)) {
      const next = toOneTarget(f, current);
      if (next === null) {
        return {
          msg: `'${setting}' names '${parts.slice(0, i + 1).join('__')}'${where}, whose target is given by table name ('${f.targetTable(current.tableName)}'), not by its model.`,
          hint: 'Declare the relation with the model (`field.foreignKey(() => Author, …)`) to load its rows.',
        };
      }
      current = next;
      continue;
    }
    if (isManyToMany(f) && setting === 'prefetchRelated') {
      if (toOneTarget(f, current) === null) {
        return {
          msg: `'${setting}' names '${name}', whose target is given by table name ('${String(f.to)}'), not by its model.`,
          hint: 'Declare the relation with the model (`field.manyToMany(() => Tag)`) to load its rows.',
        };
      }
      continue;
    }
    const what = isManyToMany(f) ? `a many-to-many field of ${modelLabel(current)}: many-to-many fields go under 'prefetchRelated'` : f ? `not a relation of ${modelLabel(current)}` : `not a field of ${modelLabel(current)}`;
    const close = closestMatch(part, allowed);
    return {
      msg: `'${setting}' names '${part}'${where}, which is ${what}.`,
      hint: isManyToMany(f)
        ? `Move '${name}' to 'prefetchRelated'.`
        : close !== null ? `Did you mean '${close}'?` : allowed.length > 0 ? `Its relations are: ${allowed.map((n) => `'${n}'`).join(', ')}.` : `${modelLabel(current)} has no relation to load here.`,
    };
  }
  return null;
}

type Row = Record<string, unknown>;

/** The key rows are matched on: text, so a `bigint` read as a string meets the same number. */
function key(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

function distinct(values: Iterable<unknown>): unknown[] {
  const seen = new Map<string, unknown>();
  for (const v of values) if (v !== null && v !== undefined && !seen.has(key(v))) seen.set(key(v), v);
  return [...seen.values()];
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += IN_LIST_LIMIT) out.push(items.slice(i, i + IN_LIST_LIMIT));
  return out;
}

/** The names grouped by their first level: `['author', 'author__publisher']` → `author: ['publisher']`. */
function byFirstLevel(names: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of names) {
    const cut = name.indexOf('__');
    const head = cut === -1 ? name : name.slice(0, cut);
    const rest = out.get(head) ?? [];
    if (cut !== -1) rest.push(name.slice(cut + 2));
    out.set(head, rest);
  }
  return out;
}

/**
 * Loads the relations of `rows` (rows of `target` as `selectAll()` reads
 * them) and attaches them under the field names; returns `rows`.
 *
 * - `selectRelated`: to-one fields, and `__` for the next level
 *   (`author__publisher`): one `WHERE <pk> IN (…)` query per relation and
 *   level; `row.author` is the related row, or `null` when the key is null.
 * - `prefetchRelated`: many-to-many fields, one query joining the join table
 *   and the target (`WHERE <source column> IN (…)`), `row.tags` the related
 *   rows ordered by the target's primary key (`[]` when none); a to-one
 *   field here loads as under `selectRelated`.
 *
 * A relation a row already carries (the related row under the field's
 * name, matching its key; an array for many-to-many) is not read again. A
 * name that is not such a relation of the model throws (the system check
 * `views.E002` reports it at start-up).
 *
 * @example
 * const page = await db.selectFrom('catalogue_book').selectAll().limit(20).execute();
 * await loadRelated(db, Book, page, { selectRelated: ['author'], prefetchRelated: ['tags'] });
 * page[0].author; // { id: 1, name: 'Ursula K. Le Guin' }
 */
export async function loadRelated<R extends object>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  target: RelationTarget,
  rows: R[],
  load: RelatedToLoad,
): Promise<R[]> {
  const selectNames = [...new Set(load.selectRelated ?? [])];
  const prefetchNames = [...new Set(load.prefetchRelated ?? [])];
  for (const [setting, names] of [['selectRelated', selectNames], ['prefetchRelated', prefetchNames]] as const) {
    for (const name of names) {
      const problem = relatedNameProblem(target, name, setting);
      if (problem) throw new Error(`${problem.msg} ${problem.hint}`);
    }
  }
  if (rows.length === 0) return rows;
  const list = rows as unknown as Row[];
  const toOne = byFirstLevel(selectNames);
  const many: string[] = [];
  for (const name of prefetchNames) {
    if (isManyToMany(target.fields[name])) many.push(name);
    else if (!toOne.has(name)) toOne.set(name, []);
  }
  for (const [name, deeper] of toOne) await loadToOne(db, target, list, name, deeper);
  for (const name of many) await loadManyToMany(db, target, list, name);
  return rows;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function loadToOne(db: Kysely<any>, source: RelationTarget, rows: Row[], name: string, deeper: readonly string[]): Promise<void> {
  const f = source.fields[name] as ModelField & ToOneLike;
  const target = toOneTarget(f, source) ?? source;
  const column = f.columnName(name);
  const found = new Map<string, Row>();
  const loaded = (r: Row): boolean => {
    const attached = r[name];
    const value = r[column];
    if (attached === null) return value === null || value === undefined;
    return typeof attached === 'object' && attached !== undefined && value !== null && value !== undefined && key((attached as Row)[target.primaryKey]) === key(value);
  };
  // Rows that already carry the relation (a model serializer's write loads what it renders) are not read again.
  const missing = rows.filter((r) => !loaded(r));
  for (const r of rows) if (r[name] !== null && loaded(r)) found.set(key(r[column]), r[name] as Row);
  const values = distinct(missing.map((r) => r[column]));
  for (const part of chunks(values)) {
    const related = (await db.selectFrom(target.tableName).selectAll().where(target.primaryKey, 'in', part).execute()) as Row[];
    for (const r of related) found.set(key(r[target.primaryKey]), r);
  }
  if (deeper.length > 0 && found.size > 0) await loadRelated(db, target, [...found.values()], { selectRelated: deeper });
  for (const row of missing) {
    const value = row[column];
    row[name] = value === null || value === undefined ? null : (found.get(key(value)) ?? null);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function loadManyToMany(db: Kysely<any>, source: RelationTarget, rows: Row[], name: string): Promise<void> {
  const f = source.fields[name] as unknown as ManyToManyLike;
  const target = toOneTarget(f, source) ?? source;
  const through = f.throughTable(source.tableName);
  const from = f.sourceColumn(source.tableName);
  const to = f.targetColumn(source.tableName);
  const missing = rows.filter((r) => !Array.isArray(r[name]));
  if (missing.length === 0) return;
  rows = missing;
  const values = distinct(rows.map((r) => r[source.primaryKey]));
  const bySource = new Map<string, Row[]>();
  for (const part of chunks(values)) {
    const related = (await db
      .selectFrom(target.tableName)
      .innerJoin(through, `${through}.${to}`, `${target.tableName}.${target.primaryKey}`)
      .selectAll(target.tableName)
      .select(sql.ref(`${through}.${from}`).as(SOURCE_ALIAS))
      .where(`${through}.${from}`, 'in', part)
      .orderBy(`${target.tableName}.${target.primaryKey}`)
      .execute()) as Row[];
    for (const r of related) {
      const k = key(r[SOURCE_ALIAS]);
      delete r[SOURCE_ALIAS];
      let list = bySource.get(k);
      if (!list) bySource.set(k, (list = []));
      list.push(r);
    }
  }
  for (const row of rows) row[name] = bySource.get(key(row[source.primaryKey])) ?? [];
}
