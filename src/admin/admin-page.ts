import type { AppContext } from '../context.js';
import type { MediaType } from '../media-types.js';
import type { Renderer, RenderContext } from '../renderers/base.js';
import type { User } from '../users/user.js';
import type { SafeHtml } from '../pages/html.js';
import { html, unsafeRaw } from '../pages/html.js';
import { renderPage, setHtmlSecurityHeaders, type Breadcrumb } from '../pages/layout.js';
import { errorPageBody, messageList } from '../pages/error-page.js';

/** A message shown at the top of an admin page. */
export interface AdminMessage {
  readonly level: 'success' | 'error' | 'info';
  readonly text: string;
}

/** URLs of the admin navigation. */
export interface AdminNav {
  index: string;
  users: string;
  tokens: string;
  logout: string;
}

/**
 * An admin page as a view returns it. `body` is markup the view built with
 * the `html` template tag (or `escapeHtml` around every value); only an
 * `AdminPage` is trusted that way — any other data (an error body) is
 * escaped by the renderer.
 */
export class AdminPage {
  constructor(
    readonly title: string,
    readonly body: string | SafeHtml,
    readonly options: {
      readonly user?: User | null;
      readonly messages?: readonly AdminMessage[];
      /** URLs of the navigation: index, users, tokens, logout. */
      readonly nav?: AdminNav;
      readonly csrfToken?: string;
      readonly breadcrumbs?: readonly Breadcrumb[];
      /** Trestle's static scripts the page loads (`admin-autocomplete.js`). */
      readonly scripts?: readonly string[];
    } = {},
  ) {}
}

/** What the renderer asks of the view for an error page's navigation (AdminView answers it). */
interface AdminNavSource {
  adminNavigation(req: NonNullable<RenderContext['request']>): { nav: AdminNav; csrfToken: string } | null;
}

function isNavSource(view: unknown): view is AdminNavSource {
  return typeof (view as Partial<AdminNavSource> | null)?.adminNavigation === 'function';
}

/**
 * Renders `AdminPage`s, and errors as HTML pages with the same navigation,
 * with Trestle's stylesheet, a strict CSP and `Cache-Control: no-store`
 * (set by `AdminView` on every answer).
 */
export class AdminRenderer implements Renderer {
  mediaType = 'text/html';
  format = 'html';
  charset: string | null = 'utf-8';
  siteHeader = 'Trestle administration';

  constructor(protected readonly app: AppContext) {}

  render(data: unknown, _accepted: MediaType, ctx: RenderContext): string {
    const req = ctx.request;
    if (req) setHtmlSecurityHeaders(req.reply);
    if (!(data instanceof AdminPage)) {
      const found = req && isNavSource(ctx.view) ? ctx.view.adminNavigation(req) : null;
      return renderPage(this.app.settings, {
        title: `Error – ${this.siteHeader}`,
        brand: { text: this.siteHeader, href: found?.nav.index ?? '/' },
        nav: found && req ? this.navigation(found.nav, req.user as User, found.csrfToken) : '',
        body: errorPageBody(ctx.response.status, data, found ? { href: found.nav.index, text: 'Back to the administration' } : null),
      });
    }
    const { user, messages = [], nav, csrfToken = '', breadcrumbs, scripts } = data.options;
    return renderPage(this.app.settings, {
      title: `${data.title} – ${this.siteHeader}`,
      brand: { text: this.siteHeader, href: nav?.index ?? '/' },
      nav: nav && user && user.isAuthenticated ? this.navigation(nav, user, csrfToken) : '',
      ...(breadcrumbs ? { breadcrumbs } : {}),
      ...(scripts?.length ? { scripts } : {}),
      body: html`${messageList(messages)}\n${typeof data.body === 'string' ? unsafeRaw(data.body) : data.body}`,
    });
  }

  protected navigation(nav: AdminNav, user: User, csrfToken: string): SafeHtml {
    return html`<a href="${nav.users}">Users</a>
<a href="${nav.tokens}">Tokens</a>
<span class="user">${user.username}</span>
<form method="post" action="${nav.logout}"><input type="hidden" name="csrfmiddlewaretoken" value="${csrfToken}"><button type="submit" class="link" id="admin-logout">Log out</button></form>`;
  }
}
