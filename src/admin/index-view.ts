import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import { html } from '../pages/html.js';
import { indexBody } from '../pages/admin-templates.js';
import type { AdminPage } from './admin-page.js';
import { AdminView } from './admin-view.js';
import type { AdminSite } from './model-admin.js';
import { modelIndexSections } from './model-views.js';

/**
 * `GET /admin/`: the console's start page: users and tokens, then every
 * registered model the user may see, grouped by app, and the user's recent
 * actions.
 */
export class AdminIndexView extends AdminView {
  static override viewName = 'Administration';
  /** The registered models; set by `adminRoutes({ site })`. */
  site: AdminSite | null = null;

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const userCount = await req.app.services.get('users').count();
    const base = indexBody({ usersUrl: this.url(req, 'users'), tokensUrl: this.url(req, 'tokens'), userCount });
    if (!this.site) return this.page(req, 'Site administration', base);
    const models = await modelIndexSections(req, this.site, (name, params) => this.url(req, name, params));
    return this.page(req, 'Site administration', html`${base}\n${models}`);
  }
}
