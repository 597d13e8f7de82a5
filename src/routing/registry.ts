import { ImproperlyConfigured } from '../exceptions.js';
import type { ViewTarget } from '../views/api-view.js';
import { parsePattern, type PatternPart, type RouteEntry } from './routes.js';
import { BUILTIN_CONVERTERS } from './converters.js';
import type { RouteMatch } from './types.js';


/** A key no table holds, reversed in its place to learn a route's text around an integer key. */
const INTEGER_STAND_IN = 8_102_763_945_517_329;

export type ReverseParams = Readonly<Record<string, string | number | bigint>>;

/** Thrown when no route has that name and those parameters (a programming error). */
export class NoReverseMatch extends Error {
  override name = 'NoReverseMatch';
}

/** Built-in converters that accept any string of digits and write it back as it is. */
const DIGITS_AS_THEY_ARE = ['int', 'str', 'slug', 'path'];

/**
 * A route's pattern for `resolve`: its regular expression, and the text
 * before its first parameter (the whole path when it has none, `literal`),
 * which a path must start with (or equal) before the expression is run.
 */
interface RouteMatcher {
  readonly regex: RegExp;
  readonly prefix: string;
  readonly literal: boolean;
}

/** A route flattened out of its includes, ready for Fastify and for `reverse`. */
export interface CompiledRoute {
  readonly match: RouteMatch;
  readonly parts: readonly PatternPart[];
  readonly paramNames: readonly string[];
  /** Fastify's path: `/items/:p0/`; parameters are positional. */
  readonly fastifyPath: string;
  readonly view: ViewTarget;
}

// Characters Django leaves unquoted in reversed URLs (RFC 3986 sub-delims and /~:@).
const SAFE = /[!$&'()*+,;=/~:@]/g;
function quoteSegment(value: string): string {
  return encodeURIComponent(value).replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|2F|7E|3A|40)/g, (m) =>
    decodeURIComponent(m),
  );
}
void SAFE;

/** All routes of one app, flattened, with names for `reverse`. */
export class RouteRegistry {
  readonly routes: CompiledRoute[] = [];
  private readonly byName = new Map<string, CompiledRoute[]>();

  constructor(entries: readonly RouteEntry[]) {
    this.add(entries, [], [], []);
  }

  private add(entries: readonly RouteEntry[], prefixParts: PatternPart[], prefixText: string[], namespaces: string[]): void {
    for (const entry of entries) {
      if (entry.kind === 'include') {
        const ns = entry.namespace ? [...namespaces, entry.namespace] : namespaces;
        this.add(entry.routes, [...prefixParts, ...parsePattern(entry.prefix)], [...prefixText, entry.prefix], ns);
        continue;
      }
      const parts = [...prefixParts, ...parsePattern(entry.pattern)];
      const pattern = [...prefixText, entry.pattern].join('');
      const namespace = namespaces.join(':');
      const viewName = entry.name === null ? null : namespace ? `${namespace}:${entry.name}` : entry.name;
      const paramNames: string[] = [];
      let fastifyPath = '/';
      for (const part of parts) {
        if (part.kind === 'text') fastifyPath += part.text;
        else {
          if (paramNames.includes(part.name)) {
            throw new ImproperlyConfigured(`Route "${pattern}" uses the parameter "${part.name}" twice.`);
          }
          fastifyPath += part.converterName === 'path' ? '*' : `:p${paramNames.length}`;
          paramNames.push(part.name);
        }
      }
      const compiled: CompiledRoute = {
        match: { pattern, urlName: entry.name, namespaces: [...namespaces], namespace, viewName },
        parts,
        paramNames,
        fastifyPath,
        view: entry.view,
      };
      this.routes.push(compiled);
      this.integerTemplates.clear();
      if (viewName !== null) {
        const list = this.byName.get(viewName) ?? [];
        list.push(compiled);
        this.byName.set(viewName, list);
      }
    }
  }

  private matchers: RouteMatcher[] | null = null;

  /**
   * The route a decoded path (leading `/`) names and its converted
   * parameters, as Django's `resolve`; `null` when none matches. Used to read
   * hyperlinks back (not on the routing hot path).
   */
  resolve(path: string): { route: CompiledRoute; params: Record<string, unknown> } | null {
    const matchers = (this.matchers ??= this.compileMatchers());
    for (let i = 0; i < matchers.length; i++) {
      const { literal, prefix, regex } = matchers[i]!;
      if (literal) {
        if (path === prefix) return { route: this.routes[i]!, params: {} };
        continue;
      }
      if (!path.startsWith(prefix)) continue;
      const m = regex.exec(path);
      if (!m) continue;
      const route = this.routes[i]!;
      const params: Record<string, unknown> = {};
      let g = 1;
      let ok = true;
      for (const part of route.parts) {
        if (part.kind !== 'param') continue;
        const raw = m[g++]!;
        if (!part.converter.regex.test(raw)) ok = false;
        else params[part.name] = part.converter.toValue(raw);
        // Skip the converter's own capture groups.
        g += captureGroups(part.converter.regex);
      }
      if (ok) return { route, params };
    }
    return null;
  }

