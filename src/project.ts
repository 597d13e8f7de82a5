import type { FastifyInstance } from 'fastify';
import type { Kysely, Migration } from 'kysely';
import type { AppDatabase } from './context.js';
import type { SettingsInput } from './settings.js';
import type { RouteEntry } from './routing/routes.js';
import type { Database } from './db/database.js';
import type { UserStore } from './users/store.js';
import type { ProjectCommand } from './cli/command.js';
import type { AnyModel } from './models/model.js';

/** What `seed` receives: the open, migrated database and the user store. */
export interface ProjectContext {
  database: Database;
  /** The same database typed by the app's `AppTypes['database']`. */
  db: Kysely<AppDatabase>;
  users: UserStore;
  /** Progress lines (the CLI prints them). */
  log?: (line: string) => void;
}

/** What a project's own `createApp` receives from `trestle serve`. */
export interface ProjectAppOptions {
  /**
   * The project's settings with the operator's environment applied (REDIS_URL,
   * SECRET_KEY, NODE_ENV). Pass them to `createApp`; the environment wins
   * either way, as `serve` runs the hook under `withOperatorEnvironment`.
   */
  settings: SettingsInput;
  routes: readonly RouteEntry[];
  database: Database;
  users: UserStore;
}

/**
 * A Trestle project, as `trestle.config.ts` describes it. Every field is
 * optional: an empty project still migrates the framework's tables and
 * manages users.
 */
export interface ProjectConfig {
  /** Settings under DRF's names, passed to `createApp`. */
  settings?: SettingsInput;
  /** The project's routes (`path()`, `include()`, `router.urls`). */
  routes?: readonly RouteEntry[];
  /** The project's own migrations, applied after the framework's, in name order. */
  migrations?: Record<string, Migration>;
  /** The project's models: `trestle makemigrations` diffs them against the migrations' state. */
  models?: readonly AnyModel[];
  /**
   * The folder of migration files (`'migrations'`, relative to the config
   * file): each file's default export joins `migrations` under its name
   * (`0001_initial`), and `trestle makemigrations` writes the next one there.
   */
  migrationsDir?: string;
  /** Used when neither `--database-url` nor `DATABASE_URL` is given. */
  databaseUrl?: string;
  /** Fills a fresh database with sample data (the example service uses it). */
  seed?: (ctx: ProjectContext) => Promise<void>;
  /** Replaces the default user store (`KyselyUserStore`). */
  userStore?: (database: Database) => UserStore;
  /** Builds the app `trestle serve` listens with; defaults to Trestle's `createApp`. */
  createApp?: (options: ProjectAppOptions) => Promise<FastifyInstance>;
  /** The project's own `trestle <name>` commands, listed by `trestle help` (see docs/cli.md). */
  commands?: readonly ProjectCommand[];
}

/**
 * Declares a project. An identity function that exists for its types:
 * `export default defineProject({ routes, migrations })`.
 */
export function defineProject(config: ProjectConfig): ProjectConfig {
  return config;
}
