import type { ApiRequest } from '../request.js';
import { APIView, type Handler } from './api-view.js';
import { GenericAPIView } from './generics.js';
import type { Serializer } from '../serializers/serializer.js';
import { reverse } from '../routing/reverse.js';
import { NoReverseMatch } from '../routing/registry.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySerializer = Serializer<any>;

/** HTTP method -> action name, e.g. `{ get: 'list', post: 'create' }`. */
export type ActionMap = Readonly<Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', string>>>;

type ViewSetCtor<V> = new () => V;

/**
 * An extra action of a viewset, DRF's `@action(detail=…, methods=[…])`,
 * declared on the class:
 *
 * ```ts
 * static override extraActions = [{ name: 'favourite', detail: true, methods: ['post'] }];
 * async favourite(req: ApiRequest) { … }   // POST books/<pk>/favourite/, named book-favourite
 * ```
 */
export interface ExtraAction {
  /** The viewset method that handles the action. */
  name: string;
  /** `true`: on one object (`<prefix>/<pk>/<urlPath>/`); `false`: on the list (`<prefix>/<urlPath>/`). */
  detail: boolean;
  /** HTTP methods (default `['get']`). */
  methods?: ReadonlyArray<'get' | 'post' | 'put' | 'patch' | 'delete'>;
  /** The URL segment (default: `name`). */
  urlPath?: string;
  /** The route name after `<basename>-` (default: `name` with `_` turned into `-`, as DRF). */
  urlName?: string;
  /**
   * The view's name on its browsable page, in its breadcrumb, in OPTIONS and
   * in the "Extra Actions" menu (DRF's `name` kwarg); default: the method
   * name in words with a capital first letter (`favourite` → "Favourite",
   * `recent_titles` / `recentTitles` → "Recent titles", as DRF's `pretty_name`).
   */
  viewName?: string;
  /** Set on the view for this action only (DRF's extra `@action` kwargs). */
  permissionClasses?: APIView['permissionClasses'];
  serializer?: unknown;
}

/** DRF's default name of an action's view: `pretty_name(func.__name__)`, camelCase read as words. */
export function extraActionViewName(action: ExtraAction): string {
  if (action.viewName !== undefined) return action.viewName;
  const words = action.name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

interface RoutedViewSet extends APIView {
  detail: boolean | null;
  basename: string | null;
}

/**
 * DRF's `get_extra_action_url_map`: view name → absolute URL of every extra
 * action on the same level as this route (detail actions on a detail route,
 * list actions on a list route), reversed with this request's path
 * parameters; an action whose URL cannot be built here is left out. Empty
 * when the view was not routed by a router.
 */
function extraActionUrls(view: RoutedViewSet, req: ApiRequest): Record<string, string> {
  const out: Record<string, string> = {};
  if (view.detail === null || view.basename === null) return out;
  const actions = (view.constructor as { extraActions?: readonly ExtraAction[] }).extraActions ?? [];
  const namespace = req.resolverMatch?.namespace;
  for (const action of actions) {
    if (action.detail !== view.detail) continue;
    const urlName = `${view.basename}-${action.urlName ?? action.name.replaceAll('_', '-')}`;
    try {
      out[extraActionViewName(action)] = reverse(namespace ? `${namespace}:${urlName}` : urlName, req.params as Record<string, string>, {
        request: req,
      });
    } catch (err) {
      if (!(err instanceof NoReverseMatch)) throw err;
    }
  }
  return out;
}

function actionHandler(view: APIView & { actionMap: ActionMap | null }, method: string, base: (m: string) => Handler | undefined): Handler | undefined {
  const map = view.actionMap;
  if (!map) return base(method);
  const lower = method.toLowerCase();
  if (lower === 'options') return base(method);
  const actionName = map[(lower === 'head' ? 'get' : lower) as keyof ActionMap];
  if (!actionName) return undefined;
  const fn = (view as unknown as Record<string, unknown>)[actionName];
  if (typeof fn !== 'function') return undefined;
  return function (this: APIView, req: ApiRequest) {
    req.action = actionName;
    return (fn as Handler).call(this, req);
  };
}

/** A new viewset instance serving `actions` (both viewset bases share this). */
function boundTo<V extends APIView & { actionMap: ActionMap | null }>(ctor: ViewSetCtor<V>, actions: ActionMap, init: Partial<V>): V {
  const view = new ctor();
  Object.assign(view, init);
  view.actionMap = actions;
  return view;
}

/**
 * A set of actions (`list`, `retrieve`, …) bound to HTTP methods by a
 * router or by `asView`, as DRF's `ViewSet`.
 */
export class ViewSet extends APIView {
  actionMap: ActionMap | null = null;
  /** Set by routers: whether this route is on one object (`true`) or the list (`false`), DRF's `detail`. */
  detail: boolean | null = null;
  /** Set by routers: the registration's basename, DRF's `basename`. */
  basename: string | null = null;
  /** Set by routers for an extra action's route: the view's name (DRF's `name` initkwarg). */
  name?: string;

  override getViewName(): string {
    return this.name ?? super.getViewName();
  }

  /** The "Extra Actions" of this route's level, view name → URL (DRF's `get_extra_action_url_map`). */
  getExtraActionUrlMap(req: ApiRequest): Record<string, string> {
    return extraActionUrls(this, req);
  }

  /** A view for one route, with methods mapped to actions. */
  static asView<V extends ViewSet>(this: ViewSetCtor<V>, actions: ActionMap, init: Partial<V> = {}): V {
    return boundTo(this, actions, init);
  }

  override handlerFor(method: string): Handler | undefined {
    return actionHandler(this, method, (m) => super.handlerFor(m));
  }
}

/** A viewset over a source with the generic views' machinery. */
export class GenericViewSet<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  actionMap: ActionMap | null = null;
  /** Set by routers: whether this route is on one object (`true`) or the list (`false`), DRF's `detail`. */
  detail: boolean | null = null;
  /** Set by routers: the registration's basename, DRF's `basename`. */
  basename: string | null = null;
  /** Set by routers for an extra action's route: the view's name (DRF's `name` initkwarg). */
  name?: string;

  override getViewName(): string {
    return this.name ?? super.getViewName();
  }

  /** The "Extra Actions" of this route's level, view name → URL (DRF's `get_extra_action_url_map`). */
  getExtraActionUrlMap(req: ApiRequest): Record<string, string> {
    return extraActionUrls(this, req);
  }

  static asView<V extends GenericViewSet>(this: ViewSetCtor<V>, actions: ActionMap, init: Partial<V> = {}): V {
    return boundTo(this, actions, init);
  }

  override handlerFor(method: string): Handler | undefined {
    return actionHandler(this, method, (m) => super.handlerFor(m));
  }

  /** Which actions this viewset offers (routers map only these). */
  hasAction(name: string): boolean {
    return typeof (this as unknown as Record<string, unknown>)[name] === 'function';
  }
}

/** list + retrieve. */
export class ReadOnlyModelViewSet<T = any, S extends AnySerializer = AnySerializer> extends GenericViewSet<T, S> {
  static readonly routerActions = ['list', 'retrieve'];
}

/** list, create, retrieve, update, partialUpdate, destroy. */
export class ModelViewSet<T = any, S extends AnySerializer = AnySerializer> extends GenericViewSet<T, S> {
  static readonly routerActions = ['list', 'create', 'retrieve', 'update', 'partialUpdate', 'destroy'];
}
