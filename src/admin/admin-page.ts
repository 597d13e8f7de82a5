import type { AppContext } from '../context.js';
import type { MediaType } from '../media-types.js';
import type { Renderer, RenderContext } from '../renderers/base.js';
import type { User } from '../users/user.js';
import { escapeHtml } from '../browsable/escape-html.js';
import { renderPage, setHtmlSecurityHeaders } from '../browsable/html-page.js';

/** A message shown at the top of an admin page. */
export interface AdminMessage {
  readonly level: 'success' | 'error';
  readonly text: string;
}

/**
 * An admin page as a view returns it. `body` is markup the view built with
 * `escapeHtml` around every value; only an `AdminPage` is trusted that way —
 * any other data (an error body) is escaped by the renderer.
 */
export class AdminPage {
  constructor(
    readonly title: string,
    readonly body: string,
    readonly options: {
      readonly user?: User | null;
      readonly messages?: readonly AdminMessage[];
      /** URLs of the navigation: index, users, tokens, logout. */
      readonly nav?: { index: string; users: string; tokens: string; logout: string };
      readonly csrfToken?: string;
    } = {},
  ) {}
}

/** Renders `AdminPage`s (and errors) as HTML with Trestle's stylesheet and a strict CSP. */
export class AdminRenderer implements Renderer {
  mediaType = 'text/html';
  format = 'html';
  charset: string | null = 'utf-8';
  siteHeader = 'Trestle administration';

  constructor(protected readonly app: AppContext) {}

  render(data: unknown, _accepted: MediaType, ctx: RenderContext): string {
    if (ctx.request) setHtmlSecurityHeaders(ctx.request.reply);
    if (!(data instanceof AdminPage)) {
      const detail = (data as { detail?: unknown } | null)?.detail;
      return renderPage(this.app.settings, {
        title: `Error – ${this.siteHeader}`,
        brand: { text: this.siteHeader, href: '/' },
        body: `<h1>${escapeHtml(ctx.response.status)}</h1><p>${escapeHtml(typeof detail === 'string' ? detail : JSON.stringify(data))}</p>`,
      });
    }
    const { user, messages = [], nav, csrfToken = '' } = data.options;
    let navigation = '';
    if (nav && user && user.isAuthenticated) {
      navigation = [
        `<a href="${escapeHtml(nav.users)}">Users</a>`,
        `<a href="${escapeHtml(nav.tokens)}">Tokens</a>`,
        `<span class="user">${escapeHtml(user.username)}</span>`,
        `<form method="post" action="${escapeHtml(nav.logout)}"><input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(csrfToken)}"><button type="submit" class="link" id="admin-logout">Log out</button></form>`,
      ].join('\n');
    }
    const list = messages.length
      ? `<ul class="messages">${messages.map((m) => `<li class="${m.level}" role="status">${escapeHtml(m.text)}</li>`).join('')}</ul>`
      : '';
    return renderPage(this.app.settings, {
      title: `${data.title} – ${this.siteHeader}`,
      brand: { text: this.siteHeader, href: nav?.index ?? '/' },
      nav: navigation,
      body: `${list}\n${data.body}`,
    });
  }
}
