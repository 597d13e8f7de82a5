import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { UserRecord } from '../users/user-record.js';
import { DuplicateUsername, InvalidUserData, UserNotFound } from '../users/errors.js';
import { NotFound, ValidationError } from '../exceptions.js';
import { escapeHtml } from '../browsable/escape-html.js';
import type { AdminMessage, AdminPage } from './admin-page.js';
import { AdminView, redirect } from './admin-view.js';

/** What a user action did, for the message after the redirect (never free text from the URL). */
const DONE: Readonly<Record<string, string>> = {
  created: 'The user “{user}” was added.',
  deactivate: 'The user “{user}” was deactivated.',
  activate: 'The user “{user}” was activated.',
  'make-staff': 'The user “{user}” is now staff.',
  'remove-staff': 'The user “{user}” is no longer staff.',
};

/**
 * `GET /admin/users/?q=ali&page=2`: users with search (username or e-mail)
 * and page-number controls; `POST` with `username`, `email`, `password`,
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
    try {
      const user = await req.app.services.get('users').createUser({
        username,
        email: (f['email'] ?? '').trim(),
        password: f['password'] ? f['password'] : null,
        isStaff: f['is_staff'] === 'on',
      });
      this.logAction(req, 'user.create', { id: user.pk, username: user.username, isStaff: user.isStaff });
      return redirect(`${this.url(req, 'users')}?done=created&user=${user.pk}`);
    } catch (err) {
      if (err instanceof DuplicateUsername || err instanceof InvalidUserData) {
        return this.list(req, [{ level: 'error', text: err.message }], f);
      }
      throw err;
    }
  }

  protected async list(req: ApiRequest, messages: AdminMessage[], entered: Record<string, string> = {}): Promise<AdminPage> {
    const { search, count, rows, base, controls } = await this.userListPage(req, 'users');
    const body = `<h1>Users</h1>
<form method="get" action="${escapeHtml(base)}" class="toolbar" role="search">
<input type="search" name="q" value="${escapeHtml(search)}" placeholder="Search username or e-mail" aria-label="Search users">
<button type="submit" class="btn">Search</button>
</form>
<p class="muted">${count} user${count === 1 ? '' : 's'}${search ? ` matching “${escapeHtml(search)}”` : ''}.</p>
${controls}
<table class="list" id="user-list">
<thead><tr><th>Username</th><th>E-mail</th><th>Active</th><th>Staff</th><th>Joined</th><th>Actions</th></tr></thead>
<tbody>
${rows.map((u) => this.row(req, u)).join('\n')}
</tbody>
</table>
<section class="panel" aria-label="Add user">
<h2>Add user</h2>
<form method="post" action="${escapeHtml(base)}" id="add-user-form">
${this.csrfField(req)}
<label for="id_new_username">Username</label>
<input type="text" name="username" id="id_new_username" value="${escapeHtml(entered['username'] ?? '')}" required>
<label for="id_new_email">E-mail</label>
<input type="email" name="email" id="id_new_email" value="${escapeHtml(entered['email'] ?? '')}">
<label for="id_new_password">Password (empty: the user cannot log in with a password)</label>
<input type="password" name="password" id="id_new_password" autocomplete="new-password">
<p><input type="checkbox" name="is_staff" id="id_new_is_staff"> <label class="inline" for="id_new_is_staff">Staff (may use this console)</label></p>
<div class="form-actions"><button type="submit" class="btn btn-primary">Add user</button></div>
</form>
</section>`;
    return this.page(req, 'Users', body, messages);
  }

  private row(req: ApiRequest, u: UserRecord): string {
    const action = this.url(req, 'user', { pk: u.pk });
    const button = (value: string, label: string, cls = 'btn') =>
      `<form method="post" action="${escapeHtml(action)}">${this.csrfField(req)}<input type="hidden" name="action" value="${value}"><button type="submit" class="${cls}">${label}</button></form>`;
    const actions = [
      u.isActive ? button('deactivate', 'Deactivate', 'btn btn-danger') : button('activate', 'Activate'),
      u.isStaff ? button('remove-staff', 'Remove staff') : button('make-staff', 'Make staff'),
    ];
    return `<tr data-username="${escapeHtml(u.username)}"><td>${escapeHtml(u.username)}</td><td>${escapeHtml(u.email)}</td><td>${u.isActive ? 'yes' : 'no'}</td><td>${u.isStaff ? 'yes' : 'no'}</td><td>${escapeHtml(u.dateJoined.toISOString().slice(0, 10))}</td><td>${actions.join('')}</td></tr>`;
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
    return redirect(`${this.url(req, 'users')}?done=${action}&user=${user.pk}`);
  }
}
