import { compareValues } from '../pagination/source.js';

/**
 * Orders two values as SQL's default does on PostgreSQL: NULLs last
 * ascending, first descending; numbers and dates numerically, text by code
 * unit.
 */
export function compareNullable(a: unknown, b: unknown, descending: boolean): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) {
    if (an && bn) return 0;
    return an ? (descending ? -1 : 1) : descending ? 1 : -1;
  }
  const c = compareValues(a, b);
  return descending ? -c : c;
}
