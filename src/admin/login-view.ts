import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import { enforceCsrf } from '../authentication/csrf.js';
import { login, logout } from '../sessions/session.js';
import { isSafeRedirectPath } from '../sessions/views.js';
import { getCsrfToken } from '../authentication/csrf.js';
import { loginForm } from '../pages/login-page.js';
import { authenticateLogin } from '../throttling/login.js';
import { AdminPage, type AdminMessage } from './admin-page.js';
import { AdminView, redirect } from './admin-view.js';

/**
 * The admin's login page, for staff users only, as Django's admin login:
 *
 * ```
 * POST /admin/login/?next=/admin/users/ HTTP/1.1
 * Content-Type: application/x-www-form-urlencoded
 * Cookie: csrftoken=…
 *
 * csrfmiddlewaretoken=…&username=admin&password=…&next=/admin/users/
 * ```
 *
 * CSRF is always enforced (nobody is logged in yet). Success logs the user
 * in with `login()` (new session id, rotated CSRF secret) and redirects to
 * `next` when it is a path on this site, else to the admin index.
 */
export class AdminLoginView extends AdminView {
  static override viewName = 'Admin login';
  invalidLoginMessage = 'Please enter the correct username and password for a staff account. Note that both fields may be case-sensitive.';

  get(req: ApiRequest): AdminPage | Response {
    const user = req.user;
    if (user.isAuthenticated && user.isStaff && user.isActive) return redirect(this.nextUrl(req, {}));
    return this.loginForm(req, [], '');
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    enforceCsrf(req);
    const data = this.form(req);
    const username = data['username'] ?? '';
    const password = data['password'] ?? '';
    const user = username && password ? await authenticateLogin(req, username, password) : null;
    if (!user || !user.isActive || !user.isStaff) {
      req.app.log.info({ actor: username, action: 'admin.login.failed' }, 'admin: login failed');
      return this.loginForm(req, [{ level: 'error', text: this.invalidLoginMessage }], username);
    }
    await login(req, user);
    req.app.log.info({ actor: user.username, actorId: user.pk, action: 'admin.login' }, 'admin: login');
    return redirect(this.nextUrl(req, data));
  }

  /** `next` from the form or the query when it is a same-site path; else the admin index. */
  private nextUrl(req: ApiRequest, data: Record<string, string>): string {
    const next = data['next'] ?? req.query['next'];
    return isSafeRedirectPath(next) ? next : this.url(req, 'index');
  }

  private loginForm(req: ApiRequest, messages: AdminMessage[], username: string): AdminPage {
    const next = req.query['next'] ?? '';
    const body = loginForm({
      heading: 'Log in',
      formId: 'admin-login-form',
      csrfToken: getCsrfToken(req),
      next: isSafeRedirectPath(next) ? next : '',
      username,
      errors: messages.map((m) => m.text),
      note: 'Staff accounts only.',
    });
    return new AdminPage('Log in', body);
  }
}

/** `POST /admin/logout/`: ends the session (CSRF checked by session authentication) and goes back to the login page. */
export class AdminLogoutView extends AdminView {
  static override viewName = 'Admin logout';

  async post(req: ApiRequest): Promise<Response> {
    const user = req.user;
    if (user.isAuthenticated) enforceCsrf(req);
    await logout(req);
    if (user.isAuthenticated) req.app.log.info({ actor: user.username, actorId: user.pk, action: 'admin.logout' }, 'admin: logout');
    return redirect(this.url(req, 'login'));
  }
}
