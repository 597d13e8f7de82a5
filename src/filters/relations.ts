import { AliasNode, IdentifierNode, sql, TableNode, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { ModelField, RelationTarget } from '../models/fields.js';
import type { APIView } from '../views/api-view.js';
import type { AnyQuery } from './base.js';

/**
 * Django-style field paths over a model declaration (`author__country__name`)
 * for the filter backends: each to-one relation followed becomes a subquery
 * on the related table, never a join, so the view's rows are neither
 * repeated nor reshaped and pagination, counts and derived tables see the
 * base table only.
 */

/** One relation followed by a path: the foreign key column (or join table) and the table it points at. */
export interface RelationHop {
  /** The relation's field name (`author`, `tags`). */
  readonly field: string;
  /**
   * The column on the table it is declared on that the related rows are
   * matched with: the foreign key (`author_id`), or, for a many-to-many,
   * that table's key (`id`).
   */
  readonly column: string;
  /** The related table (`catalogue_author`). */
  readonly table: string;
  /** The related table's key column (`id`). */
  readonly key: string;
  /** The related model. */
  readonly target: RelationTarget;
  /** A many-to-many's join table and its two columns (`book_id`, `tag_id`). */
  readonly through?: { readonly table: string; readonly source: string; readonly target: string };
}

/** A path resolved against a model: the relations it follows and the field it ends on. */
export interface ModelPath {
  /** As written: `author__name`. */
  readonly path: string;
  /** The relations followed, in order (empty for a field of the model itself). */
  readonly hops: readonly RelationHop[];
  /** The field the path ends on, on the last hop's model (or the view's model). */
  readonly field: ModelField;
  /** Its column there (`name`, `country_id`). */
  readonly column: string;
  /** The model declaring that field. */
  readonly model: RelationTarget;
}

/** A path naming something its model does not have; `model` and `segment` say where it stopped. */
export class PathError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly segment: string,
    readonly model: RelationTarget,
    /** The names that would have resolved at that point (for a "did you mean"). */
    readonly candidates: readonly string[],
  ) {
    super(message);
  }
}

/** The model a view declares (`model = Book`), or `null`. */
export function modelOf(view: APIView | object): RelationTarget | null {
  const m = (view as { model?: unknown }).model;
  if (m === null || typeof m !== 'object') return null;
  const t = m as Partial<RelationTarget>;
  return typeof t.tableName === 'string' && typeof t.primaryKey === 'string' && t.fields !== undefined ? (m as RelationTarget) : null;
}

/** A model's name for messages: Django's `model_name` when it has one, else its table. */
export function modelLabel(model: RelationTarget): string {
  const name = (model as { modelName?: unknown }).modelName;
  return typeof name === 'string' ? name : model.tableName;
}

/** The fields a path may name on a model: its fields (a relation also by its `_id` column). */
function fieldNames(model: RelationTarget, toMany: boolean): string[] {
  return Object.keys(model.fields).filter((n) => toMany || model.fields[n]!.kind !== 'manyToMany');
}

function lookupField(model: RelationTarget, name: string): [string, ModelField] | null {
  const direct = Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
  if (direct) return [name, direct];
  for (const [n, f] of Object.entries(model.fields)) {
    if (f.isRelation && f.columnName(n) === name) return [n, f];
  }
  return null;
}

/** The model a relation field points at (`'self'` is `model`); `null` when given by table name only. */
export function relationTarget(model: RelationTarget, f: ModelField): RelationTarget | null {
  const r = f as ModelField & { to?: unknown; targetModel?: () => RelationTarget | null };
  if (r.to === 'self') return model;
  return typeof r.targetModel === 'function' ? r.targetModel() : null;
}

/** Whether a field is a many-to-many relation. */
function isManyToMany(f: ModelField): f is ModelField & { throughTable(self?: string): string; sourceColumn(self?: string): string; targetColumn(self?: string): string } {
  return f.kind === 'manyToMany';
}

/**
 * `path` (`author__name`) resolved against `model`: every segment but the
 * last must be a relation (`foreignKey`, `oneToOne`, and `manyToMany` when
 * `toMany`); a relation field may also be named by its column
 * (`author_id`). A path ending on the related model's key (`author__id`)
 * reads the foreign key column itself, as Django does; a path ending on a
 * many-to-many (`tags`) reads the related rows' keys. Throws `PathError` for
 * a name that does not resolve.
 */
