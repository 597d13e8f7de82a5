import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { UserRecord } from '../users/user-record.js';
import { DuplicateUsername, InvalidUserData, UserNotFound } from '../users/errors.js';
import { NotFound, ValidationError } from '../exceptions.js';
import { getCsrfToken } from '../authentication/csrf.js';
import { html, unsafeRaw, type SafeHtml } from '../pages/html.js';
import { actionButton, confirmBody, listTable, searchForm, when } from '../pages/admin-templates.js';
import type { AdminMessage, AdminPage } from './admin-page.js';
import { AdminView, redirect } from './admin-view.js';
import { ADDITION, CHANGE } from './log-entry.js';
import { validatePassword } from '../users/password-validation.js';

/** What a user action did, for the message after the redirect (never free text from the URL). */
const DONE: Readonly<Record<string, string>> = {
  created: 'The user “{user}” was added.',
  deactivate: 'The user “{user}” was deactivated.',
  activate: 'The user “{user}” was activated.',
  'make-staff': 'The user “{user}” is now staff.',
  'remove-staff': 'The user “{user}” is no longer staff.',
};

/**
 * `GET /admin/users/?q=ali&o=-date_joined&page=2`: users with search
 * (username or e-mail), sorting and page-number controls; `POST` with `username`, `email`, `password`,
 * `is_staff` adds a user (no password: an unusable one).
 */
export class AdminUsersView extends AdminView {
  static override viewName = 'Users';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const messages: AdminMessage[] = [];
    const done = req.query['done'];
    const pk = Number(req.query['user']);
    if (done && Object.hasOwn(DONE, done) && Number.isInteger(pk)) {
      const user = await req.app.services.get('users').getById(pk);
      if (user) messages.push({ level: 'success', text: DONE[done]!.replace('{user}', user.username) });
    }
    return this.list(req, messages);
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const f = this.form(req);
    const username = (f['username'] ?? '').trim();
    if (!username) return this.list(req, [{ level: 'error', text: 'A username is required.' }], f);
    const email = (f['email'] ?? '').trim();
    if (f['password']) {
      const problems = validatePassword(f['password'], { username, email }, req.app.settings.AUTH_PASSWORD_VALIDATORS);
      if (problems.length > 0) return this.list(req, problems.map((text) => ({ level: 'error' as const, text })), f);
    }
    try {
      const user = await req.app.services.get('users').createUser({
        username,
        email,
        password: f['password'] ? f['password'] : null,
        isStaff: f['is_staff'] === 'on',
      });
      this.logAction(req, 'user.create', { id: user.pk, username: user.username, isStaff: user.isStaff });
      await this.history(req, { contentType: 'trestle_user', objectId: user.pk, objectRepr: user.username, flag: ADDITION });
      return redirect(`${this.url(req, 'users')}?done=created&user=${user.pk}`);
    } catch (err) {
      if (err instanceof DuplicateUsername || err instanceof InvalidUserData) {
        return this.list(req, [{ level: 'error', text: err.message }], f);
      }
      throw err;
    }
  }

  protected async list(req: ApiRequest, messages: AdminMessage[], entered: Record<string, string> = {}): Promise<AdminPage> {
    const { search, ordering, count, rows, base, controls, sortHeader } = await this.userListPage(req, 'users');
    const headers = [
      sortHeader('Username', 'username'),
      sortHeader('E-mail', 'email'),
      { label: 'Active', href: null, sort: null },
      { label: 'Staff', href: null, sort: null },
      sortHeader('Joined', 'date_joined'),
      sortHeader('Last login', 'last_login'),
      { label: 'Actions', href: null, sort: null },
    ];
    const body = html`<h1>Users</h1>
${searchForm(base, search, ordering)}
<p class="muted">${count} user${count === 1 ? '' : 's'}${search ? ` matching “${search}”` : ''}.</p>
${unsafeRaw(controls)}
${listTable('user-list', 'Users', headers, rows.map((u) => this.row(req, u)))}
<section class="panel" aria-labelledby="add-user-heading">
<h2 id="add-user-heading">Add user</h2>
<form method="post" action="${base}" id="add-user-form">
${this.csrfField(req)}
<label for="id_new_username">Username</label>
<input type="text" name="username" id="id_new_username" value="${entered['username'] ?? ''}" autocapitalize="none" required>
<label for="id_new_email">E-mail</label>
<input type="email" name="email" id="id_new_email" value="${entered['email'] ?? ''}">
<label for="id_new_password">Password</label>
<input type="password" name="password" id="id_new_password" autocomplete="new-password" aria-describedby="id_new_password_help">
<p class="help" id="id_new_password_help">Leave empty and the user cannot log in with a password.</p>
<div class="check"><input type="checkbox" name="is_staff" id="id_new_is_staff"><label for="id_new_is_staff">Staff (may use this console)</label></div>
<div class="form-actions"><button type="submit" class="btn btn-primary">Add user</button></div>
</form>
</section>`;
    return this.page(req, 'Users', body, messages, [{ name: 'Users', url: base }]);
  }

  private row(req: ApiRequest, u: UserRecord): SafeHtml {
    const action = this.url(req, 'user', { pk: u.pk });
    const csrf = getCsrfToken(req);
    const actions = [
      u.isActive
        ? html`<a class="btn btn-danger" href="${`${action}?confirm=deactivate`}">Deactivate…</a>`
        : actionButton(action, csrf, { action: 'activate' }, 'Activate'),
      u.isStaff ? actionButton(action, csrf, { action: 'remove-staff' }, 'Remove staff') : actionButton(action, csrf, { action: 'make-staff' }, 'Make staff'),
    ];
    return html`<tr data-username="${u.username}"><td data-label="Username">${u.username}</td><td data-label="E-mail">${u.email}</td><td data-label="Active">${u.isActive ? 'yes' : 'no'}</td><td data-label="Staff">${u.isStaff ? 'yes' : 'no'}</td><td data-label="Joined">${u.dateJoined.toISOString().slice(0, 10)}</td><td data-label="Last login">${when(u.lastLogin)}</td><td data-label="Actions"><span class="btn-group">${actions}</span></td></tr>`;
  }
}

