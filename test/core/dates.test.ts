/**
 * `validDate` decides by arithmetic what a `Date` built from the parts
 * would say: the day exists in the proleptic Gregorian calendar, from year
 * 1 to 9999 (Python's `date`). Checked against `Date` for every day number
 * 0–32 of every month 0–13 of years chosen for their leap rules, and on
 * random parts (the filters' and serializer fields' own checks through HTTP
 * are in test/filters/model-filters.test.ts and
 * test/serializers/fields-http.test.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validDate } from '../../src/utils/dates.js';

function byDate(y: number, m: number, d: number): boolean {
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31) return false;
  const date = new Date(Date.UTC(2000, m - 1, d));
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

describe('validDate', () => {
  it('agrees with Date on every day of the years that test the leap rules', () => {
    for (const y of [1, 2, 4, 96, 99, 100, 200, 400, 1600, 1700, 1900, 1999, 2000, 2023, 2024, 2100, 9996, 9999]) {
      for (let m = 0; m <= 13; m++) for (let d = 0; d <= 32; d++) expect(validDate(y, m, d), `${y}-${m}-${d}`).toBe(byDate(y, m, d));
    }
  });

  it('agrees with Date on random parts', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 9999 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 }), (y, m, d) => {
        expect(validDate(y, m, d)).toBe(byDate(y, m, d));
      }),
      { numRuns: 20_000 },
    );
  });
});
