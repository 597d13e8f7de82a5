import type { ApiRequest, PathParams } from '../request.js';
import type { AuthenticationClass } from '../authentication/base.js';
import type { PermissionClass } from '../permissions.js';
import type { ThrottleClass } from '../throttling/base.js';
import type { RendererClass } from '../renderers/base.js';
import type { ParserClass } from '../parsers/base.js';
import type { VersioningClass } from '../versioning/base.js';
import { APIView, type Handler, type HandlerResult } from './api-view.js';

export interface FunctionViewOptions {
  authenticationClasses?: AuthenticationClass[];
  permissionClasses?: PermissionClass[];
  throttleClasses?: ThrottleClass[];
  rendererClasses?: RendererClass[];
  parserClasses?: ParserClass[];
  versioningClass?: VersioningClass | null;
  throttleScope?: string;
  name?: string;
  description?: string;
}

/**
 * A view from a function, as DRF's `@api_view`: the same pipeline, one
 * handler for the listed methods.
 *
 * @example
 * path('ping/', apiView(['GET'], async (req) => ({ pong: true })))
 * path('items/<int:pk>/', apiView(['GET'], (req: ApiRequest<{ pk: number }>) => ({ pk: req.params.pk })))
 */
export function apiView<Params extends object = PathParams, Data = unknown, Auth = unknown>(
  methods: readonly string[],
  handler: (req: ApiRequest<Params, Data, Auth>) => HandlerResult | Promise<HandlerResult>,
  options: FunctionViewOptions = {},
): APIView {
  const { name, description, ...config } = options;
  class FunctionView extends APIView {
    static override viewName = name ?? (handler.name ? handler.name.replace(/_/g, ' ') : 'Function View');
    static override description = description;
  }
  const view = new FunctionView();
  Object.assign(view, config);
  for (const m of methods) {
    (view as unknown as Record<string, Handler>)[m.toLowerCase()] = handler as Handler;
  }
  return view;
}