/**
 * `POST /admin/users/<pk>/` with `action` = `deactivate`, `activate`,
 * `make-staff` or `remove-staff`; redirects back to the list. A staff user
 * cannot deactivate themselves or drop their own staff flag (they would be
 * locked out mid-request).
 */
export class AdminUserView extends AdminView {
  static override viewName = 'User';

  /** `GET ?confirm=deactivate`: "Are you sure?"; anything else goes back to the list. */
  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const users = this.url(req, 'users');
    const user = await req.app.services.get('users').getById(req.params['pk'] as number);
    if (!user) throw new NotFound();
    if (req.query['confirm'] !== 'deactivate' || !user.isActive) return redirect(users);
    const body = confirmBody({
      heading: 'Deactivate user?',
      question: `Deactivate “${user.username}”? They can no longer log in, and their tokens are refused until the account is activated again.`,
      action: this.url(req, 'user', { pk: user.pk }),
      csrfToken: getCsrfToken(req),
      fields: { action: 'deactivate' },
      confirmLabel: 'Yes, deactivate',
      cancelUrl: users,
    });
    return this.page(req, 'Deactivate user?', body, [], [
      { name: 'Users', url: users },
      { name: user.username, url: `${this.url(req, 'user', { pk: user.pk })}?confirm=deactivate` },
    ]);
  }

  async post(req: ApiRequest): Promise<Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const pk = req.params['pk'] as number;
    const action = this.form(req)['action'] ?? '';
    const fields: Record<string, { isActive?: boolean; isStaff?: boolean }> = {
      deactivate: { isActive: false },
      activate: { isActive: true },
      'make-staff': { isStaff: true },
      'remove-staff': { isStaff: false },
    };
    const update = Object.hasOwn(fields, action) ? fields[action]! : null;
    if (!update) throw new ValidationError({ action: ['Unknown action.'] });
    if (pk === req.user.pk && (update.isActive === false || update.isStaff === false)) {
      throw new ValidationError({ action: ['You cannot remove your own access.'] });
    }
    let user: UserRecord;
    try {
      user = await req.app.services.get('users').update(pk, update);
    } catch (err) {
      if (err instanceof UserNotFound) throw new NotFound();
      throw err;
    }
    this.logAction(req, `user.${action}`, { id: user.pk, username: user.username });
    // Django's labels of is_active and is_staff.
    await this.history(req, { contentType: 'trestle_user', objectId: user.pk, objectRepr: user.username, flag: CHANGE, fields: [update.isActive !== undefined ? 'Active' : 'Staff status'] });
    return redirect(`${this.url(req, 'users')}?done=${action}&user=${user.pk}`);
  }
}
