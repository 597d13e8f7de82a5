import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { openDatabase, type Database, type PgPoolOptions } from '../db/database.js';
import { migrate, type AppMigrations } from '../db/migrate.js';
import { parseDatabaseUrl, redactUrl } from '../db/url.js';
import { loadPg } from '../db/pg-module.js';
import { loadProject } from '../cli/load-project.js';
import type { ProjectConfig } from '../project.js';

/** Options of `testDatabase`. */
export interface TestDatabaseOptions {
  /**
   * The server to use: `sqlite::memory:` or a `postgres://` URL. Defaults to
   * `DATABASE_URL` when it names PostgreSQL, else SQLite in memory. A
   * SQLite file is refused: it would not be fresh.
   */
  url?: string;
  /**
   * The project whose migrations are applied after Trestle's, as
   * `trestle migrate` applies them: its config, or the path of its
   * `trestle.config.ts` (needed when it reads a `migrationsDir`).
   */
  project?: ProjectConfig | string;
  /** Migrations to apply after Trestle's (and after the project's, when both are given). */
  migrations?: AppMigrations;
  /** Set to `false` for an empty database (no migration applied). */
  migrate?: boolean;
  /** `pg.Pool` settings for PostgreSQL (default `{ max: 4 }`). */
  pgPool?: PgPoolOptions;
}

/** A fresh, migrated database of its own; `close()` throws it away. */
export interface TestDatabase extends Database {
  /** The PostgreSQL schema it lives in (dropped by `close()`); `null` for SQLite. */
  readonly schema: string | null;
}

/**
 * A fresh database for one test file, migrated as `trestle migrate` would
 * migrate it (Trestle's tables, then the project's):
 *
 * - SQLite in memory by default: nothing is written to disk;
 * - on PostgreSQL (`DATABASE_URL=postgres://…` or `url`), a private schema
 *   `trestle_test_<random>` created for it, every pooled connection's
 *   `search_path` set to it, and the schema dropped (`CASCADE`) by `close()`.
 *
 * Two test databases never see each other's rows, so test files may run in
 * parallel against one PostgreSQL server.
 *
 * @example
 * const database = await testDatabase({ project });
 * // … createApp({ database, … }) …
 * await database.close();
 */
export async function testDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const url = options.url ?? defaultTestUrl();
  const parsed = parseDatabaseUrl(url);
  const migrations = await projectMigrations(options);
  if (parsed.dialect === 'sqlite') {
    if (!parsed.memory) throw new Error(`testDatabase() opens SQLite in memory (sqlite::memory:), not ${redactUrl(url)}: a file would not be fresh.`);
    const database = await openDatabase('sqlite::memory:');
    return migrated({ ...bind(database), schema: null }, migrations, options.migrate);
  }
  const schema = `trestle_test_${randomBytes(8).toString('hex')}`;
  await adminQuery(url, `CREATE SCHEMA "${schema}"`);
  let database: Database;
  try {
    database = await openDatabase(withSearchPath(url, schema), { pgPool: options.pgPool ?? { max: 4 } });
  } catch (err) {
    await adminQuery(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    throw err;
  }
  let closing: Promise<void> | null = null;
  const test: TestDatabase = {
    db: database.db,
    dialect: database.dialect,
    url: database.url,
    schema,
    close() {
      closing ??= database.close().finally(() => adminQuery(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
      return closing;
    },
  };
  return migrated(test, migrations, options.migrate);
}

function bind(database: Database): Database {
  return { db: database.db, dialect: database.dialect, url: database.url, close: () => database.close() };
}

async function migrated(database: TestDatabase, migrations: AppMigrations, run = true): Promise<TestDatabase> {
  if (!run) return database;
  try {
    await migrate(database, migrations);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** `DATABASE_URL` when it names PostgreSQL; SQLite in memory otherwise. */
function defaultTestUrl(): string {
  const env = process.env['DATABASE_URL'];
  return env !== undefined && /^postgres(ql)?:\/\//i.test(env) ? env : 'sqlite::memory:';
}

/** The project's migrations as `trestle migrate` gathers them, then `options.migrations`. */
async function projectMigrations(options: TestDatabaseOptions): Promise<AppMigrations> {
  const project = await resolveProject(options.project);
  return { ...(project?.migrations ?? {}), ...(options.migrations ?? {}) };
}

/** A project given as a config, or loaded from its config file as the CLI loads it (with `migrationsDir`). */
export async function resolveProject(project: ProjectConfig | string | undefined): Promise<ProjectConfig | undefined> {
  if (project === undefined) return undefined;
  if (typeof project === 'string') {
    const file = resolve(project);
    return (await loadProject(dirname(file), file, process.env)).config;
  }
  if (project.migrationsDir !== undefined) {
    throw new Error('This project reads its migrations from `migrationsDir`, relative to its config file: pass the file\'s path (project: "trestle.config.ts").');
  }
  return project;
}

/** The URL with `search_path` set to `schema` for every connection (libpq's `options`), other options kept. */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  const previous = parsed.searchParams.get('options');
  const option = `-c search_path=${schema}`;
  parsed.searchParams.set('options', previous ? `${previous} ${option}` : option);
  return parsed.toString();
}

async function adminQuery(url: string, text: string): Promise<void> {
  const pg = loadPg();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
