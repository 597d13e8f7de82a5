import { randomBytes } from 'node:crypto';
import type { ServiceMap } from '../context.js';
import type { SettingsInput } from '../settings.js';
import type { RouteEntry } from '../routing/routes.js';
import type { Database } from '../db/database.js';
import type { UserStore } from '../users/store.js';
import type { SystemCheck } from '../checks/index.js';
import { createApp } from '../app.js';
import { KyselyUserStore } from '../users/kysely-user-store.js';
import { APIClient, type APIClientOptions, type TestableApp } from './api-client.js';
import { resolveProject, testDatabase, type TestDatabase, type TestDatabaseOptions } from './database.js';

/** Options of `testApp`: where its database comes from, and what differs from the project. */
export interface TestAppOptions extends TestDatabaseOptions {
  /** Settings over the project's (a random SECRET_KEY is added when neither has one). */
  settings?: SettingsInput;
  /** The routes; defaults to the project's. */
  routes?: readonly RouteEntry[];
  /** Further services, or replacements (`tokens`, `sessions`, …). */
  services?: Partial<ServiceMap>;
  /** The project's own system checks. */
  checks?: readonly SystemCheck[];
  /** An open database to use instead of a fresh one (not closed by `close()`). */
  database?: Database;
}

/** An app on a fresh test database, ready for `APIClient`. */
export interface TestApp {
  app: TestableApp;
  database: Database;
  users: UserStore;
  /** A new `APIClient` on the app. */
  client(options?: APIClientOptions): APIClient;
  /** Closes the app, then the database (dropping its schema on PostgreSQL). */
  close(): Promise<void>;
}

/**
 * The app of a project on a fresh, migrated test database (`testDatabase`),
 * as `trestle serve` builds it: the project's `createApp` when it has one,
 * else Trestle's with the project's settings, routes and user store. The
 * log is off and `ready()` has run (the system checks passed).
 *
 * @example
 * const { app, users, client, close } = await testApp({ project });
 * await users.createUser({ username: 'alice', password: 'correct horse battery staple' });
 * const res = await client({ format: 'json' }).get('/api/notes/');
 * await close();
 */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const project = (await resolveProject(options.project)) ?? {};
  let owned: TestDatabase | null = null;
  const database = options.database ?? (owned = await testDatabase({ ...options, project: undefined, migrations: { ...(project.migrations ?? {}), ...(options.migrations ?? {}) } }));
  try {
    const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
    const settings: SettingsInput = { ...(project.settings ?? {}), ...(options.settings ?? {}) };
    if (!settings.SECRET_KEY) settings.SECRET_KEY = `test-${randomBytes(24).toString('hex')}`;
    const routes = options.routes ?? project.routes ?? [];
    const app = (
      project.createApp && options.routes === undefined && options.services === undefined && options.checks === undefined
        ? await project.createApp({ settings, routes, database, users })
        : await createApp({ settings, routes, database, users, logger: false, services: options.services ?? {}, checks: options.checks ?? [] })
    ) as TestableApp;
    await app.ready();
    return {
      app,
      database,
      users,
      client: (clientOptions) => new APIClient(app, clientOptions),
      async close() {
        await app.close();
        if (owned) await owned.close();
      },
    };
  } catch (err) {
    if (owned) await owned.close();
    throw err;
  }
}
