/**
 * Whether year `y`, month `m` (1–12) and day `d` name a day of the
 * proleptic Gregorian calendar from year 1 on (Python's `date`), by
 * arithmetic: no `Date` built per value.
 */
export function validDate(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  if (d <= 28) return true;
  if (m !== 2) return d <= (m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31);
  return d === 29 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}
