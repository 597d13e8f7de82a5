import type { SelectQueryNode } from 'kysely';
import type { AppContext } from '../context.js';
import { COLUMN_RE, isOrderingBackend, isQuery, type AnyQuery, type FilterBackend } from '../filters/base.js';
import { ApiRequest, type RequestEnvironment } from '../request.js';
import type { CompiledRoute } from '../routing/registry.js';
import type { APIView } from '../views/api-view.js';
import { GenericAPIView } from '../views/generics.js';
import { catalogueColumns, describeQuery, type QueryColumns } from './columns.js';
import { closestMatch } from './difflib.js';
import { modelOf } from '../filters/relations.js';
import { checkError, type CheckMessage } from './messages.js';
import { relatedNameProblem } from '../models/related.js';
import { isModelSaving } from '../models/saving.js';

/** A route as mounted: its compiled form and the bound view serving it. */
export interface MountedView {
  readonly route: CompiledRoute;
  readonly view: APIView;
}

/** How one view's configuration names columns, each checked against the query. */
interface NameUse {
  /** The setting, as written on the view (`orderingFields`, `MyCursor.ordering`). */
  readonly setting: string;
  readonly id: string;
  /** What the user wrote (`-creatd`, `^titel`). */
  readonly written: string;
  /** The column reference it becomes (`creatd`, `titel`, `a.name`). */
  readonly column: string;
  /** ORDER BY also accepts the names the query selects under an alias. */
  readonly orderBy: boolean;
}

/** `BookList at /api/books/ (name 'book-list')`: how a message names a view. */
export function describeView(mounted: MountedView): string {
  const name = mounted.route.match.viewName;
  return `${mounted.view.constructor.name} at /${mounted.route.match.pattern}${name ? ` (name '${name}')` : ''}`;
}

/**
 * The field-name checks of every generic view whose queryset is a Kysely
 * builder: ordering, search, filter, cursor and lookup columns against the
 * tables the builder reads, and its serializer's sources against the
 * columns it selects. A view whose queryset cannot be built without a real
 * request, or whose tables are not in the catalogue (not migrated yet), is
 * skipped, never reported. A view class mounted at several routes (a
 * viewset's list and detail) is reported once.
 */
export async function checkViewColumns(app: AppContext, views: readonly MountedView[], env: RequestEnvironment): Promise<CheckMessage[]> {
  const out: CheckMessage[] = [];
  const seen = new Set<string>();
  // One catalogue query per table for the whole run.
  const catalogue = new Map<string, Promise<readonly string[] | null>>();
  for (const mounted of views) {
    const view = mounted.view;
    if (!isGenericView(view)) continue;
    const qb = await probeQueryset(view, mounted, env);
    if (qb === null) continue;
    const described = await describeQuery(qb.toOperationNode() as SelectQueryNode, (schema, table) => {
      const key = `${schema ?? ''}.${table}`;
      let found = catalogue.get(key);
      if (!found) {
        found = catalogueColumns(qb, schema, table);
        catalogue.set(key, found);
      }
      return found;
    });
    const obj = describeView(mounted);
    const report = reporterFor(view, seen, out);
    for (const use of nameUses(view, mounted)) {
      const problem = checkColumn(use, described);
      if (problem) report(checkError(problem.msg, { obj, id: use.id, hint: problem.hint }), `${use.id}|${use.written}`);
    }
    for (const m of checkSources(view, described, obj)) report(m, `${m.id}|${m.msg}`);
  }
  return out;
}

/**
 * A generic view, told by its shape rather than `instanceof`, so views from
 * another copy of this module (a project loaded by tsx's isolated loader)
 * are checked too.
 */
function isGenericView(view: APIView): view is GenericAPIView {
  if (view instanceof GenericAPIView) return true;
  const v = view as unknown as Record<string, unknown>;
  return typeof v['getQueryset'] === 'function' && typeof v['filterQueryset'] === 'function' && Array.isArray(v['filterBackendInstances']);
}

