import { Migrator, NO_MIGRATIONS, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { withoutQueryTimeout, type Database } from './database.js';
import { frameworkMigrations } from './migrations/index.js';
import { bindModelMigrations } from '../models/migration.js';

/** Which list a migration belongs to: Trestle's own tables, or the project's. */
export type MigrationSet = 'framework' | 'app';

/** A project's migrations, keyed by name; applied in name order (Kysely's rule). */
export type AppMigrations = Record<string, Migration>;

/** Reported before and after each migration is applied. */
export interface MigrationProgress {
  set: MigrationSet;
  name: string;
  phase: 'start' | 'done';
  /** `up` when applying, `down` when unapplying (`migrateTo`). */
  direction: 'up' | 'down';
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

/** Where `migrateTo` takes one set: up to and including `name`, or `null` for none applied (Django's `zero`). */
export interface MigrationTarget {
  set: MigrationSet;
  name: string | null;
}

/** One step of a plan: a migration to apply (`up`) or to unapply (`down`). */
export interface MigrationStep {
  set: MigrationSet;
  name: string;
  direction: 'up' | 'down';
  /** Whether the migration has a `down()`; a plan that unapplies one without it cannot run. */
  reversible: boolean;
}

/** A step back that cannot run: the migration has no `down()`. */
export class IrreversibleMigration extends Error {
  override name = 'IrreversibleMigration';
  constructor(readonly step: MigrationStep) {
    super(`Migration ${step.set}/${step.name} has no down(): it cannot be unapplied.`);
  }
}

/**
 * What `migrate` (no target) or `migrateTo(target)` would run, in order,
 * without changing anything: Django's `migrate --plan`.
 */
export async function planMigrations(
  database: Database,
  appMigrations: AppMigrations = {},
  target?: MigrationTarget,
): Promise<MigrationStep[]> {
  const status = await listMigrations(database, appMigrations);
  const sets = migrationSets(appMigrations);
  return stepsFor(status, sets, target);
}

function stepsFor(
  status: MigrationStatus[],
  sets: Array<[MigrationSet, Record<string, Migration>]>,
  target: MigrationTarget | undefined,
): MigrationStep[] {
  const steps: MigrationStep[] = [];
  for (const [set, migrations] of sets) {
    if (target && target.set !== set) continue;
    const rows = status.filter((m) => m.set === set);
    const step = (name: string, direction: 'up' | 'down'): MigrationStep => ({
      set,
      name,
      direction,
      reversible: typeof migrations[name]?.down === 'function',
    });
    if (!target) {
      steps.push(...rows.filter((m) => !m.applied).map((m) => step(m.name, 'up')));
      continue;
    }
    const index = target.name === null ? -1 : rows.findIndex((m) => m.name === target.name);
    if (target.name !== null && index < 0) throw new Error(`No migration ${set}/${target.name}.`);
    const later = rows.slice(index + 1).filter((m) => m.applied).reverse();
    steps.push(...later.map((m) => step(m.name, 'down')));
    steps.push(...rows.slice(0, index + 1).filter((m) => !m.applied).map((m) => step(m.name, 'up')));
  }
  return steps;
}

export interface MigrateToResult extends MigrateResult {
  /** Migrations unapplied by this run (their `down()` ran), in order. */
  unapplied: Array<{ set: MigrationSet; name: string }>;
}

/**
 * Moves one set to `target`, as Django's `migrate <app> <name>`: unapplies
 * (runs `down()` of) every applied migration after it, newest first, and
 * applies the pending ones up to it; `name: null` unapplies them all
 * (`migrate <app> zero`). Refuses before changing anything when a
 * migration to unapply has no `down()` (`IrreversibleMigration`). Runs
 * under the same lock as `migrate`.
 */
export async function migrateTo(
  database: Database,
  appMigrations: AppMigrations,
  target: MigrationTarget,
  options: MigrateOptions = {},
): Promise<MigrateToResult> {
  const sets = migrationSets(appMigrations);
  const migrations = sets.find(([set]) => set === target.set)![1];
  if (target.name !== null && !(target.name in migrations)) throw new Error(`No migration ${target.set}/${target.name}.`);
  return withMigrationLock(database, async (conn, schema) => {
    const status: MigrationStatus[] = [];
    for (const info of await migrator(conn, target.set, migrations, schema).getMigrations()) {
      status.push({ set: target.set, name: info.name, applied: info.executedAt !== undefined, appliedAt: info.executedAt ?? null });
    }
    const steps = stepsFor(status, sets, target);
    const irreversible = steps.find((s) => s.direction === 'down' && !s.reversible);
    if (irreversible) throw new IrreversibleMigration(irreversible);
    const result: MigrateToResult = { applied: [], unapplied: [] };
    if (steps.length === 0) return result;
    const wrapped = withProgress(target.set, migrations, options.onProgress);
    const run = migrator(conn, target.set, wrapped, schema);
    const { error, results } = await run.migrateTo(target.name ?? NO_MIGRATIONS);
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? null;
      throw new MigrationError(target.set, failed, error);
    }
    for (const r of results ?? []) {
      if (r.status !== 'Success') continue;
      (r.direction === 'Up' ? result.applied : result.unapplied).push({ set: target.set, name: r.migrationName });
    }
    return result;
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
    // Model migrations (`migration({ operations })`) run from the state the earlier ones build.
    ['app', bindModelMigrations(appMigrations)],
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
    const down = migration.down;
    out[name] = {
      ...migration,
      async up(db) {
        onProgress({ set, name, phase: 'start', direction: 'up' });
        await migration.up(db);
        onProgress({ set, name, phase: 'done', direction: 'up' });
      },
      ...(down
        ? {
            async down(db: Kysely<unknown>) {
              onProgress({ set, name, phase: 'start', direction: 'down' });
              await down(db);
              onProgress({ set, name, phase: 'done', direction: 'down' });
            },
          }
        : {}),
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
  // Waiting for the lock and building an index may take longer than a request's timeouts.
  return withoutQueryTimeout(async () => {
    await sql`set statement_timeout = 0`.execute(conn);
    try {
      const schema = await currentSchema(conn);
      const key = `trestle_migrate:${schema}`;
      await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
      try {
        return await fn(conn, schema);
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
      }
    } finally {
      // A connection too broken to answer this is dropped by the pool anyway.
      await sql`reset statement_timeout`.execute(conn).catch(() => {});
    }
  });
}

async function withImmediateTransaction<R>(
  conn: Kysely<unknown>,
  fn: (conn: Kysely<unknown>, schema: string | undefined) => Promise<R>,
): Promise<R> {
  const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
  const previousTimeout = Number(rows[0]?.timeout ?? 5000);
  const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(conn);
  const enforced = Number(keys.rows[0]?.foreign_keys ?? 0) === 1;
  await sql.raw(`pragma busy_timeout = ${SQLITE_MIGRATION_WAIT_MS}`).execute(conn);
  // As Django's SQLite schema editor: keys are not enforced while tables are
  // rebuilt (dropping a referenced table would fire its ON DELETE actions),
  // and every key is checked before the run commits.
  if (enforced) await sql`pragma foreign_keys = off`.execute(conn);
  try {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn, undefined);
      if (enforced) await checkForeignKeys(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  } finally {
    if (enforced) await sql`pragma foreign_keys = on`.execute(conn);
    await sql.raw(`pragma busy_timeout = ${previousTimeout}`).execute(conn);
  }
}

async function checkForeignKeys(conn: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ table: string; rowid: number; parent: string }>`pragma foreign_key_check`.execute(conn);
  const bad = rows[0];
  if (bad) throw new Error(`Foreign key violation: ${bad.table} row ${bad.rowid} points at a missing ${bad.parent} row.`);
}
