import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { UserRecord } from '../users/user-record.js';
import type { TokenInfo } from '../authtoken/token-store.js';
import { NotFound, ValidationError } from '../exceptions.js';
import { getCsrfToken } from '../authentication/csrf.js';
import { getSession, updateSession } from '../sessions/session.js';
import { html, unsafeRaw, type SafeHtml } from '../pages/html.js';
import { actionButton, confirmBody, keyBody, listTable, searchForm, when } from '../pages/admin-templates.js';
import type { AdminMessage, AdminPage } from './admin-page.js';
import { AdminView, redirect } from './admin-view.js';
import { ADDITION, CHANGE, DELETION } from './log-entry.js';

const SHOWN: Readonly<Record<'created' | 'regenerated', string>> = {
  created: 'A token was created for “{user}”.',
  regenerated: 'The token of “{user}” was regenerated; the old key no longer works.',
};

/** What the tokens list says after a redirect (never free text from the URL). */
const DONE: Readonly<Record<string, string>> = {
  deleted: 'The token of “{user}” was deleted.',
  exists: '“{user}” already has a token. Its key is not shown again; regenerate the token to get a new key.',
};

/** The session entry naming the token whose key the next GET may show, once. */
const PENDING_KEY = '_admin_new_token';

interface PendingKey {
  userPk: number;
  tokenId: number;
  name: string;
  what: keyof typeof SHOWN;
}

function isPending(value: unknown): value is PendingKey {
  const v = value as Partial<PendingKey> | null;
  return typeof v?.userPk === 'number' && typeof v.tokenId === 'number' && typeof v.name === 'string' && (v.what === 'created' || v.what === 'regenerated');
}

/**
 * What both token pages share: after a create or regenerate the POST
 * redirects (POST-redirect-GET) to the user's token page, which shows the
 * key once. The session holds only which token may be shown (never the
 * key); the first GET takes it out, so a reload shows nothing new and
 * never repeats the action.
 */
/** A token's name in the history: never its key (DRF's `Token.__str__` is the key). */
function tokenName(username: string, name: string): string {
  return `Token of ${username}${name ? ` (${name})` : ''}`;
}

abstract class TokenAdminView extends AdminView {
  protected async keyMade(req: ApiRequest, user: UserRecord, token: { id: number; name: string }, what: keyof typeof SHOWN): Promise<Response> {
    await updateSession(req, (data) => {
      data[PENDING_KEY] = { userPk: user.pk, tokenId: token.id, name: token.name, what } satisfies PendingKey;
    });
    return redirect(this.url(req, 'token', { userPk: user.pk }));
  }

  protected async created(req: ApiRequest, user: UserRecord): Promise<Response> {
    const { token, created } = await req.app.services.get('tokens').getOrCreate(user);
    if (!created) return redirect(`${this.url(req, 'tokens')}?done=exists&user=${user.pk}`);
    this.logAction(req, 'token.create', { userId: user.pk, username: user.username, tokenId: token.id });
    await this.history(req, { contentType: 'trestle_token', objectId: token.id, objectRepr: tokenName(user.username, token.name), flag: ADDITION });
    return this.keyMade(req, user, token, 'created');
  }
}

/**
 * `GET /admin/tokens/?q=&o=&page=`: users with their tokens (created,
 * expiry, last use — never the keys), searched and sorted; `POST` with
 * `username` creates that user's token by hand (DRF's admin "Add token")
 * and redirects to the page that shows its key once. A user who already
 * has a token keeps it, and its key is not shown.
 */
export class AdminTokensView extends TokenAdminView {
  static override viewName = 'Tokens';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const messages: AdminMessage[] = [];
    const done = req.query['done'];
    const pk = Number(req.query['user']);
    if (done && Object.hasOwn(DONE, done) && Number.isInteger(pk)) {
      const user = await req.app.services.get('users').getById(pk);
      if (user) messages.push({ level: done === 'exists' ? 'info' : 'success', text: DONE[done]!.replace('{user}', user.username) });
    }
    return this.list(req, messages);
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const username = (this.form(req)['username'] ?? '').trim();
    const user = username ? await req.app.services.get('users').getByUsername(username) : null;
    if (!user) return this.list(req, [{ level: 'error', text: `No user named “${username}”.` }]);
    return this.created(req, user);
  }

  protected async list(req: ApiRequest, messages: AdminMessage[]): Promise<AdminPage> {
    const tokens = req.app.services.get('tokens');
    const { search, ordering, rows, base, controls, sortHeader } = await this.userListPage(req, 'tokens');
    const withTokens = await Promise.all(rows.map(async (u) => [u, await tokens.list(u)] as const));
    const headers = [
      sortHeader('User', 'username'),
      { label: 'Token', href: null, sort: null },
      { label: 'Created', href: null, sort: null },
      { label: 'Expires', href: null, sort: null },
      { label: 'Last used', href: null, sort: null },
      sortHeader('Joined', 'date_joined'),
      { label: 'Actions', href: null, sort: null },
    ] as const;
    const body = html`<h1>Tokens</h1>
<section class="panel" aria-labelledby="create-token-heading">
<h2 id="create-token-heading">Create a token for a user</h2>
<form method="post" action="${base}" id="create-token-form" class="toolbar">
${this.csrfField(req)}
<label class="visually-hidden" for="id_token_username">Username</label>
<input type="text" name="username" id="id_token_username" placeholder="Username" autocapitalize="none" required>
<button type="submit" class="btn btn-primary">Create token</button>
</form>
</section>
${searchForm(base, search, ordering)}
${unsafeRaw(controls)}
${listTable('token-list', 'Users and their tokens', headers, withTokens.flatMap(([u, list]) => this.rows(req, u, list)))}`;
    return this.page(req, 'Tokens', body, messages, [{ name: 'Tokens', url: base }]);
  }

  private rows(req: ApiRequest, user: UserRecord, list: readonly TokenInfo[]): SafeHtml[] {
    const csrf = getCsrfToken(req);
    const page = this.url(req, 'token', { userPk: user.pk });
    const userCell = html`<td data-label="User">${user.username}${user.isActive ? '' : html` <span class="muted">(inactive)</span>`}</td>`;
    const joined = html`<td data-label="Joined">${when(user.dateJoined)}</td>`;
    if (list.length === 0) {
      return [
        html`<tr data-username="${user.username}">${userCell}<td data-label="Token" class="muted">none</td><td></td><td></td><td></td>${joined}<td data-label="Actions">${actionButton(page, csrf, { action: 'create', name: '' }, 'Create')}</td></tr>`,
      ];
    }
    return list.map((t) => {
      const confirm = (action: string) => `${page}?${new URLSearchParams({ confirm: action, name: t.name })}`;
      return html`<tr data-username="${user.username}">${userCell}<td data-label="Token">${t.name || 'default'}</td><td data-label="Created">${when(t.created)}</td><td data-label="Expires">${when(t.expiresAt)}</td><td data-label="Last used">${when(t.lastUsedAt)}</td>${joined}<td data-label="Actions"><span class="btn-group"><a class="btn" href="${confirm('regenerate')}">Regenerate…</a><a class="btn btn-danger" href="${confirm('delete')}">Delete…</a></span></td></tr>`;
    });
  }
}

