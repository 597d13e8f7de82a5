/**
 * What the harness hands a server process: `BENCH_DATABASE` and `BENCH_PORT`.
 * Imports no database driver, so each server loads only the modules it uses.
 */

/** The database to serve: a SQLite file path or a postgres:// URL. */
export function databaseTarget(): string {
  const target = process.env['BENCH_DATABASE'];
  if (!target) throw new Error('BENCH_DATABASE is not set.');
  return target;
}

export function serverPort(): number {
  return Number(process.env['BENCH_PORT'] ?? 0);
}

/** The `DATABASE_URL` form of the target, for Trestle. */
export function databaseUrl(): string {
  const target = databaseTarget();
  return /^postgres(ql)?:\/\//.test(target) ? target : `sqlite:${target}`;
}
