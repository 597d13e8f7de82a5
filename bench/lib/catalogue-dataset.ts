/**
 * The catalogue dataset of W7 and W8: the example project (the repository's
 * trestle.config.ts) migrated and seeded as `trestle migrate` and `trestle
 * seed` do it, plus the bench user and its token. Cached as a SQLite file
 * under bench/.data/ and as the PostgreSQL schema `trestle_bench_catalogue`;
 * books that W8's POSTs added are deleted when a run starts, so every run
 * sees the seeded catalogue.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { loadProject } from '../../src/cli/load-project.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { TokenStore } from '../../src/authtoken/token-store.js';
import { BENCH_PASSWORD, BENCH_SECRET, BENCH_TOKEN, BENCH_USERNAME } from './constants.js';
import { BENCH_DIR, DATA_DIR, buildSqliteFile } from './dataset.js';

/** Bumped when the catalogue dataset's making changes; part of the cached file's name. */
export const CATALOGUE_VERSION = 1;
export const CATALOGUE_PG_SCHEMA = 'trestle_bench_catalogue';
/** The repository root: its trestle.config.ts is the example project. */
export const REPO_DIR = join(BENCH_DIR, '..');

export function catalogueSqlitePath(): string {
  return join(DATA_DIR, `catalogue-v${CATALOGUE_VERSION}.sqlite3`);
}

export function cataloguePgUrl(base: string): string {
  const sep = base.includes('?') ? '&' : '?';
  return `${base}${sep}options=${encodeURIComponent(`-c search_path=${CATALOGUE_PG_SCHEMA}`)}`;
}

/** Builds the SQLite catalogue unless cached; returns its path, with the seeded books only. */
export async function ensureCatalogueSqlite(log: (line: string) => void): Promise<string> {
  const file = catalogueSqlitePath();
  if (!existsSync(file)) {
    log(`building ${file} (the example's catalogue, once)…`);
    await buildSqliteFile(file, loadCatalogue);
  }
  await resetCatalogue(`sqlite:${file}`);
  return file;
}

/** Loads the PostgreSQL catalogue unless its marker says it is there; returns the URL to serve it from. */
export async function ensureCataloguePg(baseUrl: string, log: (line: string) => void): Promise<string> {
  const url = cataloguePgUrl(baseUrl);
  const admin = await openDatabase(baseUrl);
  let present = false;
  try {
    await sql`create schema if not exists ${sql.id(CATALOGUE_PG_SCHEMA)}`.execute(admin.db);
    const marker = await sql<{ version: number }>`
      select version from ${sql.id(CATALOGUE_PG_SCHEMA)}.bench_catalogue_marker where version = ${CATALOGUE_VERSION}`
      .execute(admin.db)
      .catch(() => ({ rows: [] as { version: number }[] }));
    present = marker.rows.length > 0;
    if (!present) {
      log(`loading PostgreSQL schema ${CATALOGUE_PG_SCHEMA} (once)…`);
      await sql`drop schema ${sql.id(CATALOGUE_PG_SCHEMA)} cascade`.execute(admin.db);
      await sql`create schema ${sql.id(CATALOGUE_PG_SCHEMA)}`.execute(admin.db);
    }
  } finally {
    await admin.close();
  }
  if (!present) {
    const database = await openDatabase(url);
    try {
      await loadCatalogue(database);
    } finally {
      await database.close();
    }
  }
  await resetCatalogue(url);
  return url;
}

/** The example project's migrations and seed, then the bench user with its fixed token (the equivalence test loads a fresh schema with it). */
export async function loadCatalogue(database: Database): Promise<void> {
  const { config } = await loadProject(REPO_DIR, undefined, {});
  await migrate(database, config.migrations ?? {});
  const users = new KyselyUserStore(database.db);
  await config.seed?.({ database, db: database.db as never, users });
  const user = await users.createUser({ username: BENCH_USERNAME, password: BENCH_PASSWORD });
  await new TokenStore(database.db, { secret: BENCH_SECRET }).importKey(user, BENCH_TOKEN);
  const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const seeded = await sql<{ n: number | string }>`select max(id) as n from catalogue_book`.execute(db);
  await sql`create table bench_catalogue_marker (version integer not null, seeded_books integer not null)`.execute(db);
  await sql`insert into bench_catalogue_marker (version, seeded_books) values (${CATALOGUE_VERSION}, ${Number(seeded.rows[0]!.n)})`.execute(db);
  await sql`analyze`.execute(db);
}

/**
 * Deletes the books W8 added (ids past the seeded ones) and applies new
 * framework or project migrations. On PostgreSQL the table is vacuumed too:
 * with autovacuum off (as on this machine) each run's deleted books stayed
 * behind as dead rows in the table and its indexes, and every later run's
 * W8 met a larger table than the one before.
 */
async function resetCatalogue(url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    const { config } = await loadProject(REPO_DIR, undefined, {});
    await migrate(database, config.migrations ?? {});
    const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const marker = await sql<{ seeded_books: number }>`select seeded_books from bench_catalogue_marker`.execute(db);
    await sql`delete from catalogue_book where id > ${marker.rows[0]!.seeded_books}`.execute(db);
    if (database.dialect === 'postgres') await sql`vacuum (full, analyze) catalogue_book`.execute(db);
  } finally {
    await database.close();
  }
}
