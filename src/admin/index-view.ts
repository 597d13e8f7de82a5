import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import { escapeHtml } from '../browsable/escape-html.js';
import type { AdminPage } from './admin-page.js';
import { AdminView } from './admin-view.js';

/** `GET /admin/`: the console's start page, with the number of users. */
export class AdminIndexView extends AdminView {
  static override viewName = 'Administration';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const users = await req.app.services.get('users').count();
    const body = `<h1>Site administration</h1>
<table class="list">
<thead><tr><th>Section</th><th></th></tr></thead>
<tbody>
<tr><td><a href="${escapeHtml(this.url(req, 'users'))}">Users</a></td><td>${users} user${users === 1 ? '' : 's'}</td></tr>
<tr><td><a href="${escapeHtml(this.url(req, 'tokens'))}">Tokens</a></td><td>API tokens of each user</td></tr>
</tbody>
</table>`;
    return this.page(req, 'Site administration', body);
  }
}
