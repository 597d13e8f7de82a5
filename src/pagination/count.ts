import { ImproperlyConfigured } from '../exceptions.js';
import type { CountStrategy } from './base.js';
import type { PageSource } from './source.js';
import { thenOf } from '../utils/thenable.js';

/** Under `'estimated'`, the default below which an estimate is replaced by an exact count (pagination styles and the admin's change list). */
export const ESTIMATED_COUNT_THRESHOLD = 10_000;

/** A count as a style reports it. `exact: false` means pages are probed by fetching one extra row. */
export interface CountResult {
  readonly count: number | null;
  readonly exact: boolean;
  /** Set only under `{ capped: N }`: whether the real count is above N. */
  readonly capped?: boolean;
}

/**
 * Counts `src` with `strategy`; see `CountStrategy`. Without a promise
 * where the source counts at once (SQLite's exact and capped counts).
 */
export function countWith<T>(src: PageSource<T>, strategy: CountStrategy, estimatedThreshold: number): CountResult | Promise<CountResult> {
  const exact = (): CountResult | Promise<CountResult> => thenOf(src.countNow ? src.countNow() : src.count(), (count) => ({ count, exact: true }));
  if (strategy === 'exact') return exact();
  if (strategy === 'none') return { count: null, exact: false };
  if (strategy === 'estimated') {
    return src.estimatedCount().then((estimate) => (estimate === null || estimate < estimatedThreshold ? exact() : { count: estimate, exact: false }));
  }
  const cap = strategy.capped;
  if (!Number.isInteger(cap) || cap < 1) throw new ImproperlyConfigured('countStrategy { capped: N } needs a positive integer N.');
  return thenOf(src.countUpToNow ? src.countUpToNow(cap + 1) : src.countUpTo(cap + 1), (n): CountResult =>
    n > cap ? { count: cap, exact: false, capped: true } : { count: n, exact: true, capped: false });
}

/** `src.slice(offset, limit)`, without a promise where the source reads at once. */
export function sliceOf<T>(src: PageSource<T>, offset: number, limit: number): T[] | Promise<T[]> {
  return src.sliceNow ? src.sliceNow(offset, limit) : src.slice(offset, limit);
}