  private compileMatchers(): RouteMatcher[] {
    return this.routes.map((route) => {
      let source = '^/';
      let prefix = '/';
      let literal = true;
      for (const part of route.parts) {
        if (part.kind === 'text') {
          source += part.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          if (literal) prefix += part.text;
        } else {
          source += `(${part.converter.regex.source.replace(/^\^/, '').replace(/\$$/, '')})`;
          literal = false;
        }
      }
      return { regex: new RegExp(`${source}$`), prefix, literal };
    });
  }

  /**
   * True when some route's pattern (converters included) matches `path`, a
   * decoded path with a leading `/`. Used for Django's APPEND_SLASH redirect,
   * not on the routing hot path.
   */
  matchesPath(path: string): boolean {
    this.matchers ??= this.compileMatchers();
    return this.matchers.some((m) => m.regex.test(path));
  }

  /** Names known to the registry (for error messages and the API root). */
  names(): string[] {
    return [...this.byName.keys()];
  }

  hasName(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * Whether `reverse(name, { [param]: n })` is the same path for every
   * non-negative safe integer `n` but for the digits of `n` themselves: the
   * route it picks for such a value takes `param` alone, through a built-in
   * converter that writes the number's digits as they are (`int`, `str`,
   * `slug`, `path`). Hyperlinked fields then reverse once per request and
   * only put each row's key in (see serializers/relations.ts).
   */
  /**
   * The path `reverse(name, { [param]: n })` gives for a non-negative safe
   * integer `n`, as the text before and after `n`'s digits, when
   * `integerReverseIsPlain`; else `null`. Worked out once per name and
   * parameter (again after routes are added).
   */
  integerPathTemplate(name: string, param: string): readonly [string, string] | null {
    const key = `${name}\u0000${param}`;
    let template = this.integerTemplates.get(key);
    if (template !== undefined) return template;
    template = null;
    if (this.integerReverseIsPlain(name, param)) {
      const parts = this.reverse(name, { [param]: INTEGER_STAND_IN }).split(String(INTEGER_STAND_IN));
      if (parts.length === 2) template = [parts[0]!, parts[1]!];
    }
    this.integerTemplates.set(key, template);
    return template;
  }

  private readonly integerTemplates = new Map<string, readonly [string, string] | null>();

  integerReverseIsPlain(name: string, param: string): boolean {
    const candidates = this.byName.get(name);
    if (!candidates) return false;
    for (const route of candidates) {
      if (route.paramNames.length !== 1 || route.paramNames[0] !== param) continue;
      // The first route taking just `param` whose converter accepts digits is the one reverse picks.
      const part = route.parts.find((p) => p.kind === 'param');
      if (part === undefined || part.kind !== 'param') return false;
      // uuid refuses digits, so reverse goes on to the next route; a converter of the app's own is not known.
      if (part.converter === BUILTIN_CONVERTERS.get('uuid')) continue;
      return DIGITS_AS_THEY_ARE.some((n) => part.converter === BUILTIN_CONVERTERS.get(n));
    }
    return false;
  }

  /**
   * The path (with leading `/`) of the named route filled with `params`.
   * Throws `NoReverseMatch` when no route of that name accepts them.
   */
  reverse(name: string, params: ReverseParams = {}): string {
    const candidates = this.byName.get(name);
    if (!candidates) throw new NoReverseMatch(`Reverse for '${name}' not found. '${name}' is not a valid view name.`);
    const given = Object.keys(params);
    outer: for (const route of candidates) {
      if (given.length !== route.paramNames.length || !given.every((g) => route.paramNames.includes(g))) continue;
      let out = '/';
      for (const part of route.parts) {
        if (part.kind === 'text') {
          out += part.text;
          continue;
        }
        const text = part.converter.toUrl(params[part.name]);
        if (!part.converter.regex.test(text)) continue outer;
        out += part.converterName === 'path' ? text.split('/').map(quoteSegment).join('/') : quoteSegment(text);
      }
      return out;
    }
    throw new NoReverseMatch(
      `Reverse for '${name}' with arguments '${JSON.stringify(params)}' not found. ` +
        `${candidates.length} pattern(s) tried: ${candidates.map((c) => `'${c.match.pattern}'`).join(', ')}`,
    );
  }
}

/**
 * Converts Fastify's positional parameters with the route's converters;
 * `null` when a segment does not match (the route does not apply).
 */
export function convertParams(route: CompiledRoute, raw: Record<string, string | undefined>): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let i = 0;
  for (const part of route.parts) {
    if (part.kind !== 'param') continue;
    const value = part.converterName === 'path' ? raw['*'] : raw[`p${i}`];
    i++;
    if (value === undefined || !part.converter.regex.test(value)) return null;
    try {
      out[part.name] = part.converter.toValue(value);
    } catch {
      return null;
    }
  }
  return out;
}

const groupCounts = new WeakMap<RegExp, number>();

/** How many capture groups `regex` has (counted once per regex). */
function captureGroups(regex: RegExp): number {
  let n = groupCounts.get(regex);
  if (n === undefined) {
    n = new RegExp(`${regex.source}|`).exec('')!.length - 1;
    groupCounts.set(regex, n);
  }
  return n;
}
