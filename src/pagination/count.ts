import { ImproperlyConfigured } from '../exceptions.js';
import type { CountStrategy } from './base.js';
import type { PageSource } from './source.js';

/** Under `'estimated'`, the default below which an estimate is replaced by an exact count (pagination styles and the admin's change list). */
export const ESTIMATED_COUNT_THRESHOLD = 10_000;

/** A count as a style reports it. `exact: false` means pages are probed by fetching one extra row. */
export interface CountResult {
  readonly count: number | null;
  readonly exact: boolean;
  /** Set only under `{ capped: N }`: whether the real count is above N. */
  readonly capped?: boolean;
}

/** Counts `src` with `strategy`; see `CountStrategy`. */
export async function countWith<T>(src: PageSource<T>, strategy: CountStrategy, estimatedThreshold: number): Promise<CountResult> {
  if (strategy === 'exact') return { count: await src.count(), exact: true };
  if (strategy === 'none') return { count: null, exact: false };
  if (strategy === 'estimated') {
    const estimate = await src.estimatedCount();
    if (estimate === null || estimate < estimatedThreshold) return { count: await src.count(), exact: true };
    return { count: estimate, exact: false };
  }
  const cap = strategy.capped;
  if (!Number.isInteger(cap) || cap < 1) throw new ImproperlyConfigured('countStrategy { capped: N } needs a positive integer N.');
  const n = await src.countUpTo(cap + 1);
  return n > cap ? { count: cap, exact: false, capped: true } : { count: n, exact: true, capped: false };
}
