import { include, path, type IncludeDef } from '../routing/routes.js';
import { AdminIndexView } from './index-view.js';
import { AdminLoginView, AdminLogoutView } from './login-view.js';
import { AdminTokensView, AdminTokenView } from './tokens-view.js';
import { AdminUsersView, AdminUserView } from './users-view.js';

/** Where the admin console is mounted. */
export interface AdminRoutesOptions {
  /** The URL prefix (default `admin/`). */
  prefix?: string;
  /** The route namespace (default `admin`); names are `<namespace>:users` etc. */
  namespace?: string;
}

/**
 * The admin console's routes: `''` (index), `login/`, `logout/`, `users/`,
 * `users/<int:pk>/`, `tokens/`, `tokens/<int:userPk>/`. Needs the `users`
 * and `tokens` services (a `database`), as the API and the CLI use.
 *
 * @example
 * createApp({ routes: [...apiRoutes, adminRoutes({ prefix: 'staff/' })] });
 */
export function adminRoutes(options: AdminRoutesOptions = {}): IncludeDef {
  return include(
    options.prefix ?? 'admin/',
    [
      path('', AdminIndexView, { name: 'index' }),
      path('login/', AdminLoginView, { name: 'login' }),
      path('logout/', AdminLogoutView, { name: 'logout' }),
      path('users/', AdminUsersView, { name: 'users' }),
      path('users/<int:pk>/', AdminUserView, { name: 'user' }),
      path('tokens/', AdminTokensView, { name: 'tokens' }),
      path('tokens/<int:userPk>/', AdminTokenView, { name: 'token' }),
    ],
    { namespace: options.namespace ?? 'admin' },
  );
}
