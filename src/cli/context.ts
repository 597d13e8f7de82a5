import { openDatabase, type Database } from '../db/database.js';
import { DEFAULT_DATABASE_URL } from '../db/url.js';
import { listMigrations } from '../db/migrate.js';
import { KyselyUserStore } from '../users/kysely-user-store.js';
import type { UserStore } from '../users/store.js';
import type { ProjectContext } from '../project.js';
import { CliError, type CliIO, type CommandContext, type GlobalOptions } from './command.js';
import { loadProject, type LoadedProject } from './load-project.js';

/** A command context plus the `close()` that `main` calls when the command ends. */
export interface ClosableContext extends CommandContext {
  close(): Promise<void>;
}

/**
 * The database URL for a run: `--database-url`, else `DATABASE_URL`, else
 * the project's `databaseUrl`, else `sqlite:./data/trestle.sqlite3`.
 */
export function resolveDatabaseUrl(globals: GlobalOptions, env: NodeJS.ProcessEnv, project: LoadedProject): string {
  return globals.databaseUrl ?? env['DATABASE_URL'] ?? project.config.databaseUrl ?? DEFAULT_DATABASE_URL;
}

/** Builds the lazily-opening context a command runs with (`loaded`: the project, when already loaded). */
export function createCommandContext(
  io: CliIO,
  globals: GlobalOptions,
  cwd: string,
  env: NodeJS.ProcessEnv,
  loaded?: Promise<LoadedProject>,
): ClosableContext {
  let project: Promise<LoadedProject> | null = loaded ?? null;
  let database: Promise<Database> | null = null;
  let users: Promise<UserStore> | null = null;

  const ctx: ClosableContext = {
    cwd,
    env,
    io,
    globals,
    print: (line) => void io.stdout.write(`${line}\n`),
    warn: (line) => void io.stderr.write(`${line}\n`),
    project: () => (project ??= loadProject(cwd, globals.config, env)),
    database: () =>
      (database ??= ctx.project().then((p) => openDatabase(resolveDatabaseUrl(globals, env, p)))),
    users: () =>
      (users ??= (async () => {
        const [p, db] = await Promise.all([ctx.project(), ctx.database()]);
        await ensureFrameworkMigrated(db);
        return p.config.userStore ? p.config.userStore(db) : new KyselyUserStore(db.db);
      })()),
    async services() {
      const [database, users] = await Promise.all([ctx.database(), ctx.users()]);
      // The project's tables are its own (`AppTypes`); the framework only opened the connection.
      return { database, db: database.db as unknown as ProjectContext['db'], users, log: ctx.print };
    },
    async close() {
      if (database) await (await database.catch(() => null))?.close();
    },
  };
  return ctx;
}

/** A clear error instead of "no such table" when `trestle migrate` has not run. */
async function ensureFrameworkMigrated(database: Database): Promise<void> {
  const pending = (await listMigrations(database)).filter((m) => m.set === 'framework' && !m.applied);
  if (pending.length > 0) {
    throw new CliError(
      `The database ${database.url} has unapplied migrations (${pending.map((m) => m.name).join(', ')}): run "trestle migrate" first.`,
    );
  }
}
