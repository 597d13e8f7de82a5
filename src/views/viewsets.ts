import type { ApiRequest } from '../request.js';
import { APIView, type Handler } from './api-view.js';
import { GenericAPIView } from './generics.js';
import type { Serializer } from '../serializers/serializer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySerializer = Serializer<any>;

/** HTTP method -> action name, e.g. `{ get: 'list', post: 'create' }`. */
export type ActionMap = Readonly<Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', string>>>;

type ViewSetCtor<V> = new () => V;

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
