import type { ViewTarget } from '../views/api-view.js';
import { ImproperlyConfigured } from '../exceptions.js';
import { converters, type PathConverter } from './converters.js';

/** One route: a Django-style pattern, the view that serves it and its name. */
export interface RouteDef {
  readonly kind: 'route';
  readonly pattern: string;
  readonly view: ViewTarget;
  readonly name: string | null;
}

/** A group of routes under a prefix, optionally namespaced (Django's `include`). */
export interface IncludeDef {
  readonly kind: 'include';
  readonly prefix: string;
  readonly routes: readonly RouteEntry[];
  readonly namespace: string | null;
}

export type RouteEntry = RouteDef | IncludeDef;

/**
 * Declares a route.
 *
 * @example
 * path('items/<int:pk>/', ItemDetail, { name: 'item-detail' })
 */
export function path(pattern: string, view: ViewTarget, options: { name?: string } = {}): RouteDef {
  parsePattern(pattern); // fail at declaration, not at first request
  return { kind: 'route', pattern, view, name: options.name ?? null };
}

/**
 * Mounts routes under a prefix; with a namespace, their names are reversed as
 * `namespace:name` (and NamespaceVersioning reads the namespace).
 *
 * @example
 * include('v1/', apiRoutes, { namespace: 'v1' })
 */
export function include(
  prefix: string,
  routes: readonly RouteEntry[] | { readonly urls: readonly RouteEntry[] },
  options: { namespace?: string } = {},
): IncludeDef {
  parsePattern(prefix);
  const list = Array.isArray(routes) ? routes : (routes as { urls: readonly RouteEntry[] }).urls;
  return { kind: 'include', prefix, routes: list, namespace: options.namespace ?? null };
}

/** A parsed pattern segment: literal text or a typed parameter. */
export type PatternPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string; readonly converter: PathConverter; readonly converterName: string };

const PARAM_RE = /<(?:([a-zA-Z_][a-zA-Z0-9_]*):)?([a-zA-Z_][a-zA-Z0-9_]*)>/g;

export function parsePattern(pattern: string): PatternPart[] {
  if (pattern.startsWith('/')) {
    throw new ImproperlyConfigured(`Route pattern "${pattern}" must not start with "/" (write "${pattern.slice(1)}").`);
  }
  const parts: PatternPart[] = [];
  let last = 0;
  for (const m of pattern.matchAll(PARAM_RE)) {
    if (m.index! > last) parts.push({ kind: 'text', text: pattern.slice(last, m.index) });
    const converterName = m[1] ?? 'str';
    const converter = converters[converterName];
    if (!converter) {
      throw new ImproperlyConfigured(`Route pattern "${pattern}" uses unknown path converter "${converterName}".`);
    }
    parts.push({ kind: 'param', name: m[2]!, converter, converterName });
    last = m.index! + m[0].length;
  }
  if (last < pattern.length) parts.push({ kind: 'text', text: pattern.slice(last) });
  for (const p of parts) {
    if (p.kind === 'text' && /[<>:*?]/.test(p.text)) {
      throw new ImproperlyConfigured(`Route pattern "${pattern}" has a malformed segment "${p.text}".`);
    }
  }
  return parts;
}
