import type { ApiRequest } from '../request.js';
import type { AppContext } from '../context.js';
import type { RouteRegistry, ReverseParams } from './registry.js';

export type { ReverseParams };

declare module '../context.js' {
  interface ServiceMap {
    routes: RouteRegistry;
  }
}

export interface ReverseOptions {
  /** With a request, the URL is absolute and carries the request's version. */
  request?: ApiRequest;
  /** Without a request, the app whose routes to search. */
  app?: AppContext | { trestle: AppContext };
  /** Internal: `false` skips the versioning scheme (schemes call this). */
  versioned?: boolean;
}

/**
 * The URL of a named route, as DRF's `reverse`: absolute when a request is
 * given, and rewritten by the request's versioning scheme (URL path fills the
 * version, namespace prefixes the name, query parameter appends it).
 *
 * @example
 * reverse('item-detail', { pk: 5 }, { request }) // 'http://localhost/items/5/'
 */
export function reverse(name: string, params?: ReverseParams, options: ReverseOptions = {}): string {
  const { request } = options;
  if (request && options.versioned !== false && request.versioningScheme) {
    return request.versioningScheme.reverse(name, params, request);
  }
  const ctx = request?.app ?? (options.app && 'trestle' in options.app ? options.app.trestle : options.app);
  if (!ctx) throw new Error('reverse() needs a request or an app to know the routes.');
  const path = ctx.services.get('routes').reverse(name, params);
  return request ? request.buildAbsoluteUri(path) : path;
}
