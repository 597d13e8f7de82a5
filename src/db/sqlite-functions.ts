import { foldCase } from '../utils/case-fold.js';

/**
 * The SQL function case-insensitive lookups use on SQLite: SQLite's own
 * `upper()`/`lower()` change ASCII letters only, so `ÉCOLE` could never be
 * found by `école`. Registered on every connection `openDatabase` opens.
 */
export const SQLITE_FOLD_FUNCTION = 'trestle_upper';

/**
 * What registering needs of a connection: better-sqlite3's `Database` has it.
 * Declared here so the published types need no `@types/better-sqlite3`.
 */
export interface SqliteFunctionHost {
  function(name: string, options: { deterministic?: boolean }, fn: (...args: unknown[]) => unknown): unknown;
}

/**
 * Registers Trestle's SQL functions on a better-sqlite3 connection
 * (`openDatabase` does it; call it for a connection opened some other way
 * before search or `i…` lookups run on it). `trestle_upper(text)` is
 * `foldCase`, declared deterministic so SQLite computes it once for a
 * constant argument and may use it in indexes on expressions.
 */
export function registerSqliteFunctions(sqlite: SqliteFunctionHost): void {
  sqlite.function(SQLITE_FOLD_FUNCTION, { deterministic: true }, (value: unknown) =>
    value === null ? null : foldCase(typeof value === 'string' ? value : String(value)),
  );
}