/** `GenericAPIView.prototype` of the copy of this module the view comes from (`null` when not found). */
function genericPrototype(view: GenericAPIView): GenericAPIView | null {
  for (let p: unknown = Object.getPrototypeOf(view); p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const ctor = (p as { constructor?: { name?: string } }).constructor;
    if (ctor?.name === 'GenericAPIView' && Object.hasOwn(p as object, 'getQueryset')) return p as GenericAPIView;
  }
  return null;
}

/** The view's queryset for a request to its route with no query, no body and an anonymous user; `null` when not a builder or not buildable. */
async function probeQueryset(view: GenericAPIView, mounted: MountedView, env: RequestEnvironment): Promise<AnyQuery | null> {
  const url = `/${mounted.route.match.pattern}`;
  const raw = { method: 'GET', url, headers: { host: 'localhost' }, ip: '127.0.0.1', log: env.app.log, raw: {}, socket: {} };
  const req = new ApiRequest(raw as never, {} as never, env, {});
  req.resolverMatch = mounted.route.match;
  try {
    const make = env.app.settings.UNAUTHENTICATED_USER;
    if (make) req.user = make();
    req.auth = null;
    const source = await view.getQueryset(req);
    return isQuery(source) ? (source as AnyQuery) : null;
  } catch {
    return null;
  }
}

