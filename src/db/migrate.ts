import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
import { frameworkMigrations } from './migrations/index.js';

/** Which list a migration belongs to: Trestle's own tables, or the project's. */
export type MigrationSet = 'framework' | 'app';

/** A project's migrations, keyed by name; applied in name order (Kysely's rule). */
export type AppMigrations = Record<string, Migration>;

/** Reported before and after each migration is applied. */
export interface MigrationProgress {
  set: MigrationSet;
  name: string;
  phase: 'start' | 'done';
}

export interface MigrateOptions {
  /** Called as each migration starts and finishes (the CLI prints a line). */
  onProgress?: (event: MigrationProgress) => void;
}

export interface MigrateResult {
  /** Migrations applied by this run, in order; empty when already up to date. */
  applied: Array<{ set: MigrationSet; name: string }>;
}

/** One row of `trestle migrate --list`. */
export interface MigrationStatus {
  set: MigrationSet;
  name: string;
  applied: boolean;
  appliedAt: Date | null;
}

/** A migration failed; nothing of the failed run is left half-applied (see docs/database.md). */
export class MigrationError extends Error {
  override name = 'MigrationError';
  constructor(
    readonly set: MigrationSet,
    readonly migration: string | null,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(migration ? `Migration ${set}/${migration} failed: ${reason}` : `Migrating ${set} failed: ${reason}`, {
      cause,
    });
  }
}

/** Kysely bookkeeping tables, one pair per set. */
const TABLES: Record<MigrationSet, { table: string; lockTable: string }> = {
  framework: { table: 'trestle_migration', lockTable: 'trestle_migration_lock' },
  app: { table: 'trestle_app_migration', lockTable: 'trestle_app_migration_lock' },
};

/** How long a SQLite migrator waits for another process's migration, in ms. */
const SQLITE_MIGRATION_WAIT_MS = 120_000;

/**
 * Applies every pending migration: the framework's first, then the
 * project's. Idempotent, and safe to run from several processes at once:
 * the whole check-and-apply runs under one database-wide lock
 * (`pg_advisory_lock` on PostgreSQL, a `BEGIN IMMEDIATE` write transaction on
 * SQLite), so each migration is applied exactly once.
 */
export async function migrate(
  database: Database,
  appMigrations: AppMigrations = {},
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  return withMigrationLock(database, async (conn, schema) => {
    const applied: MigrateResult['applied'] = [];
    for (const [set, migrations] of migrationSets(appMigrations)) {
      const wrapped = withProgress(set, migrations, options.onProgress);
      const { error, results } = await migrator(conn, set, wrapped, schema).migrateToLatest();
      if (error) {
        const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? null;
        throw new MigrationError(set, failed, error);
      }
      for (const r of results ?? []) {
        if (r.status === 'Success') applied.push({ set, name: r.migrationName });
      }
    }
    return { applied };
  });
}

/** Every known migration and whether it has been applied, framework first. */
export async function listMigrations(
  database: Database,
  appMigrations: AppMigrations = {},
): Promise<MigrationStatus[]> {
  const schema = database.dialect === 'postgres' ? await currentSchema(database.db) : undefined;
  const out: MigrationStatus[] = [];
  for (const [set, migrations] of migrationSets(appMigrations)) {
    for (const info of await migrator(database.db, set, migrations, schema).getMigrations()) {
      out.push({ set, name: info.name, applied: info.executedAt !== undefined, appliedAt: info.executedAt ?? null });
    }
  }
  return out;
}

function migrationSets(appMigrations: AppMigrations): Array<[MigrationSet, Record<string, Migration>]> {
  const framework: Record<string, Migration> = {};
  let previous = '';
  for (const [name, migration] of frameworkMigrations) {
    if (name <= previous) throw new Error(`Framework migration "${name}" must sort after "${previous}".`);
    framework[name] = migration;
    previous = name;
  }
  return [
    ['framework', framework],
    ['app', appMigrations],
  ];
}

function withProgress(
  set: MigrationSet,
  migrations: Record<string, Migration>,
  onProgress: MigrateOptions['onProgress'],
): Record<string, Migration> {
  if (!onProgress) return migrations;
  const out: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    out[name] = {
      ...migration,
      async up(db) {
        onProgress({ set, name, phase: 'start' });
        await migration.up(db);
        onProgress({ set, name, phase: 'done' });
      },
    };
  }
  return out;
}

function migrator<T>(db: Kysely<T>, set: MigrationSet, migrations: Record<string, Migration>, schema?: string): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  return new Migrator({
    db,
    provider,
    migrationTableName: TABLES[set].table,
    migrationLockTableName: TABLES[set].lockTable,
    // On PostgreSQL the bookkeeping tables are looked up in the connection's
    // own schema; without this, Kysely would see another schema's tables.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

async function currentSchema<T>(db: Kysely<T>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check the search_path of the database URL.');
  return schema;
}

/**
 * Runs `fn` on one connection while holding the migration lock.
 * PostgreSQL: a session advisory lock keyed on the current schema.
 * SQLite: `BEGIN IMMEDIATE` takes the database's single write lock; the run
 * commits as one transaction (or rolls back as one).
 */
async function withMigrationLock<R>(
  database: Database,
  fn: (conn: Kysely<unknown>, schema: string | undefined) => Promise<R>,
): Promise<R> {
  return database.db.connection().execute(async (connection) => {
    const conn = connection as unknown as Kysely<unknown>;
    return database.dialect === 'postgres' ? withAdvisoryLock(conn, fn) : withImmediateTransaction(conn, fn);
  });
}

async function withAdvisoryLock<R>(
  conn: Kysely<unknown>,
  fn: (conn: Kysely<unknown>, schema: string | undefined) => Promise<R>,
): Promise<R> {
  const schema = await currentSchema(conn);
  const key = `trestle_migrate:${schema}`;
  await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
  try {
    return await fn(conn, schema);
  } finally {
    await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
  }
}

async function withImmediateTransaction<R>(
  conn: Kysely<unknown>,
  fn: (conn: Kysely<unknown>, schema: string | undefined) => Promise<R>,
): Promise<R> {
  const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
  const previousTimeout = Number(rows[0]?.timeout ?? 5000);
  await sql.raw(`pragma busy_timeout = ${SQLITE_MIGRATION_WAIT_MS}`).execute(conn);
  try {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn, undefined);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  } finally {
    await sql.raw(`pragma busy_timeout = ${previousTimeout}`).execute(conn);
  }
}
