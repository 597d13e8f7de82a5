/**
 * The example project (the repository's trestle.config.ts) as `trestle
 * serve` builds it — the project's own `createApp` with its settings, routes
 * and user store — on an open database. Only what an operator sets differs:
 * SECRET_KEY and ALLOWED_HOSTS.
 */
import project from '../../trestle.config.js';
import { createApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { BENCH_SECRET } from '../lib/constants.js';

export async function buildExampleApp(database: Database) {
  const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
  const settings = { ...project.settings, SECRET_KEY: BENCH_SECRET, ALLOWED_HOSTS: ['127.0.0.1', 'localhost'] };
  const routes = project.routes ?? [];
  return project.createApp ? project.createApp({ settings, routes, database, users }) : createApp({ settings, routes, database, users });
}