function* nameUses(view: GenericAPIView, mounted: MountedView): Generator<NameUse> {
  const v = view as unknown as Record<string, unknown>;
  const backends = view.filterBackendInstances;
  const ordering = backends.find(isOrderingBackend);
  const paginator = view.paginator as unknown as Record<string, unknown> | null;
  const cursor = paginator !== null && typeof paginator['parseOrdering'] === 'function' && 'cursorQueryParam' in paginator;
  const fields = v['orderingFields'];
  // On a view with a model, the ordering filter's relation paths (`author__name`) are checked against the
  // model (checkModelNames); a cursor alone cannot order by one, so there they are columns like any other.
  const model = modelOf(view) !== null;
  const isPath = (column: string) => model && ordering !== undefined && column.includes('__');
  // orderingFields counts when an ordering backend (or a cursor paginator, which orders by them) reads it.
  if ((ordering || (cursor && fields !== undefined)) && fields !== undefined && fields !== '__all__' && fields !== null) {
    const entries: [string, string][] = Array.isArray(fields)
      ? (fields as unknown[]).filter((f): f is string => typeof f === 'string').map((f) => [f, ordering ? ordering.columnFor(f, view) : f])
      : Object.entries(fields as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string');
    for (const [written, column] of entries) if (!isPath(column)) yield { setting: 'orderingFields', id: 'ordering.E001', written, column, orderBy: true };
  }
  const defaultOrdering = v['ordering'];
  if ((ordering || cursor) && defaultOrdering !== undefined) {
    const terms = typeof defaultOrdering === 'string' ? [defaultOrdering] : Array.isArray(defaultOrdering) ? (defaultOrdering as unknown[]) : [];
    for (const term of terms) {
      if (typeof term !== 'string') continue;
      const name = term.startsWith('-') ? term.slice(1) : term;
      const column = ordering ? ordering.columnFor(name, view) : name;
      if (!isPath(column)) yield { setting: 'ordering', id: 'ordering.E002', written: term, column, orderBy: true };
    }
  }
  for (const backend of backends) yield* searchUses(backend, view);
  for (const backend of backends) yield* filterUses(backend, view);
  if (cursor && paginator && (!ordering || defaultOrdering === undefined)) {
    const own = paginator['ordering'];
    const cls = (paginator.constructor as { name: string }).name;
    const terms = typeof own === 'string' ? [own] : Array.isArray(own) ? (own as unknown[]) : [];
    for (const term of terms) {
      if (typeof term !== 'string') continue;
      yield { setting: `${cls}.ordering`, id: 'pagination.E001', written: term, column: term.startsWith('-') ? term.slice(1) : term, orderBy: false };
    }
  }
  if (mounted.route.paramNames.length > 0 && typeof view.lookupField === 'string') {
    yield { setting: 'lookupField', id: 'views.E001', written: view.lookupField, column: view.lookupField, orderBy: false };
  }
}

function* searchUses(backend: FilterBackend, view: APIView): Generator<NameUse> {
  const b = backend as unknown as { getSearchFields?: (view: APIView, req: null) => readonly string[]; lookupPrefixes?: Record<string, string> };
  if (typeof b.getSearchFields !== 'function') return;
  let fields: readonly string[];
  try {
    fields = b.getSearchFields(view, null);
  } catch {
    return;
  }
  const prefixes = b.lookupPrefixes ?? { '^': '', '=': '', '@': '', $: '' };
  const model = modelOf(view) !== null;
  for (const written of fields) {
    if (typeof written !== 'string') continue;
    const bare = written[0] !== undefined && written[0] in prefixes ? written.slice(1) : written;
    // A model view's relation paths are checked against the model (checkModelNames).
    if (model && bare.includes('__')) continue;
    yield { setting: 'searchFields', id: 'search.E001', written, column: bare.replace(/__/g, '.'), orderBy: false };
  }
}

function* filterUses(backend: FilterBackend, view: APIView): Generator<NameUse> {
  const b = backend as unknown as { getFilterSet?: (view: APIView) => { filters: Record<string, { column: string }> } | null };
  if (typeof b.getFilterSet !== 'function') return;
  // A model view's filtersetFields name model fields: checkModelNames checks them against the model.
  if (modelOf(view) !== null && !(view as { filterset?: unknown }).filterset) return;
  let set: { filters: Record<string, { column: string }> } | null;
  try {
    set = b.getFilterSet(view);
  } catch {
    return;
  }
  const setting = (view as { filterset?: unknown }).filterset ? 'filterset' : 'filtersetFields';
  for (const [name, f] of Object.entries(set?.filters ?? {})) {
    yield { setting, id: 'filters.E001', written: f.column === name ? name : `${name} (column '${f.column}')`, column: f.column, orderBy: false };
  }
}

/** What is wrong with one column reference, or `null` when it is fine or cannot be known. */
function checkColumn(use: NameUse, q: QueryColumns): { msg: string; hint: string } | null {
  if (!COLUMN_RE.test(use.column)) return null; // the backends refuse these at bind
  const dot = use.column.indexOf('.');
  if (dot !== -1) {
    const qualifier = use.column.slice(0, dot);
    const column = use.column.slice(dot + 1);
    const source = q.sources.find((s) => s.name === qualifier);
    if (!source) {
      // A source without a known name could be it.
      if (q.sources.some((s) => s.name === '')) return null;
      const names = q.sources.map((s) => s.name);
      return {
        msg: `'${use.setting}' refers to '${use.written}', but the query has no table or alias '${qualifier}'.`,
        hint: didYouMean(qualifier, names, 'The query reads'),
      };
    }
    if (source.columns === null || source.columns.includes(column)) return null;
    return {
      msg: `'${use.setting}' refers to '${use.written}', but ${describeSource(source)} has no column '${column}'.`,
      hint: didYouMean(column, source.columns, 'Its columns are'),
    };
  }
  if (q.sources.length === 0 || q.sources.some((s) => s.columns === null)) return null;
  const known = q.sources.flatMap((s) => s.columns ?? []);
  if (known.includes(use.column)) return null;
  if (use.orderBy) {
    if (q.output === null) return null;
    if (q.output.includes(use.column)) return null;
    known.push(...q.output);
  }
  const where = q.sources.length === 1 ? describeSource(q.sources[0]!) : `the query's tables (${q.sources.map((s) => s.name).join(', ')})`;
  return {
    msg: `'${use.setting}' refers to '${use.written}', but ${where} has no column '${use.column}'.`,
    hint: didYouMean(use.column, known, 'The columns are'),
  };
}

function describeSource(source: { name: string; table: string | null }): string {
  if (source.table === null) return `the derived table '${source.name}'`;
  return source.name === source.table ? `table '${source.table}'` : `table '${source.table}' (as '${source.name}')`;
}

function didYouMean(word: string, candidates: readonly string[], listLabel: string): string {
  const close = closestMatch(word, candidates);
  if (close !== null) return `Did you mean '${close}'?`;
  const unique = [...new Set(candidates)];
  return `${listLabel}: ${unique.map((c) => `'${c}'`).join(', ')}.`;
}

/**
 * A required field of the view's serializer (no default, no null) whose
 * source the rows do not have fails every request: reported when the query's
 * columns are all known and the view renders rows with the generic
 * `serialize` (an override may add attributes).
 */
function checkSources(view: GenericAPIView, q: QueryColumns, obj: string): CheckMessage[] {
  if (q.output === null) return [];
  const generic = genericPrototype(view);
  if (generic === null) return [];
  if (view.serialize !== generic.serialize || view.serializeMany !== generic.serializeMany || view.list !== generic.list || view.retrieve !== generic.retrieve) return [];
  const out: CheckMessage[] = [];
  const serializers: [string, unknown][] = [['serializer', view.serializer]];
  for (const [version, s] of Object.entries(view.serializerByVersion ?? {})) serializers.push([`serializerByVersion.${version}`, s]);
  for (const [setting, s] of serializers) {
    const fields = (s as { fields?: unknown } | undefined)?.fields;
    if (!fields || typeof fields !== 'object') continue;
    // Relations a model serializer has loaded onto the rows (ModelSaving's relatedToLoad) are not columns.
    const loaded = new Set<string>();
    if (isModelSaving(s)) {
      const related = s.relatedToLoad();
      for (const n of [...related.selectRelated, ...related.prefetchRelated]) loaded.add(n.split('__')[0]!);
    }
    for (const [name, field] of Object.entries(
      fields as Record<string, { source?: string; writeOnly?: boolean; required?: boolean; allowNull?: boolean; hasDefault?: boolean }>,
    )) {
      if (!field || field.writeOnly || field.source === '*') continue;
      // Only a field that would fail every row: one with a default, that
      // allows null or is not required renders the missing key as DRF does.
      if (field.hasDefault || field.allowNull || field.required === false) continue;
      const first = (field.source ?? name).split('.')[0]!;
      if (q.output.includes(first) || loaded.has(first)) continue;
      const written = field.source === undefined ? '' : ` (source '${field.source}')`;
      out.push(
        checkError(`'${setting}' field '${name}'${written} reads '${first}', which the view's query does not select.`, {
          obj,
          id: 'serializers.E002',
          hint: didYouMean(first, q.output, 'The query selects'),
        }),
      );
    }
  }
  return out;
}

/**
 * The `viewName` of every hyperlinked field of the views' serializers
 * (`hyperlinkedIdentity`, `hyperlinkedRelated`, nested serializers and list
 * children included) against the app's route names. A name given as a
 * function of the request cannot be known and is skipped. With namespace
 * versioning a bare name matches the same name inside any namespace.
 */
export function checkViewNames(names: readonly string[], views: readonly MountedView[]): CheckMessage[] {
  const known = new Set(names);
  const tails = new Set(names.map((n) => n.slice(n.lastIndexOf(':') + 1)));
  const out: CheckMessage[] = [];
  const seen = new Set<string>();
  for (const mounted of views) {
    const v = mounted.view as unknown as { serializer?: unknown; serializerByVersion?: Record<string, unknown> };
    const serializers: [string, unknown][] = [['serializer', v.serializer]];
    for (const [version, s] of Object.entries(v.serializerByVersion ?? {})) serializers.push([`serializerByVersion.${version}`, s]);
    for (const [setting, s] of serializers) {
      for (const [path, viewName] of hyperlinks(s, '', new Set())) {
        if (known.has(viewName) || (!viewName.includes(':') && tails.has(viewName))) continue;
        const key = `${mounted.view.constructor.name}|${setting}|${path}|${viewName}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const close = closestMatch(viewName, [...known, ...tails]);
        out.push(
          checkError(`'${setting}' field '${path}' links to the view name '${viewName}', which no route has.`, {
            obj: describeView(mounted),
            id: 'serializers.E001',
            hint: close !== null ? `Did you mean '${close}'?` : names.length > 0 ? `Route names: ${names.map((n) => `'${n}'`).join(', ')}.` : 'No route has a name: give path() a name.',
          }),
        );
      }
    }
  }
  return out;
}

/** `[field path, viewName]` of each hyperlinked field under a serializer or field. */
function* hyperlinks(field: unknown, prefix: string, visited: Set<unknown>): Generator<[string, string]> {
  if (field === null || typeof field !== 'object' || visited.has(field)) return;
  visited.add(field);
  const f = field as { link?: { viewName?: unknown }; fields?: unknown; child?: unknown };
  if (f.link && typeof f.link.viewName === 'string') yield [prefix, f.link.viewName];
  if (f.fields && typeof f.fields === 'object') {
    for (const [name, inner] of Object.entries(f.fields as Record<string, unknown>)) yield* hyperlinks(inner, prefix ? `${prefix}.${name}` : name, visited);
  }
  if (f.child) yield* hyperlinks(f.child, prefix, visited);
}

/**
 * The `selectRelated` / `prefetchRelated` names of every generic view (with
 * those its model serializer's `relatedToLoad()` adds) against its model's
 * relations: a name that is not one is `views.E002` with a "did you mean";
 * the view's own names on a view without `model` (which loads nothing) are
 * `views.E003`; a model serializer of another model than the view's is
 * `views.E004` (its writes would go to the other table). A view class mounted at
 * several routes is reported once.
 */
export function checkRelatedNames(views: readonly MountedView[]): CheckMessage[] {
  const out: CheckMessage[] = [];
  const seen = new Set<string>();
  for (const mounted of views) {
    const view = mounted.view;
    if (!isGenericView(view)) continue;
    const model = view.model;
    // Without a model the view loads nothing: only its own names are wrong there, not its serializer's.
    let load: { selectRelated: readonly string[]; prefetchRelated: readonly string[] } = {
      selectRelated: view.selectRelated ?? [],
      prefetchRelated: view.prefetchRelated ?? [],
    };
    if (model && typeof view.getRelatedToLoad === 'function') {
      try {
        load = view.getRelatedToLoad(null);
      } catch {
        continue;
      }
    }
    const obj = describeView(mounted);
    const report = reporterFor(view, seen, out);
    for (const setting of ['selectRelated', 'prefetchRelated'] as const) {
      for (const name of load[setting]) {
        if (!model) {
          report(
            checkError(`'${setting}' names '${name}', but the view has no model whose relations it could load.`, {
              obj,
              id: 'views.E003',
              hint: "Set the view's model (model = Book).",
            }),
            `E003|${setting}|${name}`,
          );
          continue;
        }
        const problem = relatedNameProblem(model, name, setting);
        if (problem) report(checkError(problem.msg, { obj, id: 'views.E002', hint: problem.hint }), `E002|${setting}|${name}`);
      }
    }
    if (!model) continue;
    const serializers: [string, unknown][] = [['serializer', view.serializer]];
    for (const [version, s] of Object.entries(view.serializerByVersion ?? {})) serializers.push([`serializerByVersion.${version}`, s]);
    for (const [setting, s] of serializers) {
      if (!isModelSaving(s) || s.model.tableName === model.tableName) continue;
      report(
        checkError(
          `'${setting}' saves rows of model ${s.model.objectName} (table '${s.model.tableName}'), but the view's model is ${model.objectName} (table '${model.tableName}').`,
          { obj, id: 'views.E004', hint: `Give the view model = ${s.model.objectName}, or a serializer of ${model.objectName}.` },
        ),
        `E004|${setting}`,
      );
    }
  }
  return out;
}

/** Adds a message to `out` once per view class and key (a view mounted at several routes is reported once). */
function reporterFor(view: object, seen: Set<string>, out: CheckMessage[]): (m: CheckMessage, key: string) => void {
  return (m, key) => {
    const k = `${view.constructor.name}|${key}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(m);
    }
  };
}
