import type { FilterBackend } from '../filters/base.js';
import { isOrderingBackend } from '../filters/base.js';
import { modelLabel, modelOf, PathError, resolvePath } from '../filters/relations.js';
import type { RelationTarget } from '../models/fields.js';
import { closestMatch } from './difflib.js';
import { checkError, type CheckMessage } from './messages.js';
import { describeView, type MountedView } from './views.js';

/** One name a model view's configuration uses, resolved against its model. */
interface ModelNameUse {
  readonly setting: string;
  readonly id: string;
  readonly written: string;
  /** The field path (`author__name`), prefix and `-` removed. */
  readonly path: string;
  /** Whether the path may cross a many-to-many (not for ordering: a row would have several values). */
  readonly toMany: boolean;
}

/**
 * The names a view with a `model` gives its filter backends —
 * `filtersetFields` (every name), and the relation paths (`author__name`)
 * of `searchFields`, `orderingFields` and `ordering` — against the model
 * declaration and the models its relations point at, as Django's
 * `FieldError` resolves them; each unknown name is an error with a "did you
 * mean". Plain column names of search and ordering are checked against the
 * database's tables by `checkViewColumns`.
 */
export function checkModelNames(views: readonly MountedView[]): CheckMessage[] {
  const out: CheckMessage[] = [];
  const seen = new Set<string>();
  for (const mounted of views) {
    const view = mounted.view;
    const model = modelOf(view);
    if (!model) continue;
    const backends = (view as { filterBackendInstances?: readonly FilterBackend[] }).filterBackendInstances ?? [];
    for (const use of modelNameUses(view, backends)) {
      const key = `${view.constructor.name}|${use.id}|${use.written}`;
      if (seen.has(key)) continue;
      const problem = checkPath(model, use);
      if (!problem) continue;
      seen.add(key);
      out.push(checkError(problem.msg, { obj: describeView(mounted), id: use.id, hint: problem.hint }));
    }
  }
  return out;
}

function* modelNameUses(view: object, backends: readonly FilterBackend[]): Generator<ModelNameUse> {
  const v = view as Record<string, unknown>;
  const filtering = backends.some((b) => typeof (b as { getFilterSet?: unknown }).getFilterSet === 'function');
  const fields = v['filtersetFields'];
  if (filtering && !v['filterset'] && fields && typeof fields === 'object') {
    const names = Array.isArray(fields) ? (fields as unknown[]) : Object.keys(fields);
    for (const name of names) if (typeof name === 'string') yield { setting: 'filtersetFields', id: 'filters.E001', written: name, path: name, toMany: true };
  }
  for (const backend of backends) {
    const b = backend as unknown as { getSearchFields?: (view: object, req: null) => readonly string[]; lookupPrefixes?: Record<string, string> };
    if (typeof b.getSearchFields !== 'function') continue;
    let search: readonly string[];
    try {
      search = b.getSearchFields(view, null);
    } catch {
      continue;
    }
    const prefixes = b.lookupPrefixes ?? { '^': '', '=': '', '@': '', $: '' };
    for (const written of search) {
      if (typeof written !== 'string') continue;
      const bare = written[0] !== undefined && written[0] in prefixes ? written.slice(1) : written;
      if (bare.includes('__')) yield { setting: 'searchFields', id: 'search.E001', written, path: bare, toMany: true };
    }
  }
  const ordering = backends.find(isOrderingBackend);
  if (!ordering) return;
  const allowed = v['orderingFields'];
  if (allowed && allowed !== '__all__' && typeof allowed === 'object') {
    const entries: [string, unknown][] = Array.isArray(allowed) ? (allowed as unknown[]).map((f) => [String(f), f]) : Object.entries(allowed);
    for (const [written, column] of entries) {
      if (typeof column === 'string' && column.includes('__')) yield { setting: 'orderingFields', id: 'ordering.E001', written, path: column, toMany: false };
    }
  }
  const defaults = v['ordering'];
  const terms = typeof defaults === 'string' ? [defaults] : Array.isArray(defaults) ? (defaults as unknown[]) : [];
  for (const term of terms) {
    if (typeof term !== 'string') continue;
    const column = ordering.columnFor(term.startsWith('-') ? term.slice(1) : term, view as never);
    if (column.includes('__')) yield { setting: 'ordering', id: 'ordering.E002', written: term, path: column, toMany: false };
  }
}

function checkPath(model: RelationTarget, use: ModelNameUse): { msg: string; hint: string } | null {
  try {
    resolvePath(model, use.path, use.toMany);
    return null;
  } catch (err) {
    if (!(err instanceof PathError)) throw err;
    const where = `model '${modelLabel(err.model)}'`;
    if (err.candidates.length === 0) {
      return {
        msg: `'${use.setting}' refers to '${use.written}': ${err.message}`,
        hint: use.toMany ? 'Only relations (foreignKey, oneToOne, manyToMany) can be followed with __.' : 'An ordering follows to-one relations (foreignKey, oneToOne) only.',
      };
    }
    const close = closestMatch(err.segment, err.candidates);
    return {
      msg: `'${use.setting}' refers to '${use.written}', but ${where} has no field '${err.segment}'.`,
      hint: close !== null ? `Did you mean '${close}'?` : `Its fields are: ${err.candidates.map((c) => `'${c}'`).join(', ')}.`,
    };
  }
}
