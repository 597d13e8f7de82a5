import { createRequire } from 'node:module';
import type pg from 'pg';

let pgModule: typeof pg | null = null;

/**
 * `pg`, loaded when a PostgreSQL database is first opened: a SQLite-only
 * process does not carry it (about 15 MB of RSS). Internal: kept out of
 * every published declaration, so the package's types need no `@types/pg`.
 */
export function loadPg(): typeof pg {
  return (pgModule ??= createRequire(import.meta.url)('pg') as typeof pg);
}
