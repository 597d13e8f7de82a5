/**
 * Python's `str()` of a number parsed from JSON, which DRF's `CharField`
 * stores: integers as digits, `1e999` (an overflow) as `inf`, small
 * fractions in Python's exponent form (`1e-05`). JSON `1.0` and `1` are the
 * same number here, so both give `1` (Python: `1.0` and `1`).
 */
export function pythonStr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (Number.isInteger(n)) return BigInt(n).toString();
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp < -4) return `${mantissa}e-${String(-exp).padStart(2, '0')}`;
  return String(n);
}
