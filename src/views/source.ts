import type { CompiledQuery, SelectQueryBuilder } from 'kysely';
import type { Source } from '../pagination/base.js';
import { isDatabaseInputError } from '../db/input-errors.js';
import { deriveFrom, joinedOnce, listingOf, ownCompile, type Derived } from '../db/query-shapes.js';
import { readFirstNow } from '../db/direct.js';

/** True for a Kysely select builder (as opposed to an array). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isQueryBuilder<T>(source: Source<T>): source is SelectQueryBuilder<any, any, T> {
  return !Array.isArray(source) && typeof (source as { execute?: unknown }).execute === 'function';
}

/** Every item of a source. */
export async function listAll<T>(source: Source<T>): Promise<T[]> {
  if (isQueryBuilder(source)) return (await source.execute()) as T[];
  return [...(source as readonly T[])];
}

/**
 * The first item whose `field` equals `value`, or `undefined` (also when the
 * database refuses the value for the column's type: no such item); without
 * a promise where the database answers at once (see `readNow`).
 */
export function findOneNow<T>(source: Source<T>, field: string, value: unknown): T | undefined | Promise<T | undefined> {
  if (isQueryBuilder(source)) {
    let found: Derived<T> | null;
    let row: T | null | undefined;
    try {
      found = findQuery(source, field, value);
      if (found !== null) row = readFirstNow(found.executor, found.query);
    } catch (err) {
      if (isDatabaseInputError(err)) return undefined;
      throw err;
    }
    if (row !== undefined) return row ?? undefined;
    return findOneLater(source, found, field, value);
  }
  // Path parameters are typed by their converter; compare loosely across number/string.
  return (source as readonly T[]).find((item) => String((item as Record<string, unknown>)[field]) === String(value));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function findOneLater<T>(source: SelectQueryBuilder<any, any, T>, found: Derived<T> | null, field: string, value: unknown): Promise<T | undefined> {
  try {
    if (found !== null) return (await found.executor.executeQuery(found.query)).rows[0];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (await source.where(field as any, '=', value as any).executeTakeFirst()) as T | undefined;
  } catch (err) {
    if (isDatabaseInputError(err)) return undefined;
    throw err;
  }
}

/** `find\u0002<field>` by field, each the same string every time (see `joinedOnce`). */
const findKinds = new Map<string, string>();

/**
 * `source.where(field, '=', value)` compiled by shape (see
 * src/db/query-shapes.ts): once per reused source (a model view's default
 * queryset) and field, else once per listing SQL, then only bound. `null`
 * off the app's own executor, and for a value Kysely may compile as
 * anything but one parameter (null, a list, an object).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function findQuery<T>(source: SelectQueryBuilder<any, any, T>, field: string, value: unknown): Derived<T> | null {
  const type = typeof value;
  if (type !== 'string' && type !== 'number' && type !== 'bigint') return null;
  const listing = listingOf(source);
  if (listing === null) return null;
  const executor = listing.executor;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return deriveFrom(listing, joinedOnce(findKinds, 'find\u0002', field, '', 100), [value], (v) => ownCompile(executor, source.where(field as any, '=', v[0] as any).compile()) as CompiledQuery<T> | null);
}
