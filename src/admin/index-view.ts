import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import { indexBody } from '../pages/admin-templates.js';
import type { AdminPage } from './admin-page.js';
import { AdminView } from './admin-view.js';

/** `GET /admin/`: the console's start page, with the number of users. */
export class AdminIndexView extends AdminView {
  static override viewName = 'Administration';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const userCount = await req.app.services.get('users').count();
    return this.page(req, 'Site administration', indexBody({ usersUrl: this.url(req, 'users'), tokensUrl: this.url(req, 'tokens'), userCount }));
  }
}
