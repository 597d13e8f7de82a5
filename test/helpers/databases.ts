import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { PG_TEST_URL, pgAvailable, requirePgInCi } from './pg.js';

/** A fresh, isolated database's URL, and how to throw it away. */
export interface TestDatabaseUrl {
  url: string;
  cleanup(): Promise<void>;
}

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty, isolated database; closing it deletes it. */
  open(): Promise<Database>;
  /** A fresh database URL, for tests that spawn processes. Call `cleanup()` when done. */
  freshUrl(): Promise<TestDatabaseUrl>;
}

/**
 * The databases every data test runs against: SQLite always, PostgreSQL when
 * it answers (required when `CI` is set). Use with
 * `describe.each(testDatabases())('users on $name', ({ open }) => …)`.
 */
export function testDatabases(): TestDatabase[] {
  requirePgInCi();
  const list: TestDatabase[] = [{ name: 'sqlite', open: () => openFresh(freshSqliteUrl()), freshUrl: async () => freshSqliteUrl() }];
  if (pgAvailable()) list.push({ name: 'postgres', open: async () => openFresh(await freshPgUrl()), freshUrl: freshPgUrl });
  return list;
}

async function openFresh(target: TestDatabaseUrl | Promise<TestDatabaseUrl>): Promise<Database> {
  const { url, cleanup } = await target;
  let database: Database;
  try {
    database = await openDatabase(url, { pgPool: { max: 4 } });
  } catch (err) {
    await cleanup();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    db: database.db,
    dialect: database.dialect,
    url: database.url,
    close() {
      closing ??= database.close().finally(cleanup);
      return closing;
    },
  };
}

/** A SQLite file in its own temp directory (WAL needs a real file to be exercised). */
export function freshSqliteUrl(): TestDatabaseUrl {
  const dir = mkdtempSync(join(tmpdir(), 'trestle-db-'));
  return {
    url: `sqlite:${join(dir, 'test.sqlite3')}`,
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh PostgreSQL schema `t_<run>_<random>`; the URL sets `search_path` to
 * it through the `options` parameter, so every pooled connection (and every
 * child process given the URL) works inside it. The schema is dropped when
 * the whole run ends (test/helpers/global-setup.ts), not by `cleanup()`:
 * dropping schemas while other files run breaks their catalogue queries.
 */
export async function freshPgUrl(): Promise<TestDatabaseUrl> {
  const run = process.env['TRESTLE_TEST_RUN'] ?? 'local';
  const schema = `t_${run}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_TEST_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    cleanup: async () => {},
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_TEST_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A table of this database as Kysely's introspection describes it. On
 * PostgreSQL introspection lists the tables of every schema, and other test
 * files' schemas may hold a table of the same name: only the current schema's
 * counts.
 */
export async function ownTable(database: Database, name: string) {
  const schema =
    database.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s
      : undefined;
  const tables = await database.db.introspection.getTables();
  return tables.find((t) => t.name === name && t.schema === schema);
}
