import type { SelectQueryBuilder } from 'kysely';
import type { Source } from '../pagination/base.js';
import { isDatabaseInputError } from '../db/input-errors.js';

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
 * database refuses the value for the column's type: no such item).
 */
export async function findOne<T>(source: Source<T>, field: string, value: unknown): Promise<T | undefined> {
  if (isQueryBuilder(source)) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (await (source as SelectQueryBuilder<any, any, T>).where(field as any, '=', value as any).executeTakeFirst()) as T | undefined;
    } catch (err) {
      if (isDatabaseInputError(err)) return undefined;
      throw err;
    }
  }
  // Path parameters are typed by their converter; compare loosely across number/string.
  return (source as readonly T[]).find((item) => String((item as Record<string, unknown>)[field]) === String(value));
}
