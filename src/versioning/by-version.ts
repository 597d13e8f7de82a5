import type { ApiRequest } from '../request.js';
import { NotFound } from '../exceptions.js';
import { BaseVersioning } from './base.js';

/** Picks the entry for a request's version; see `byVersion`. */
export type VersionSelector<T> = (source: ApiRequest | string | null) => T;

/**
 * A per-version choice of serializer, handler or anything else: the entry
 * whose key is the version, else `fallback`. Without a fallback an unknown
 * version raises the scheme's own "invalid version" error (404, or 406 for
 * the Accept header), never a 500.
 *
 * @example
 * const bookJson = byVersion({ v1: bookV1, v2: bookV2 }, bookV2);
 * class BookDetail extends RetrieveAPIView<Book> {
 *   override serialize(book: Book, ctx: SerializeContext) {
 *     return bookJson(ctx.request)(book, ctx);
 *   }
 * }
 */
export function byVersion<T>(table: Readonly<Record<string, T>>, fallback?: T): VersionSelector<T> {
  const entries = new Map(Object.entries(table));
  return (source) => {
    const version = typeof source === 'string' || source === null ? source : source.version;
    if (version !== null) {
      const hit = entries.get(version);
      if (hit !== undefined) return hit;
    }
    if (fallback !== undefined) return fallback;
    const scheme = typeof source === 'object' && source !== null ? source.versioningScheme : null;
    throw scheme instanceof BaseVersioning ? scheme.invalidVersion() : new NotFound('Invalid version.');
  };
}
