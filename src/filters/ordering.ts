import { AliasNode, ColumnNode, IdentifierNode, ReferenceNode, sql, TableNode, type RawBuilder } from 'kysely';
import { ImproperlyConfigured } from '../exceptions.js';
import type { OpenAPIParameter, Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { BaseFilterBackend, COLUMN_RE, isQuery, valueAt, type AnyQuery, type AppContext, type FilterControl, type OrderingBackend } from './base.js';
import { compareNullable } from './compare.js';
import { baseName, modelOf, PathError, pathValue, resolvePath, tryResolvePath, type ModelPath } from './relations.js';
import { describePathError } from './model-filters.js';
import { isReused, markReused } from '../db/query-shapes.js';

/** A view ordered by `OrderingFilter` (DRF's `ordering_fields` / `ordering`). */
export interface OrderingView {
  /**
   * What a client may order by with `?ordering=`: a list of names; a map
   * from client-facing name to column (`{ created: 'b.created' }`) when the
   * builder joins tables; or `'__all__'` (any column the builder selects by
   * name, any key of an array's items; on a view with a `model`, its fields,
   * as DRF). Unset: the client cannot choose. On a view with a `model`, a
   * relation field orders by its key column (`author` → `author_id`) and a
   * path (`author__name`) by the related value, read by a correlated
   * subquery (no join: rows are never repeated).
   */
  orderingFields?: readonly string[] | Readonly<Record<string, string>> | '__all__';
  /** The ordering when the client sends none (or only unknown names). */
  ordering?: string | readonly string[];
  /**
   * The column that identifies a row (Django's `pk`), named as in
   * `orderingFields` (a map qualifies it: `{ id: 'b.id' }`). Appended,
   * ascending, to every ordering that does not already contain it, so rows
   * that tie have one order on every database and no page skips or repeats
   * them. Default `'id'` (the column `addIdColumn` creates); `null` uses the
   * ordering as given.
   */
  primaryKey?: string | null;
}

/** One column of an ordering as SQL sorts it. */
export interface SortTerm {
  readonly column: string;
  readonly descending: boolean;
  /** The row's identifying column: never NULL, so no NULLS clause. */
  readonly key?: boolean;
  /** What to sort by when it is not the column itself (a related value's subquery). */
  readonly expression?: RawBuilder<unknown>;
}

/**
 * The terms `filterQueryset` sorts by: the chosen terms mapped to columns,
 * then the view's primary key (ascending) unless a term already names it.
 */
export function deterministicOrdering(terms: readonly { column: string; descending: boolean; expression?: RawBuilder<unknown> }[], key: string | null): SortTerm[] {
  if (key === null) return [...terms];
  const isKey = (column: string) => column === key || sameColumn(column, key);
  if (terms.some((t) => !t.expression && isKey(t.column))) return terms.map((t) => (!t.expression && isKey(t.column) ? { ...t, key: true } : t));
  return [...terms, { column: key, descending: false, key: true }];
}

/** `id` and `b.id` name the same column (one of them unqualified); `a.id` and `b.id` do not. */
function sameColumn(a: string, b: string): boolean {
  const [qa, ca] = a.includes('.') ? a.split('.') : [null, a];
  const [qb, cb] = b.includes('.') ? b.split('.') : [null, b];
  return ca === cb && (qa === null || qb === null || qa === qb);
}

/**
 * An unqualified key qualified by the builder's one FROM table (or alias)
 * when the builder joins others, where a bare `id` would be ambiguous.
 */
export function qualifyKey(key: string, qb: AnyQuery): string {
  if (key.includes('.')) return key;
  const node = qb.toOperationNode();
  if (!node.joins?.length || node.from?.froms.length !== 1) return key;
  const from = node.from.froms[0]!;
  if (AliasNode.is(from) && IdentifierNode.is(from.alias)) return `${from.alias.name}.${key}`;
  if (TableNode.is(from)) return `${from.table.identifier.name}.${key}`;
  return key;
}

/**
 * ORDER BY for sort terms, NULLs in one place on every database: last
 * ascending, first descending (PostgreSQL's and Django's placement; SQLite
 * would put them the other way). Both databases still read such an ORDER BY
 * from a plain index.
 */
export function orderByTerms(terms: readonly SortTerm[]) {
  // Terms of plain columns give the same (immutable) fragment every request: built once.
  let key: string | null = '';
  for (const t of terms) {
    if (t.expression) {
      key = null;
      break;
    }
    key += `${t.key ? 'k' : 'n'}${t.descending ? '-' : '+'}${t.column}\u0000`;
  }
  const known = key === null ? undefined : orderByFragments.get(key);
  if (known !== undefined) return known;
  const fragment = sql.join(
    terms.map((t) =>
      t.key
        ? sql`${sql.ref(t.column)} ${sql.raw(t.descending ? 'desc' : 'asc')}`
        : sql`${t.expression ?? sql.ref(t.column)} ${sql.raw(t.descending ? 'desc nulls first' : 'asc nulls last')}`,
    ),
  );
  if (key !== null) {
    if (orderByFragments.size >= MAX_ORDER_BY_FRAGMENTS) orderByFragments.clear();
    orderByFragments.set(key, fragment);
  }
  return fragment;
}

/** `orderByTerms`' fragments for orderings of plain columns, by their terms. */
const orderByFragments = new Map<string, RawBuilder<unknown>>();
const MAX_ORDER_BY_FRAGMENTS = 500;

/** Distinct client orderings kept per reused source builder. */
const MAX_ORDERINGS_PER_SOURCE = 64;

/**
 * DRF's `OrderingFilter`: `?ordering=` (`ORDERING_PARAM`) is a comma list
 * of names, `-` for descending; names the view does not allow are dropped,
 * and when none is left the view's `ordering` applies.
 *
 * ```http
 * GET /api/books/?ordering=-year,title HTTP/1.1
 * ```
 *
 * Allowed names come from `orderingFields` only: unlike DRF, which allows
 * every serializer field when it is unset, an unset list allows nothing.
 *
 * The ordering applied always ends in the view's `primaryKey` (`id`,
 * ascending) unless it names it already, so ties have one order and pages
 * never skip or repeat a row; NULLs sort last ascending, first descending.
 *
 * @example
 * class BookList extends ListAPIView<Book> {
 *   override filterBackends = [OrderingFilter];
 *   orderingFields = ['title', 'year', 'id'];
 *   ordering = ['-year', 'id'];
 * }
 */
export class OrderingFilter extends BaseFilterBackend implements OrderingBackend {
  orderingParam: string;
  orderingDescription = 'Which field to use when ordering the results.';
  ascendingLabel = 'ascending';
  descendingLabel = 'descending';

  constructor(app: AppContext) {
    super(app);
    this.orderingParam = app.settings.ORDERING_PARAM;
  }

  checkView(view: APIView): void {
    const fields = (view as OrderingView).orderingFields;
    if (fields !== undefined && fields !== '__all__') {
      const columns = Array.isArray(fields) ? fields : Object.values(fields as Record<string, string>);
      for (const c of columns as readonly string[]) {
        if (typeof c !== 'string' || !COLUMN_RE.test(c)) throw new ImproperlyConfigured(`Invalid orderingFields entry "${String(c)}": use "column" or "table.column".`);
      }
    }
    const key = this.primaryKeyColumn(view);
    if (key !== null && !COLUMN_RE.test(key)) throw new ImproperlyConfigured(`Invalid primaryKey "${key}": use "column" or "table.column", or null.`);
    for (const term of this.getDefaultOrdering(view) ?? []) {
      const column = this.columnFor(term.startsWith('-') ? term.slice(1) : term, view);
      if (!COLUMN_RE.test(column)) throw new ImproperlyConfigured(`Invalid ordering term "${term}": use "column", "-column" or "table.column".`);
    }
    this.checkCursorRelations(view);
    this.checkRelationPaths(view);
  }

  /**
   * A model view's relation paths that do not resolve are reported by the
   * system checks (ordering.E001, ordering.E002) with every other name
   * before any request is served; with the check silenced they are raised
   * here.
   */
  protected checkRelationPaths(view: APIView): void {
    if (!modelOf(view)) return;
    const fields = (view as OrderingView).orderingFields;
    const uses: [string, string, string][] = [];
    if (fields !== undefined && fields !== '__all__') {
      const names = Array.isArray(fields) ? (fields as readonly string[]) : Object.keys(fields);
      for (const n of names) uses.push(['ordering.E001', 'orderingFields', this.columnFor(n, view)]);
    }
    for (const t of this.getDefaultOrdering(view) ?? []) uses.push(['ordering.E002', 'ordering', this.columnFor(t.startsWith('-') ? t.slice(1) : t, view)]);
    for (const [id, setting, column] of uses) {
      if (column.includes('__') && this.checkSilenced(id)) this.explainPath(column, view, setting);
    }
  }

  /**
   * A cursor pages by values it reads back from the rows; a related value
   * (`author__name`) is not on the row, so a view paged by a cursor may not
   * order across a relation.
   */
  protected checkCursorRelations(view: APIView): void {
    const paginator = (view as { paginator?: unknown }).paginator as Record<string, unknown> | null | undefined;
    if (!paginator || typeof paginator['parseOrdering'] !== 'function' || !('cursorQueryParam' in paginator)) return;
    const fields = (view as OrderingView).orderingFields;
    const names = [
      ...(fields === undefined || fields === '__all__' ? [] : Array.isArray(fields) ? (fields as readonly string[]) : Object.keys(fields)),
      ...(this.getDefaultOrdering(view) ?? []).map((t) => (t.startsWith('-') ? t.slice(1) : t)),
    ];
    for (const name of names) {
      if (this.relationPath(this.columnFor(name, view), view)) {
        throw new ImproperlyConfigured(
          `${view.constructor.name}: ${(paginator.constructor as { name: string }).name} cannot page by '${name}', a value across a relation: a cursor reads its position from the row's own columns. Order by the view's own fields, or use page-number or limit/offset pagination.`,
        );
      }
    }
  }

  /** On a view with a `model`, the relation path a column names (`author__name`); `null` for a column. */
  relationPath(column: string, view: APIView): ModelPath | null {
    const model = modelOf(view);
    if (!model || !column.includes('__')) return null;
    return tryResolvePath(model, column, false);
  }

  /** The view's `ordering`, as a list (DRF's `get_default_ordering`). */
  getDefaultOrdering(view: APIView): readonly string[] | null {
    const ordering = (view as OrderingView).ordering;
    if (ordering === undefined) return null;
    return typeof ordering === 'string' ? [ordering] : ordering;
  }

  /** Names a client may order by; `source` answers `'__all__'`. */
  getValidFields(view: APIView, source: Source<unknown> | null): readonly string[] {
    const fields = (view as OrderingView).orderingFields;
    if (fields === undefined) return [];
    if (fields === '__all__') {
      // DRF: the model's concrete fields (and the builder's named selections).
      const model = modelOf(view);
      const own = model ? Object.keys(model.fields).filter((n) => model.fields[n]!.kind !== ('manyToMany' as string)) : [];
      return [...new Set([...own, ...(source === null ? [] : allColumns(source))])];
    }
    return Array.isArray(fields) ? (fields as readonly string[]) : Object.keys(fields);
  }

  /** The view's `primaryKey` as a column (`id` → `b.id` through `orderingFields`), or `null` when it opts out. */
  primaryKeyColumn(view: APIView, source: AnyQuery | null = null): string | null {
    const key = (view as OrderingView).primaryKey;
    if (key === null) return null;
    const column = this.columnFor(key ?? modelOf(view)?.primaryKey ?? 'id', view);
    return source === null ? column : qualifyKey(column, source);
  }

  columnFor(name: string, view: APIView): string {
    const fields = (view as OrderingView).orderingFields;
    if (fields && fields !== '__all__' && !Array.isArray(fields)) {
      const mapped = (fields as Readonly<Record<string, string>>)[name];
      if (typeof mapped === 'string' && Object.prototype.hasOwnProperty.call(fields, name)) return mapped;
    }
    // A model's relation field orders by its key column, as Django's `order_by('author_id')`.
    const model = modelOf(view);
    const f = model && Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
    if (f?.isRelation) return f.columnName(name);
    return name;
  }

  /**
   * The ordering in force, as client-facing terms (`-year`): the client's
   * valid terms, else the view's default (DRF's `get_ordering`). A name
   * repeated keeps its first use.
   */
  getOrdering(req: ApiRequest, view: APIView, source: Source<unknown> | null = null): readonly string[] | null {
    const raw = req.query[this.orderingParam];
    if (raw) {
      const valid = new Set(this.getValidFields(view, source));
      const seen = new Set<string>();
      const chosen: string[] = [];
      for (const part of raw.split(',')) {
        const term = part.trim();
        const name = term.startsWith('-') ? term.slice(1) : term;
        if (!valid.has(name) || seen.has(name)) continue;
        seen.add(name);
        chosen.push(term);
      }
      if (chosen.length > 0) return chosen;
    }
    return this.getDefaultOrdering(view);
  }

  filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> {
    const ordering = this.getOrdering(req, view, source as Source<unknown>);
    if (!ordering || ordering.length === 0) return source;
    if (isQuery(source) && isReused(source) && this.ordersByConfiguration()) return this.reusedOrdering(source, ordering, view);
    return this.applyOrdering(source, ordering, view);
  }

  /**
   * A reused builder (a model view's default queryset) in `ordering`: built
   * once per (builder, view, ordering) and reused in turn, so what is
   * compiled from it is kept too (see src/db/query-shapes.ts). The order
   * depends on nothing else: the names are mapped to columns by the view's
   * configuration, the tie-breaker and the relation paths by the builder.
   */
  private reusedOrdering<T>(source: AnyQuery<T>, ordering: readonly string[], view: APIView): Source<T> {
    let memo = this.orderedSources.get(source);
    if (memo === undefined || memo.view !== view) this.orderedSources.set(source, (memo = { view, byOrdering: new Map() }));
    const key = ordering.length === 1 ? ordering[0]! : ordering.join('\u0000');
    const known = memo.byOrdering.get(key);
    if (known !== undefined) return known as AnyQuery<T>;
    const ordered = this.applyOrdering(source, ordering, view) as AnyQuery<T>;
    markReused(ordered);
    if (memo.byOrdering.size >= MAX_ORDERINGS_PER_SOURCE) memo.byOrdering.clear();
    memo.byOrdering.set(key, ordered);
    return ordered;
  }

  /** Reused orderings by source builder (see `reusedOrdering`). */
  private readonly orderedSources = new WeakMap<AnyQuery, { readonly view: APIView; readonly byOrdering: Map<string, AnyQuery> }>();

  /** Whether the order of a term list is the class's own mapping (no override of how names become columns). */
  private ordersByConfiguration(): boolean {
    const own = OrderingFilter.prototype;
    return this.columnFor === own.columnFor && this.primaryKeyColumn === own.primaryKeyColumn && this.relationPath === own.relationPath;
  }

  /** `source` in `ordering` (client-facing terms), ending in the view's primary key. */
  private applyOrdering<T>(source: Source<T>, ordering: readonly string[], view: APIView): Source<T> {
    const base = isQuery(source) ? baseName(source) : null;
    const terms = deterministicOrdering(
      ordering.map((t) => {
        const descending = t.startsWith('-');
        const column = this.columnFor(descending ? t.slice(1) : t, view);
        const path = isQuery(source) ? this.relationPath(column, view) : null;
        if (path) return { column, descending, expression: pathValue(path, base) };
        if (column.includes('__') && modelOf(view)) this.explainPath(column, view);
        return { column, descending };
      }),
      isQuery(source) ? this.primaryKeyColumn(view, source) : this.primaryKeyColumn(view),
    );
    if (isQuery(source)) return source.clearOrderBy().orderBy(orderByTerms(terms));
    // Array.prototype.sort is stable: ties keep the source's order (a relation path reads the loaded related row).
    const read = (item: unknown, t: SortTerm) => valueAt(item, modelOf(view) ? t.column.replace(/__/g, '.') : t.column);
    return [...(source as readonly T[])].sort((a, b) => {
      for (const t of terms) {
        const c = compareNullable(read(a, t), read(b, t), t.descending);
        if (c !== 0) return c;
      }
      return 0;
    });
  }

  /** A relation path that does not resolve: a configuration error (the system checks report it first, as ordering.E001). */
  protected explainPath(column: string, view: APIView, setting = 'orderingFields'): void {
    try {
      resolvePath(modelOf(view)!, column, false);
    } catch (err) {
      if (err instanceof PathError) throw new ImproperlyConfigured(`${view.constructor.name}: ${describePathError(setting, err)}`);
      throw err;
    }
  }

  override schemaParameters(view: APIView): OpenAPIParameter[] {
    const fields = (view as OrderingView).orderingFields;
    if (fields === undefined) return [];
    const names = this.getValidFields(view, null);
    const param: OpenAPIParameter = { name: this.orderingParam, required: false, in: 'query', description: this.orderingDescription, schema: { type: 'string' } };
    if (names.length > 0) {
      // drf-spectacular's form: a comma-separated array whose items are the allowed terms.
      param.schema = { type: 'array', items: { type: 'string', enum: names.flatMap((n) => [n, `-${n}`]) } };
      param.style = 'form';
      param.explode = false;
    }
    return [param];
  }

  override htmlContext(req: ApiRequest, view: APIView): FilterControl | null {
    const names = this.getValidFields(view, null);
    if ((view as OrderingView).orderingFields === undefined) return null;
    const current = this.getOrdering(req, view);
    return {
      kind: 'ordering',
      param: this.orderingParam,
      current: current && current.length > 0 ? current[0]! : null,
      options: names.flatMap((n) => [
        { value: n, label: `${n} - ${this.ascendingLabel}` },
        { value: `-${n}`, label: `${n} - ${this.descendingLabel}` },
      ]),
    };
  }
}

/** `'__all__'`: the keys of an array's first item, or the columns a builder selects by name. */
function allColumns(source: Source<unknown>): string[] {
  if (!isQuery(source)) {
    const first = (source as readonly unknown[])[0];
    return first && typeof first === 'object' ? Object.keys(first) : [];
  }
  const node = (source as AnyQuery).toOperationNode();
  const out: string[] = [];
  for (const s of node.selections ?? []) {
    const sel = s.selection;
    if (AliasNode.is(sel)) {
      const alias = sel.alias as { name?: unknown };
      if (typeof alias.name === 'string') out.push(alias.name);
    } else if (ReferenceNode.is(sel) && ColumnNode.is(sel.column)) {
      out.push(sel.column.column.name);
    } else if (ColumnNode.is(sel)) {
      out.push(sel.column.name);
    }
  }
  return out;
}
