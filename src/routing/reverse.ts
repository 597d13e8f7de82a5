import type { ApiRequest } from '../request.js';
import type { AppContext } from '../context.js';
import { NoReverseMatch, type RouteRegistry, type ReverseParams } from './registry.js';
import { replaceQueryParam } from '../utils/urls.js';

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
 * version, namespace prefixes the name, query parameter appends it). When the
 * scheme's URL does not exist (a route outside the versioned ones), the plain
 * URL is returned; a `?format=` of the request is kept, as DRF does.
 *
 * @example
 * reverse('item-detail', { pk: 5 }, { request }) // 'http://localhost/items/5/'
 */
export function reverse(name: string, params?: ReverseParams, options: ReverseOptions = {}): string {
  const { request } = options;
  if (!request || options.versioned === false) return plainReverse(name, params, options);
  let url: string;
  if (request.versioningScheme) {
    try {
      url = request.versioningScheme.reverse(name, params, request);
    } catch (err) {
      if (!(err instanceof NoReverseMatch)) throw err;
      url = plainReverse(name, params, options);
    }
  } else {
    url = plainReverse(name, params, options);
  }
  return preserveBuiltinQueryParams(url, request);
}

/** DRF's `_reverse`: the route's path, made absolute with the request's host. */
function plainReverse(name: string, params: ReverseParams | undefined, options: ReverseOptions): string {
  const { request } = options;
  const ctx = request?.app ?? (options.app && 'trestle' in options.app ? options.app.trestle : options.app);
  if (!ctx) throw new Error('reverse() needs a request or an app to know the routes.');
  const path = ctx.services.get('routes').reverse(name, params);
  return request ? request.buildAbsoluteUri(path) : path;
}

/**
 * `reverse(…, { request })`'s URL for a route path already reversed, when the
 * request has no versioning scheme: absolute, with the request's `?format=`.
 */
export function absoluteRouteUrl(path: string, request: ApiRequest): string {
  return preserveBuiltinQueryParams(request.buildAbsoluteUri(path), request);
}

// DRF's URL_FORMAT_OVERRIDE: links keep the `?format=` the client chose.
function preserveBuiltinQueryParams(url: string, request: ApiRequest): string {
  const formats = request.queryParams.getAll('format');
  return formats.length === 0 ? url : replaceQueryParam(url, 'format', formats[formats.length - 1]!);
}
