import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { UserRecord } from '../users/user-record.js';
import type { TokenInfo } from '../authtoken/token-store.js';
import { NotFound, ValidationError } from '../exceptions.js';
import { escapeHtml } from '../browsable/escape-html.js';
import type { AdminMessage, AdminPage } from './admin-page.js';
import { AdminView, redirect } from './admin-view.js';

function when(date: Date | null): string {
  return date ? escapeHtml(date.toISOString().replace('T', ' ').slice(0, 16)) : '—';
}

const SHOWN: Readonly<Record<'created' | 'existing' | 'regenerated', string>> = {
  created: 'A token was created for “{user}”.',
  existing: '“{user}” already has a token.',
  regenerated: 'The token of “{user}” was regenerated; the old key no longer works.',
};

/** What both token pages share: the one page that shows a key (after create or regenerate). */
abstract class TokenAdminView extends AdminView {
  protected showKey(req: ApiRequest, user: UserRecord, key: string, what: keyof typeof SHOWN): AdminPage {
    const body = `<h1>Token for ${escapeHtml(user.username)}</h1>
<p>Key (send it as <code>Authorization: Token &lt;key&gt;</code>; copy it now, it is stored encrypted):</p>
<p><code class="key" id="token-key">${escapeHtml(key)}</code></p>
<p><a href="${escapeHtml(this.url(req, 'tokens'))}">Back to tokens</a></p>`;
    // The key must not be cached by the browser or a proxy.
    req.reply.header('cache-control', 'no-store');
    return this.page(req, `Token for ${user.username}`, body, [{ level: 'success', text: SHOWN[what].replace('{user}', user.username) }]);
  }
}

/**
 * `GET /admin/tokens/?q=&page=`: users with their tokens (created, expiry,
 * last use — never the keys); `POST` with `username` creates that user's
 * token by hand (DRF's admin "Add token") and shows the key once.
 * Everything goes through the `tokens` service, as the API and
 * `trestle token` do.
 */
export class AdminTokensView extends TokenAdminView {
  static override viewName = 'Tokens';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const messages: AdminMessage[] = [];
    const pk = Number(req.query['user']);
    if (req.query['done'] === 'deleted' && Number.isInteger(pk)) {
      const user = await req.app.services.get('users').getById(pk);
      if (user) messages.push({ level: 'success', text: `The token of “${user.username}” was deleted.` });
    }
    return this.list(req, messages);
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const username = (this.form(req)['username'] ?? '').trim();
    const user = username ? await req.app.services.get('users').getByUsername(username) : null;
    if (!user) return this.list(req, [{ level: 'error', text: `No user named “${username}”.` }]);
    const { token, created } = await req.app.services.get('tokens').getOrCreate(user);
    this.logAction(req, created ? 'token.create' : 'token.show', { userId: user.pk, username: user.username, tokenId: token.id });
    return this.showKey(req, user, token.key, created ? 'created' : 'existing');
  }

  protected async list(req: ApiRequest, messages: AdminMessage[]): Promise<AdminPage> {
    const tokens = req.app.services.get('tokens');
    const { search, rows, base, controls } = await this.userListPage(req, 'tokens');
    const withTokens = await Promise.all(rows.map(async (u) => [u, await tokens.list(u)] as const));
    const body = `<h1>Tokens</h1>
<section class="panel" aria-label="Create token">
<h2>Create a token for a user</h2>
<form method="post" action="${escapeHtml(base)}" id="create-token-form" class="toolbar">
${this.csrfField(req)}
<input type="text" name="username" id="id_token_username" placeholder="Username" aria-label="Username" required>
<button type="submit" class="btn btn-primary">Create token</button>
</form>
</section>
<form method="get" action="${escapeHtml(base)}" class="toolbar" role="search">
<input type="search" name="q" value="${escapeHtml(search)}" placeholder="Search username or e-mail" aria-label="Search users">
<button type="submit" class="btn">Search</button>
</form>
${controls}
<table class="list" id="token-list">
<thead><tr><th>User</th><th>Token</th><th>Created</th><th>Expires</th><th>Last used</th><th>Actions</th></tr></thead>
<tbody>
${withTokens.map(([u, list]) => this.rows(req, u, list)).join('\n')}
</tbody>
</table>`;
    return this.page(req, 'Tokens', body, messages);
  }

  private rows(req: ApiRequest, user: UserRecord, list: readonly TokenInfo[]): string {
    const action = this.url(req, 'token', { userPk: user.pk });
    const button = (value: string, label: string, name: string, cls = 'btn') =>
      `<form method="post" action="${escapeHtml(action)}">${this.csrfField(req)}<input type="hidden" name="action" value="${value}"><input type="hidden" name="name" value="${escapeHtml(name)}"><button type="submit" class="${cls}">${label}</button></form>`;
    const cells = `<td>${escapeHtml(user.username)}${user.isActive ? '' : ' <span class="muted">(inactive)</span>'}</td>`;
    if (list.length === 0) {
      return `<tr data-username="${escapeHtml(user.username)}">${cells}<td class="muted">none</td><td></td><td></td><td></td><td>${button('create', 'Create', '')}</td></tr>`;
    }
    return list
      .map(
        (t) =>
          `<tr data-username="${escapeHtml(user.username)}">${cells}<td>${t.name ? escapeHtml(t.name) : 'default'}</td><td>${when(t.created)}</td><td>${when(t.expiresAt)}</td><td>${when(t.lastUsedAt)}</td><td>${button('regenerate', 'Regenerate', t.name)}${button('delete', 'Delete', t.name, 'btn btn-danger')}</td></tr>`,
      )
      .join('\n');
  }
}

/**
 * `POST /admin/tokens/<userPk>/` with `action` = `create`, `regenerate`
 * (the old key stops working at once) or `delete`, and the token `name`
 * (empty for the user's token). Create and regenerate show the key once.
 */
export class AdminTokenView extends TokenAdminView {
  static override viewName = 'Token';

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const user = await req.app.services.get('users').getById(req.params['userPk'] as number);
    if (!user) throw new NotFound();
    const f = this.form(req);
    const name = f['name'] ?? '';
    const tokens = req.app.services.get('tokens');
    switch (f['action']) {
      case 'create': {
        const { token, created } = await tokens.getOrCreate(user);
        this.logAction(req, created ? 'token.create' : 'token.show', { userId: user.pk, username: user.username, tokenId: token.id });
        return this.showKey(req, user, token.key, created ? 'created' : 'existing');
      }
      case 'regenerate': {
        const token = await tokens.regenerate(user, name);
        this.logAction(req, 'token.regenerate', { userId: user.pk, username: user.username, tokenId: token.id, name });
        return this.showKey(req, user, token.key, 'regenerated');
      }
      case 'delete': {
        const deleted = await tokens.revoke(user, name);
        if (deleted) this.logAction(req, 'token.delete', { userId: user.pk, username: user.username, name });
        return redirect(`${this.url(req, 'tokens')}?done=deleted&user=${user.pk}`);
      }
      default:
        throw new ValidationError({ action: ['Unknown action.'] });
    }
  }
}

