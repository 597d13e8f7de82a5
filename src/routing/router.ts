import type { ApiRequest } from '../request.js';
import { APIView } from '../views/api-view.js';
import { GenericViewSet, ViewSet, extraActionViewName, type ActionMap, type ExtraAction } from '../views/viewsets.js';

export type { ExtraAction };
import { ImproperlyConfigured } from '../exceptions.js';
import { path, type RouteEntry } from './routes.js';
import { reverse } from './reverse.js';

type AnyViewSet = ViewSet | GenericViewSet;
type ViewSetClass = (new () => AnyViewSet) & {
  asView(actions: ActionMap, init?: Record<string, unknown>): AnyViewSet;
  routerActions?: readonly string[];
  extraActions?: readonly ExtraAction[];
};

interface Registration {
  prefix: string;
  viewset: ViewSetClass;
  basename: string;
}

const LIST_ACTIONS: ActionMap = { get: 'list', post: 'create' };
const DETAIL_ACTIONS: ActionMap = { get: 'retrieve', put: 'update', patch: 'partialUpdate', delete: 'destroy' };

/**
 * Turns viewsets into list and detail routes, as DRF's `SimpleRouter`:
 * `items/` named `item-list` and `items/<pk>/` named `item-detail`.
 *
 * @example
 * const router = new SimpleRouter();
 * router.register('books', BookViewSet, { basename: 'book' });
 * const routes = [include('api/', router.urls)];
 */
export class SimpleRouter {
  protected readonly registry: Registration[] = [];

  constructor(protected readonly options: { trailingSlash?: boolean } = {}) {}

  register(prefix: string, viewset: ViewSetClass, options: { basename?: string } = {}): this {
    const basename = options.basename ?? prefix.replace(/\/+$/, '').split('/').pop();
    if (!basename) throw new ImproperlyConfigured(`Cannot derive a basename from prefix "${prefix}"; pass { basename }.`);
    this.registry.push({ prefix: prefix.replace(/\/+$/, ''), viewset, basename });
    return this;
  }

  get urls(): RouteEntry[] {
    const slash = this.options.trailingSlash === false ? '' : '/';
    const routes: RouteEntry[] = [];
    for (const { prefix, viewset, basename } of this.registry) {
      const probe = new viewset();
      const has = (name: string) => typeof (probe as unknown as Record<string, unknown>)[name] === 'function';
      const allowed = viewset.routerActions;
      const pick = (map: ActionMap): ActionMap => {
        const out: Record<string, string> = {};
        for (const [method, action] of Object.entries(map)) {
          if (has(action) && (!allowed || allowed.includes(action))) out[method] = action;
        }
        return out;
      };
      const kwarg = (probe as { lookupUrlKwarg?: string }).lookupUrlKwarg ?? 'pk';
      const extras = (viewset.extraActions ?? []).map((a) => checkedExtra(a, has, viewset.name));
      // DRF's order: list, extra list actions, detail, extra detail actions.
      const extraRoutes = (detail: boolean) =>
        extras
          .filter((a) => a.detail === detail)
          .map((a) => {
            const map = Object.fromEntries((a.methods ?? ['get']).map((m) => [m, a.name])) as ActionMap;
            const init: Record<string, unknown> = { detail, basename, name: extraActionViewName(a) };
            if (a.permissionClasses) init['permissionClasses'] = a.permissionClasses;
            if (a.serializer) init['serializer'] = a.serializer;
            const at = detail ? `${prefix}/<${kwarg}>/${a.urlPath ?? a.name}` : `${prefix}/${a.urlPath ?? a.name}`;
            return path(`${at}${slash}`, viewset.asView(map, init), { name: `${basename}-${a.urlName ?? a.name.replaceAll('_', '-')}` });
          });
      const listMap = pick(LIST_ACTIONS);
      if (Object.keys(listMap).length > 0) {
        routes.push(path(`${prefix}${slash}`, viewset.asView(listMap, { suffix: 'List', detail: false, basename }), { name: `${basename}-list` }));
      }
      routes.push(...extraRoutes(false));
      const detailMap = pick(DETAIL_ACTIONS);
      if (Object.keys(detailMap).length > 0) {
        routes.push(
          path(`${prefix}/<${kwarg}>${slash}`, viewset.asView(detailMap, { suffix: 'Instance', detail: true, basename }), { name: `${basename}-detail` }),
        );
      }
      routes.push(...extraRoutes(true));
    }
    return routes;
  }
}

const ROUTE_ACTIONS = new Set([...Object.values(LIST_ACTIONS), ...Object.values(DETAIL_ACTIONS)]);

/** An extra action the router can route, or a one-line configuration error (as DRF's checks). */
function checkedExtra(action: ExtraAction, has: (name: string) => boolean, viewset: string): ExtraAction {
  if (ROUTE_ACTIONS.has(action.name)) {
    throw new ImproperlyConfigured(`${viewset}.extraActions: "${action.name}" is an existing route action and cannot be an extra action.`);
  }
  if (!has(action.name)) throw new ImproperlyConfigured(`${viewset}.extraActions: "${action.name}" is not a method of the viewset.`);
  return action;
}

/** The API root of a DefaultRouter: links to every registered list. */
class APIRootView extends APIView {
  static override viewName = 'Api Root';
  static override description = 'The default basic root view for DefaultRouter';
  entries: { prefix: string; name: string }[] = [];

  get(req: ApiRequest): Record<string, string> {
    const namespace = req.resolverMatch?.namespace;
    const out: Record<string, string> = {};
    for (const { prefix, name } of this.entries) {
      const full = namespace ? `${namespace}:${name}` : name;
      out[prefix] = reverse(full, {}, { request: req });
    }
    return out;
  }
}

/** SimpleRouter plus an API root at the prefix, named `api-root`. */
export class DefaultRouter extends SimpleRouter {
  override get urls(): RouteEntry[] {
    const routes = super.urls;
    const root = new APIRootView();
    root.entries = this.registry.map((r) => ({ prefix: r.prefix, name: `${r.basename}-list` }));
    return [path('', root, { name: 'api-root' }), ...routes];
  }
}
