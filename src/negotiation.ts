import { NotAcceptable, NotFound } from './exceptions.js';
import { mediaTypeMatches, orderByPrecedence, parseAccept, parseMediaType, type MediaType } from './media-types.js';
import type { Renderer } from './renderers/base.js';

const parsedRendererTypes = new WeakMap<Renderer, MediaType>();
function rendererType(r: Renderer): MediaType {
  let t = parsedRendererTypes.get(r);
  if (!t) {
    t = parseMediaType(r.mediaType);
    parsedRendererTypes.set(r, t);
  }
  return t;
}

// Most clients send one of a handful of Accept headers: parse each once.
const acceptCache = new Map<string, MediaType[][]>();
function acceptGroups(header: string | undefined): MediaType[][] {
  const key = header ?? '';
  let groups = acceptCache.get(key);
  if (!groups) {
    groups = orderByPrecedence(parseAccept(header));
    if (acceptCache.size > 500) acceptCache.clear();
    acceptCache.set(key, groups);
  }
  return groups;
}

/**
 * DRF's DefaultContentNegotiation: walk the client's media types from most
 * to least specific (ignoring `q`), and pick the first renderer that
 * satisfies one. The accepted media type keeps the client's parameters
 * (`version=`, `indent=`). 406 when nothing fits; `force` picks the first
 * renderer instead (used to render errors).
 */
export function negotiateRenderer(
  renderers: readonly Renderer[],
  accept: string | undefined,
  force = false,
): [Renderer, MediaType] {
  if (renderers.length === 0) throw new Error('A view needs at least one renderer.');
  if (force) return [renderers[0]!, rendererType(renderers[0]!)];
  for (const group of acceptGroups(accept)) {
    for (const renderer of renderers) {
      const offered = rendererType(renderer);
      for (const wanted of group) {
        if (!mediaTypeMatches(offered, wanted)) continue;
        if (offered.precedence > wanted.precedence) {
          // The client sent a wildcard: answer with the renderer's type plus the client's parameters.
          const params = Object.entries(wanted.params).map(([k, v]) => `${k}=${v}`);
          const raw = [renderer.mediaType, ...params].join(';');
          return [renderer, params.length ? parseMediaType(raw) : offered];
        }
        return [renderer, wanted];
      }
    }
  }
  throw new NotAcceptable();
}

/** `?format=json`: the renderers with that format, or 404 as DRF's `filter_renderers`. */
export function rendererForFormat(renderers: readonly Renderer[], format: string): Renderer[] {
  const matching = renderers.filter((r) => r.format === format);
  if (matching.length === 0) throw new NotFound();
  return matching;
}
