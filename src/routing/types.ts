/** The route a request matched (Django's `ResolverMatch`). */
export interface RouteMatch {
  /** The full Django-style pattern, e.g. `api/items/<int:pk>/`. */
  readonly pattern: string;
  /** The route name without namespaces, or `null`. */
  readonly urlName: string | null;
  /** The namespaces of the `include()`s that lead here, outermost first. */
  readonly namespaces: readonly string[];
  /** `namespaces.join(':')`, empty when none. */
  readonly namespace: string;
  /** The fully qualified name: `v1:item-list`. */
  readonly viewName: string | null;
}
