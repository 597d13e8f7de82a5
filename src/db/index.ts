export { openDatabase, SQLITE_BUSY_TIMEOUT_MS, PG_STATEMENT_TIMEOUT_MS, withoutQueryTimeout, type Database, type OpenDatabaseOptions, type PgPoolOptions } from './database.js';
export { registerSqliteFunctions, SQLITE_FOLD_FUNCTION } from './sqlite-functions.js';
export { DEFAULT_DATABASE_URL, parseDatabaseUrl, redactUrl } from './url.js';
export { dialectOf, type DialectName } from './dialect.js';
export * from './schema.js';
export {
  migrate,
  migrateTo,
  planMigrations,
  listMigrations,
  MigrationError,
  IrreversibleMigration,
  type AppMigrations,
  type MigrateToResult,
  type MigrationStep,
  type MigrationTarget,
  type MigrateOptions,
  type MigrateResult,
  type MigrationProgress,
  type MigrationSet,
  type MigrationStatus,
} from './migrate.js';
export { frameworkMigrations } from './migrations/index.js';
export { registerDataServices } from './services.js';
