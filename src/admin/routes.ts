import { include, path, type IncludeDef, type RouteEntry } from '../routing/routes.js';
import { AdminIndexView } from './index-view.js';
import { AdminLoginView, AdminLogoutView } from './login-view.js';
import { AdminTokensView, AdminTokenView } from './tokens-view.js';
import { AdminUsersView, AdminUserView } from './users-view.js';
import type { AdminSite, ModelAdmin } from './model-admin.js';
import { AdminAutocompleteView } from './autocomplete.js';
import { AdminChangeFormView, AdminChangeListView, AdminDeleteView, AdminHistoryView } from './model-views.js';

/** Where the admin console is mounted. */
export interface AdminRoutesOptions {
  /** The URL prefix (default `admin/`). */
  prefix?: string;
  /** The route namespace (default `admin`); names are `<namespace>:users` etc. */
  namespace?: string;
  /** The registered models (`new AdminSite().register(Book, {…})`): each gets Django's change list, forms, delete and history pages. */
  site?: AdminSite;
}

/** The pages of one registered model, under `<app>/<model>/`, named as Django names them. */
function modelRoutes(admin: ModelAdmin): RouteEntry[] {
  const base = `${admin.appLabel}/${admin.modelName}/`;
  class ChangeList extends AdminChangeListView {
    override modelAdmin = admin;
  }
  class Add extends AdminChangeFormView {
    override modelAdmin = admin;
    override mode = 'add' as const;
  }
  class Change extends AdminChangeFormView {
    override modelAdmin = admin;
    override mode = 'change' as const;
  }
  class Delete extends AdminDeleteView {
    override modelAdmin = admin;
  }
  class History extends AdminHistoryView {
    override modelAdmin = admin;
  }
  return [
    path(base, ChangeList, { name: admin.routeName('changelist') }),
    path(`${base}add/`, Add, { name: admin.routeName('add') }),
    path(`${base}<str:pk>/change/`, Change, { name: admin.routeName('change') }),
    path(`${base}<str:pk>/delete/`, Delete, { name: admin.routeName('delete') }),
    path(`${base}<str:pk>/history/`, History, { name: admin.routeName('history') }),
  ];
}

/**
 * The admin console's routes: `''` (index), `login/`, `logout/`, `users/`,
 * `users/<int:pk>/`, `tokens/`, `tokens/<int:userPk>/`, and for each model
 * of `site`: `<app>/<model>/`, `add/`, `<pk>/change/`, `<pk>/delete/`,
 * `<pk>/history/`, and Django's `autocomplete/` (JSON for the
 * `autocompleteFields` widgets). Needs the `users` and `tokens` services (a `database`),
 * as the API and the CLI use.
 *
 * @example
 * const site = new AdminSite().register(Book, { listDisplay: ['title', 'year'] });
 * createApp({ routes: [...apiRoutes, adminRoutes({ site })], database });
 */
export function adminRoutes(options: AdminRoutesOptions = {}): IncludeDef {
  const site = options.site ?? null;
  site?.checkAutocomplete(true);
  class Autocomplete extends AdminAutocompleteView {
    override site = site!;
  }
  class Index extends AdminIndexView {
    override site = site;
  }
  return include(
    options.prefix ?? 'admin/',
    [
      path('', site ? Index : AdminIndexView, { name: 'index' }),
      path('login/', AdminLoginView, { name: 'login' }),
      path('logout/', AdminLogoutView, { name: 'logout' }),
      path('users/', AdminUsersView, { name: 'users' }),
      path('users/<int:pk>/', AdminUserView, { name: 'user' }),
      path('tokens/', AdminTokensView, { name: 'tokens' }),
      path('tokens/<int:userPk>/', AdminTokenView, { name: 'token' }),
      ...(site ? [path('autocomplete/', Autocomplete, { name: 'autocomplete' })] : []),
      ...(site ? site.registry.flatMap(modelRoutes) : []),
    ],
    { namespace: options.namespace ?? 'admin' },
  );
}