/**
 * `/admin/tokens/<userPk>/`:
 *
 * - `GET` shows the key made by the POST that redirected here — once; after
 *   that (a reload) it says the key cannot be shown again;
 * - `GET ?confirm=regenerate|delete&name=` asks "Are you sure?" with a form
 *   that posts the action;
 * - `POST` with `action` = `create`, `regenerate` (the old key stops working
 *   at once) or `delete`, and the token `name` (empty for the user's token).
 */
export class AdminTokenView extends TokenAdminView {
  static override viewName = 'Token';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const user = await req.app.services.get('users').getById(req.params['userPk'] as number);
    if (!user) throw new NotFound();
    const tokensUrl = this.url(req, 'tokens');
    const trail = [
      { name: 'Tokens', url: tokensUrl },
      { name: user.username, url: this.url(req, 'token', { userPk: user.pk }) },
    ];
    const confirm = req.query['confirm'];
    if (confirm === 'regenerate' || confirm === 'delete') {
      const name = req.query['name'] ?? '';
      const token = await req.app.services.get('tokens').get(user, name);
      if (!token) return redirect(tokensUrl);
      const label = name ? `token “${name}” of “${user.username}”` : `token of “${user.username}”`;
      const body = confirmBody({
        heading: confirm === 'delete' ? 'Delete token?' : 'Regenerate token?',
        question:
          confirm === 'delete'
            ? `Delete the ${label}? Clients using its key are refused at once.`
            : `Regenerate the ${label}? The current key stops working at once, and the new key is shown once.`,
        action: this.url(req, 'token', { userPk: user.pk }),
        csrfToken: getCsrfToken(req),
        fields: { action: confirm, name },
        confirmLabel: confirm === 'delete' ? 'Yes, delete' : 'Yes, regenerate',
        cancelUrl: tokensUrl,
      });
      return this.page(req, confirm === 'delete' ? 'Delete token?' : 'Regenerate token?', body, [], trail);
    }

    // The key made by the POST that redirected here, taken out of the session: shown once.
    const pending = (await getSession(req))?.data[PENDING_KEY];
    let key: string | null = null;
    let message: AdminMessage | null = null;
    if (isPending(pending) && pending.userPk === user.pk) {
      await updateSession(req, (data) => {
        delete data[PENDING_KEY];
      });
      const token = await req.app.services.get('tokens').get(user, pending.name);
      // Only the token that was just made, not one made since by someone else.
      if (token && token.id === pending.tokenId && token.key !== null) {
        key = token.key;
        message = { level: 'success', text: SHOWN[pending.what].replace('{user}', user.username) };
      }
    }
    return this.page(req, `Token for ${user.username}`, keyBody({ username: user.username, key, tokensUrl }), message ? [message] : [], trail);
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const user = await req.app.services.get('users').getById(req.params['userPk'] as number);
    if (!user) throw new NotFound();
    const f = this.form(req);
    const name = f['name'] ?? '';
    const tokens = req.app.services.get('tokens');
    switch (f['action']) {
      case 'create':
        return this.created(req, user);
      case 'regenerate': {
        const token = await tokens.regenerate(user, name);
        this.logAction(req, 'token.regenerate', { userId: user.pk, username: user.username, tokenId: token.id, name });
        await this.history(req, { contentType: 'trestle_token', objectId: token.id, objectRepr: tokenName(user.username, name), flag: CHANGE, fields: ['Key'] });
        return this.keyMade(req, user, token, 'regenerated');
      }
      case 'delete': {
        const existing = await tokens.get(user, name);
        const deleted = await tokens.revoke(user, name);
        if (deleted) this.logAction(req, 'token.delete', { userId: user.pk, username: user.username, name });
        if (deleted && existing) await this.history(req, { contentType: 'trestle_token', objectId: existing.id, objectRepr: tokenName(user.username, name), flag: DELETION });
        return redirect(`${this.url(req, 'tokens')}?done=deleted&user=${user.pk}`);
      }
      default:
        throw new ValidationError({ action: ['Unknown action.'] });
    }
  }
}
