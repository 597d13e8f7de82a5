import {
  BasicAuthentication,
  DefaultRouter,
  SessionAuthentication,
  SimpleRouter,
  TokenAuthentication,
  apiView,
  createApp,
  defineProject,
  include,
  path,
  reverse,
  type ApiRequest,
  type ProjectAppOptions,
  type RouteEntry,
  type SettingsInput,
  type TrestleApp,
} from '../src/index.js';
import { fileURLToPath } from 'node:url';
import { catalogueMigrations } from './catalogue/migrations/index.js';
import { catalogueModels } from './catalogue/models.js';
import { seedCatalogue } from './catalogue/seed.js';
import { AuthorViewSet, BookFeed, BookShelf, BookViewSet, TagViewSet, TaggedBookViewSet } from './catalogue/views.js';
import { authExampleRoutes, authSettings } from './auth.js';
import { tokenRoutes } from './tokens.js';
import { versioningRoutes } from './versioning.js';
import { browsableRoutes } from './browsable.js';
import { catalogueAdmin } from './catalogue/admin.js';

/**
 * The example service: a book catalogue that shows every part of Trestle.
 *
 *   /api/                      the API root (DefaultRouter)
 *   /api/books/                page-number pagination, read by anyone, written when signed in;
 *                              ?search=, ?ordering=, ?author=, ?year__gte=, ?isbn=
 *   /api/books/<pk>/favourite/ POST: an extra action, marks the book a favourite of the signed-in user
 *   /api/authors/              limit/offset pagination, ?search= and ?ordering=
 *   /api/feed/                 cursor pagination (newest first, or ?ordering=year, …)
 *   /api/shelf/                a custom style: links in the Link header
 *   /api/tags/                 tags (a model with a unique name), written when signed in
 *   /api/tagged-books/         books with their tags (many-to-many): ?tags=, ?tags__name=, PATCH the tags
 *   /versioned/v1|v2/books/    URL-path versioning, v1 deprecated
 *   /auth/…                    one route per authentication scheme, permissions, throttles
 *   /api-auth/login/           session login (the browsable API's login link)
 *   /api-token-auth/           obtain a token with username + password
 *   /openapi.json, /docs/      the OpenAPI document and its viewer
 *   /admin/                    users and tokens, for staff
 */
export const settings: SettingsInput = {
  DEFAULT_AUTHENTICATION_CLASSES: [SessionAuthentication, BasicAuthentication, TokenAuthentication],
  DEFAULT_THROTTLE_RATES: authSettings.DEFAULT_THROTTLE_RATES,
};

const router = new DefaultRouter();
router.register('books', BookViewSet, { basename: 'book' });
router.register('authors', AuthorViewSet, { basename: 'author' });

// Tags and books' tags: routed beside the API root's router, so the root lists what it always has.
const tagRouter = new SimpleRouter();
tagRouter.register('tags', TagViewSet, { basename: 'tag' });
tagRouter.register('tagged-books', TaggedBookViewSet, { basename: 'tagged-book' });

const home = apiView(
  ['GET'],
  (req: ApiRequest) => ({
    api: reverse('api-root', {}, { request: req }),
    books: reverse('book-list', {}, { request: req }),
    authors: reverse('author-list', {}, { request: req }),
    feed: reverse('book-feed', {}, { request: req }),
    shelf: reverse('book-shelf', {}, { request: req }),
    versioned: reverse('versioned:book-list', { version: 'v2' }, { request: req }),
    token: reverse('api-token-auth', {}, { request: req }),
    login: reverse('rest_framework:login', {}, { request: req }),
    docs: reverse('api-docs', {}, { request: req }),
    openapi: reverse('openapi-schema', {}, { request: req }),
    admin: req.buildAbsoluteUri('/admin/'),
  }),
  { name: 'Trestle example', description: 'Where to look: every part of the example service.' },
);

export const routes: RouteEntry[] = [
  path('', home, { name: 'home' }),
  include('api/', [
    ...router.urls,
    ...tagRouter.urls,
    path('feed/', BookFeed, { name: 'book-feed' }),
    path('shelf/', BookShelf, { name: 'book-shelf' }),
  ]),
  include('versioned/', versioningRoutes, { namespace: 'versioned' }),
  ...authExampleRoutes,
  ...tokenRoutes,
  ...browsableRoutes(catalogueAdmin()),
];

/**
 * Builds the example app on an open, migrated database (used by `npm start` and `trestle serve`).
 * `settings` defaults to the example's own; `trestle serve` passes them with the operator's
 * environment (REDIS_URL, SECRET_KEY, NODE_ENV) applied, and `npm start` does the same.
 */
export async function createExampleApp(
  options: Pick<ProjectAppOptions, 'database' | 'users'> & { settings?: SettingsInput; logger?: boolean; dataDir?: string },
): Promise<TrestleApp> {
  return createApp({
    settings: options.settings ?? settings,
    routes,
    database: options.database,
    users: options.users,
    ...(options.logger === false ? { logger: false } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
}

export default defineProject({
  settings,
  routes,
  models: catalogueModels,
  migrations: catalogueMigrations,
  // Absolute: this file is loaded as itself and through ../trestle.config.ts.
  migrationsDir: fileURLToPath(new URL('./catalogue/migrations/', import.meta.url)),
  databaseUrl: 'sqlite:./data/trestle.sqlite3',
  async seed(ctx) {
    const seeded = await seedCatalogue(ctx, ctx.log);
    if (!seeded) ctx.log?.('The catalogue already has books: nothing to seed.');
  },
  createApp: ({ settings: served, database, users }) => createExampleApp({ settings: served, database, users }),
});