export function resolvePath(model: RelationTarget, path: string, toMany = true): ModelPath {
  const segments = path.split('__');
  const hops: RelationHop[] = [];
  let current = model;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const found = segment === '' ? null : lookupField(current, segment);
    if (!found) {
      throw new PathError(
        `${modelLabel(current)} has no field named '${segment}'.`,
        path,
        segment,
        current,
        fieldNames(current, toMany),
      );
    }
    const [name, f] = found;
    const last = i === segments.length - 1;
    if (isManyToMany(f)) {
      if (!toMany) {
        throw new PathError(`'${name}' of ${modelLabel(current)} is a many-to-many relation: a row has several values there.`, path, segment, current, []);
      }
      const target = relationTarget(current, f);
      if (!target) {
        throw new PathError(`'${name}' of ${modelLabel(current)} names its target by table name only; declare it with the model (or () => Model) to follow it.`, path, segment, current, []);
      }
      const ownKey = current.fields[current.primaryKey]!.columnName(current.primaryKey);
      const keyField = target.fields[target.primaryKey]!;
      const key = keyField.columnName(target.primaryKey);
      hops.push({
        field: name,
        column: ownKey,
        table: target.tableName,
        key,
        target,
        through: { table: f.throughTable(current.tableName), source: f.sourceColumn(current.tableName), target: f.targetColumn(current.tableName) },
      });
      // `tags` alone is the related rows' keys (django-filter's ModelMultipleChoiceFilter).
      if (last) return { path, hops, field: keyField, column: key, model: target };
      current = target;
      continue;
    }
    if (last) {
      // `author__id`: the foreign key column already holds it.
      const prev = hops[hops.length - 1];
      if (prev && !prev.through && name === current.primaryKey && !f.isRelation) {
        hops.pop();
        const from = hops.length === 0 ? model : hops[hops.length - 1]!.target;
        return { path, hops, field: f, column: prev.column, model: from };
      }
      return { path, hops, field: f, column: f.columnName(name), model: current };
    }
    if (!f.isRelation) {
      throw new PathError(`'${name}' of ${modelLabel(current)} is not a relation, so '${segments.slice(i + 1).join('__')}' cannot follow it.`, path, segments[i + 1]!, current, []);
    }
    const target = relationTarget(current, f);
    if (!target) {
      throw new PathError(`'${name}' of ${modelLabel(current)} names its target by table name only; declare it with the model (or () => Model) to follow it.`, path, segments[i + 1]!, current, []);
    }
    const keyField = target.fields[target.primaryKey]!;
    hops.push({ field: name, column: f.columnName(name), table: target.tableName, key: keyField.columnName(target.primaryKey), target });
    current = target;
  }
  /* c8 ignore next */
  throw new PathError(`Empty path.`, path, '', model, fieldNames(model, toMany));
}

/** `resolvePath`, or `null` when the path does not resolve. */
export function tryResolvePath(model: RelationTarget, path: string, toMany = true): ModelPath | null {
  try {
    return resolvePath(model, path, toMany);
  } catch (err) {
    if (err instanceof PathError) return null;
    throw err;
  }
}

/**
 * The name the builder's one FROM table (or derived table) goes by: its
 * alias, else the table's name; `null` when it has several or none. Outer
 * columns in a relation's subquery are qualified with it.
 */
export function baseName(qb: AnyQuery): string | null {
  const node = qb.toOperationNode();
  if (node.from?.froms.length !== 1) return null;
  const from = node.from.froms[0]!;
  if (AliasNode.is(from) && IdentifierNode.is(from.alias)) return from.alias.name;
  if (TableNode.is(from)) return from.table.identifier.name;
  return null;
}

const alias = (depth: number) => `trestle_rel${depth}`;

function outerRef(base: string | null, column: string): RawBuilder<unknown> {
  return sql.ref(base === null ? column : `${base}.${column}`);
}

/** The column a condition inside the innermost subquery reads (`trestle_rel1.name`); the field's own column when no hop. */
export function innerColumn(path: ModelPath, base: string | null): string {
  return path.hops.length === 0 ? (base === null ? path.column : `${base}.${path.column}`) : `${alias(path.hops.length)}.${path.column}`;
}

/**
 * A condition on the field a path ends on, for rows of the base table:
 * `author_id IN (SELECT r.id FROM author r WHERE <condition on r.name>)`,
 * nested once per relation. `condition` receives the column to test.
 * With `orNull`, a row whose foreign key is NULL also matches (a LEFT JOIN's
 * NULL: what `author__country__isnull=true` means in Django).
 */
export function pathCondition(
  path: ModelPath,
  base: string | null,
  condition: (column: string) => Expression<SqlBool>,
  orNull = false,
): Expression<SqlBool> {
  let cond: Expression<SqlBool> = condition(innerColumn(path, base));
  for (let i = path.hops.length; i >= 1; i--) {
    const hop = path.hops[i - 1]!;
    const source = i === 1 ? outerRef(base, hop.column) : sql.ref(`${alias(i - 1)}.${hop.column}`);
    const related = sql`select ${sql.ref(`${alias(i)}.${hop.key}`)} from ${sql.table(hop.table)} as ${sql.id(alias(i))} where ${cond}`;
    if (hop.through) {
      // Through the join table: rows with a related row that matches (once each, however many match).
      const j = sql.id(`${alias(i)}_through`);
      const ref = (c: string) => sql.ref(`${alias(i)}_through.${c}`);
      const sub = sql<SqlBool>`${source} in (select ${ref(hop.through.source)} from ${sql.table(hop.through.table)} as ${j} where ${ref(hop.through.target)} in (${related}))`;
      // No related row at all counts as a NULL, as Django's LEFT JOIN through the join table.
      cond = orNull ? sql<SqlBool>`(${source} not in (select ${ref(hop.through.source)} from ${sql.table(hop.through.table)} as ${j}) or ${sub})` : sub;
    } else {
      const sub = sql<SqlBool>`${source} in (${related})`;
      cond = orNull ? sql<SqlBool>`(${source} is null or ${sub})` : sub;
    }
  }
  return cond;
}

/**
 * The value of the field a path ends on, for each row of the base table: a
 * correlated scalar subquery per relation
 * (`(SELECT r.name FROM author r WHERE r.id = book.author_id)`), NULL when a
 * foreign key is NULL. For ORDER BY.
 */
export function pathValue(path: ModelPath, base: string | null): RawBuilder<unknown> {
  if (path.hops.length === 0) return outerRef(base, path.column);
  let expr: RawBuilder<unknown> = outerRef(base, path.hops[0]!.column);
  path.hops.forEach((hop, index) => {
    const i = index + 1;
    const next = i < path.hops.length ? path.hops[i]!.column : path.column;
    expr = sql`(select ${sql.ref(`${alias(i)}.${next}`)} from ${sql.table(hop.table)} as ${sql.id(alias(i))} where ${sql.ref(`${alias(i)}.${hop.key}`)} = ${expr})`;
  });
  return expr;
}
