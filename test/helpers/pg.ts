import { execFileSync } from 'node:child_process';

/**
 * PostgreSQL for tests. `TRESTLE_TEST_PG_URL` overrides the default server
 * (`postgres://postgres@127.0.0.1:5432/test`, trust auth).
 */
export const PG_TEST_URL = process.env['TRESTLE_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

let cached: boolean | undefined;

/**
 * Whether the test PostgreSQL answers a query. Synchronous (a short child
 * process) so it can decide `describe.each` tables at collection time;
 * the answer is cached per test file.
 */
export function pgAvailable(): boolean {
  if (cached !== undefined) return cached;
  const probe = `
    const pg = require('pg');
    const c = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.query('select 1')).then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
  `;
  try {
    execFileSync(process.execPath, ['-e', probe, PG_TEST_URL], { stdio: 'ignore', timeout: 5_000 });
    cached = true;
  } catch {
    cached = false;
  }
  return cached;
}

/**
 * Throws when `CI` is set and PostgreSQL does not answer: in CI the
 * PostgreSQL tests are required, not skipped.
 */
export function requirePgInCi(): void {
  if (process.env['CI'] && !pgAvailable()) {
    throw new Error(
      `PostgreSQL is required when CI is set, but ${PG_TEST_URL} does not answer. Start it (see .ci/run) or set TRESTLE_TEST_PG_URL.`,
    );
  }
}
