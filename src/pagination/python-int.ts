/**
 * Python's `int(str)` and DRF's `_positive_int`, so query parameters are
 * accepted and refused exactly as DRF does: surrounding whitespace, a leading
 * sign, underscores between digits (`1_0`) and any Unicode decimal digit are
 * accepted; `1.0`, `0x10`, `abc` and `''` are not.
 */

/** Python's `str.isspace()` characters, which `int()` strips. */
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const INT_RE = new RegExp(`^${PY_SPACE}*([+-]?)(\\p{Nd}+(?:_\\p{Nd}+)*)${PY_SPACE}*$`, 'u');
const ND_RE = /^\p{Nd}$/u;
/** CPython's default `sys.int_info.default_max_str_digits`. */
const MAX_STR_DIGITS = 4300;

/** Thrown where Python raises `ValueError`. */
export class PythonValueError extends Error {
  override name = 'ValueError';
}

function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  // Unicode lays decimal digits out as runs of ten starting at zero.
  let start = cp;
  while (start > 0 && ND_RE.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

// Plain ASCII digits, short enough to be exact as a number: most page numbers, limits and offsets.
const PLAIN_DIGITS = /^[0-9]{1,15}$/;

/** Python's `int(value)` for a string: a bigint, or `PythonValueError`. */
export function pythonInt(value: string): bigint {
  if (PLAIN_DIGITS.test(value)) return BigInt(value);
  const m = INT_RE.exec(value);
  if (!m) throw new PythonValueError(`invalid literal for int() with base 10: '${value}'`);
  let digits = '';
  for (const ch of m[2]!) {
    if (ch !== '_') digits += String(digitValue(ch));
  }
  if (digits.length > MAX_STR_DIGITS) throw new PythonValueError('Exceeds the limit for integer string conversion');
  const n = BigInt(digits);
  return m[1] === '-' ? -n : n;
}

/**
 * DRF's `_positive_int(integer_string, strict, cutoff)`: a non-negative
 * integer (positive when `strict`), capped at `cutoff` when it is truthy.
 */
export function positiveInt(value: string, strict = false, cutoff: number | null = null): bigint {
  const n = pythonInt(value);
  if (n < 0n || (n === 0n && strict)) throw new PythonValueError('not a positive integer');
  if (cutoff) return n < BigInt(cutoff) ? n : BigInt(cutoff);
  return n;
}

/** A bigint as a number, clamped to the safe range (for slicing; exact values stay bigint in links). */
export function toSafeNumber(n: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(n > max ? max : n < -max ? -max : n);
}
