/**
 * The benchmark dataset: the framework's tables (migrated by Trestle itself),
 * the bench user with a fixed token, and two item tables (10,000 and
 * 1,000,000 rows, `created` indexed for cursor ordering). The SQLite copy is
 * cached under bench/.data/; the PostgreSQL copy lives in its own schema and
 * is recognised by a marker table, so re-runs skip the load.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { TokenStore } from '../../src/authtoken/token-store.js';
import {
  BENCH_PASSWORD, BENCH_SECRET, BENCH_TOKEN, BENCH_USERNAME, DATASET_VERSION, LARGE_ROWS, LARGE_TABLE, PG_SCHEMA,
  SMALL_ROWS, SMALL_TABLE,
} from './constants.js';

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_DIR = join(BENCH_DIR, '.data');

/** Path of the cached SQLite dataset. */
export function sqlitePath(): string {
  return join(DATA_DIR, `bench-v${DATASET_VERSION}.sqlite3`);
}

/** `DATABASE_URL` of the PostgreSQL copy: the bench schema first on the search path. */
export function pgUrl(base: string): string {
  const sep = base.includes('?') ? '&' : '?';
  return `${base}${sep}options=${encodeURIComponent(`-c search_path=${PG_SCHEMA}`)}`;
}

/**
 * Writes a SQLite file with `fill` under a name of this process's own, then
 * moves it to `file` — unless another bench process, started at the same
 * time, put its copy there first (the same data): two first runs do not
 * delete each other's half-built file.
 */
export async function buildSqliteFile(file: string, fill: (database: Database) => Promise<void>): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  const tmp = `${file}.building-${process.pid}`;
  const drop = () => {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  };
  drop();
  try {
    const database = await openDatabase(`sqlite:${tmp}`);
    try {
      await fill(database);
      await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
    } finally {
      await database.close();
    }
    if (!existsSync(file)) renameSync(tmp, file);
  } finally {
    drop();
  }
}

/** Builds the SQLite dataset unless the cached file exists; returns its path. */
export async function ensureSqliteDataset(log: (line: string) => void): Promise<string> {
  const file = sqlitePath();
  if (existsSync(file)) {
    await migrateOnly(`sqlite:${file}`);
    return file;
  }
  log(`building ${file} (${SMALL_ROWS} + ${LARGE_ROWS} items, once)…`);
  const started = Date.now();
  await buildSqliteFile(file, async (database) => {
    await load(database, 'sqlite');
    await sql`analyze`.execute(database.db);
  });
  log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

/**
 * Loads the PostgreSQL copy (schema `trestle_bench`) unless its marker row
 * says this dataset version is there. Returns the URL to serve it from.
 */
export async function ensurePgDataset(baseUrl: string, log: (line: string) => void): Promise<string> {
  const admin = await openDatabase(baseUrl);
  try {
    await sql`create schema if not exists ${sql.id(PG_SCHEMA)}`.execute(admin.db);
    const marker = await sql<{ version: number }>`
      select version from ${sql.id(PG_SCHEMA)}.bench_marker where version = ${DATASET_VERSION}`
      .execute(admin.db)
      .catch(() => ({ rows: [] as { version: number }[] }));
    if (marker.rows.length > 0) {
      await migrateOnly(pgUrl(baseUrl));
      return pgUrl(baseUrl);
    }
    log(`loading PostgreSQL schema ${PG_SCHEMA} (once)…`);
    await sql`drop schema ${sql.id(PG_SCHEMA)} cascade`.execute(admin.db);
    await sql`create schema ${sql.id(PG_SCHEMA)}`.execute(admin.db);
  } finally {
    await admin.close();
  }
  const url = pgUrl(baseUrl);
  const database = await openDatabase(url);
  try {
    await load(database, 'postgres');
    await sql`analyze`.execute(database.db);
    await sql`create table bench_marker (version integer not null)`.execute(database.db);
    await sql`insert into bench_marker (version) values (${DATASET_VERSION})`.execute(database.db);
  } finally {
    await database.close();
  }
  return url;
}

/** Applies framework migrations added since the dataset was cached. */
async function migrateOnly(url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

async function load(database: Database, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await migrate(database);
  const users = new KyselyUserStore(database.db);
  const user = await users.createUser({ username: BENCH_USERNAME, password: BENCH_PASSWORD });
  const tokens = new TokenStore(database.db, { secret: BENCH_SECRET });
  await tokens.importKey(user, BENCH_TOKEN);
  // Both databases get both tables: W6 runs W1 and the deep cursor page on PostgreSQL.
  await createItems(database.db, dialect, SMALL_TABLE, SMALL_ROWS);
  await createItems(database.db, dialect, LARGE_TABLE, LARGE_ROWS);
}

/** `id`, `name` = `item <id>`, `created` = ISO text of EPOCH + id seconds; index on (created, id). */
async function createItems(db: Kysely<DB>, dialect: 'sqlite' | 'postgres', table: string, rows: number): Promise<void> {
  const t = sql.id(table);
  await sql`create table ${t} (id integer primary key, name varchar(64) not null, created varchar(32) not null)`.execute(db);
  if (dialect === 'sqlite') {
    await sql`
      insert into ${t} (id, name, created)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
      select i, 'item ' || i, strftime('%Y-%m-%dT%H:%M:%fZ', 1577836800 + i, 'unixepoch') from n`.execute(db);
  } else {
    await sql`
      insert into ${t} (id, name, created)
      select i, 'item ' || i, to_char(timestamp '2020-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      from generate_series(1, ${rows}) as i`.execute(db);
  }
  await sql`create index ${sql.id(`${table}_created_id`)} on ${t} (created, id)`.execute(db);
}

/**
 * A server's own copy of a SQLite dataset, for workloads that write to it (W8's POSTs):
 * one file per server, so two processes never share a WAL (each would re-read the pages the
 * other wrote), and on tmpfs (`/dev/shm`) where the machine has one with room, so no round
 * waits on the disk's writeback (on the ext4 disk here a POST round spent 12–20 % of its core's
 * time in iowait, by amounts that changed from round to round). Removed by `dispose`.
 */
export function workingCopy(file: string, name: string): { path: string; dispose: () => void } {
  const size = statSync(file).size;
  const dir = mkdtempSync(join(tmpfsWithRoom(size * 4) ?? tmpdir(), 'trestle-bench-'));
  const path = join(dir, `${name}.sqlite3`);
  copyFileSync(file, path);
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

function tmpfsWithRoom(bytes: number): string | null {
  try {
    const fs = statfsSync(SHM_DIR);
    return fs.bavail * fs.bsize > bytes ? SHM_DIR : null;
  } catch {
    return null;
  }
}

const SHM_DIR = '/dev/shm';
