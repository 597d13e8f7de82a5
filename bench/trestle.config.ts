/**
 * The bench app as a Trestle project, so `trestle serve --workers N` can run
 * it: `DATABASE_URL=sqlite:bench/.data/bench-v1.sqlite3 npm run trestle --
 * serve --config bench/trestle.config.ts --workers 2`.
 */
import { defineProject } from '../src/project.js';
import { KyselyUserStore } from '../src/users/kysely-user-store.js';
import { createApp } from '../src/app.js';
import { benchRoutes, benchSettings } from './servers/trestle-app.js';

export default defineProject({
  settings: benchSettings,
  routes: benchRoutes,
  // Request logging off, as in the single-process server: the bench measures the framework.
  createApp: ({ settings, routes, database, users }) =>
    createApp({ logger: false, settings, routes, database, users }),
});
