/**
 * Database errors a client's input can cause: a value the column type
 * rejects (`'abc'` or `2147483648` for a PostgreSQL `integer`, a NUL byte in
 * text). They are the client's mistake, never a 500: a lookup that hits one
 * finds nothing (404, as Django's `get_object_or_404` turns `ValueError` into
 * `Http404`), anything else is a 400.
 */
export function isDatabaseInputError(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  // PostgreSQL SQLSTATE class 22: data exception (bad syntax for the type, out of range, bad encoding).
  if (code.length === 5 && code.startsWith('22') && (err as { severity?: unknown }).severity !== undefined) return true;
  // SQLite: a non-integer for a rowid, or a value over SQLITE_MAX_LENGTH.
  return code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG';
}
