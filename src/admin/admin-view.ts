import type { ApiRequest } from '../request.js';
import type { AuthenticationClass } from '../authentication/base.js';
import type { PermissionClass } from '../permissions.js';
import type { ParserClass } from '../parsers/base.js';
import type { RendererClass } from '../renderers/base.js';
import type { ThrottleClass } from '../throttling/base.js';
import type { User } from '../users/user.js';
import { APIView } from '../views/api-view.js';
import { ADDITION, CHANGE, DELETION, changeMessageJson, logAction as writeLogEntry } from './log-entry.js';
import { Response } from '../response.js';
import { FormParser } from '../parsers/form.js';
import { AllowAny } from '../permissions.js';
import { PermissionDenied } from '../exceptions.js';
import { SessionAuthentication } from '../authentication/session.js';
import { getCsrfToken } from '../authentication/csrf.js';
import type { ViewOpenAPI } from '../schema/types.js';
import { AdminPage, AdminRenderer, type AdminMessage, type AdminNav } from './admin-page.js';
import type { SafeHtml } from '../pages/html.js';
import type { Breadcrumb } from '../pages/layout.js';
import { csrfField, type SortHeader } from '../pages/admin-templates.js';
import { USER_ORDERINGS, type UserOrdering } from '../users/store.js';
import type { UserRecord } from '../users/user-record.js';
import { displayedPageNumbers, pageLinks } from '../pagination/html.js';
import { numbersTemplate } from '../browsable/pagination-controls.js';

/** One page of the user list, as the users and tokens pages show it. */
export interface UserListPage {
  search: string;
  /** The sort asked for with `?o=` (a known column), or `null`. */
  ordering: UserOrdering | null;
  count: number;
  rows: UserRecord[];
  /** The list's URL (without query). */
  base: string;
  /** The page controls' HTML, empty when there is one page. */
  controls: string;
  /** A header that sorts by `column` (ascending first, then flips). */
  sortHeader(label: string, column: string): SortHeader;
}

/** Names of the admin routes inside the admin namespace. */
export type AdminRouteName = 'index' | 'login' | 'logout' | 'users' | 'user' | 'tokens' | 'token';

/**
 * The base of the admin console's pages: session authentication (which
 * enforces CSRF on every form post of a logged-in user), HTML forms in,
 * HTML out, staff users only. Anyone else is sent to the admin login page
 * (GET) or refused (POST).
 */
export class AdminView extends APIView {
  override authenticationClasses: AuthenticationClass[] = [SessionAuthentication];
  override permissionClasses: PermissionClass[] = [AllowAny];
  override throttleClasses: ThrottleClass[] = [];
  override parserClasses: ParserClass[] = [FormParser];
  override rendererClasses: RendererClass[] = [AdminRenderer];
  openapi: ViewOpenAPI = { exclude: true };

  /** The URL of an admin route, in the namespace this view was mounted under. */
  protected url(req: ApiRequest, name: AdminRouteName | (string & {}), params?: Record<string, number | string>): string {
    const ns = req.resolverMatch?.namespace;
    return req.app.services.get('routes').reverse(ns ? `${ns}:${name}` : name, params);
  }

  /** Rows per page of the user lists. */
  pageSize = 25;

  /** The users matching `?q=`, page `?page=` of them, with DRF-style page controls. */
  protected async userListPage(req: ApiRequest, name: AdminRouteName): Promise<UserListPage> {
    const users = req.app.services.get('users');
    const search = (req.query['q'] ?? '').trim();
    const asked = req.query['o'] ?? '';
    const ordering = (USER_ORDERINGS as readonly string[]).includes(asked) ? (asked as UserOrdering) : null;
    const count = await users.count(search ? { search } : {});
    const pages = Math.max(1, Math.ceil(count / this.pageSize));
    const requested = Number.parseInt(req.query['page'] ?? '1', 10);
    const page = Number.isInteger(requested) && requested >= 1 ? Math.min(requested, pages) : 1;
    const rows = await users.list({
      ...(search ? { search } : {}),
      ...(ordering ? { ordering } : {}),
      limit: this.pageSize,
      offset: (page - 1) * this.pageSize,
    });
    const base = this.url(req, name);
    const listUrl = (n: number, o: string | null) => {
      const q = new URLSearchParams();
      if (o) q.set('o', o);
      if (search) q.set('q', search);
      if (n > 1) q.set('page', String(n));
      const s = q.toString();
      return s ? `${base}?${s}` : base;
    };
    const pageUrl = (n: number) => listUrl(n, ordering);
    const sortHeader = (label: string, column: string): SortHeader => {
      const sort = ordering === column ? 'ascending' : ordering === `-${column}` ? 'descending' : null;
      return { label, sort, href: listUrl(1, sort === 'ascending' ? `-${column}` : column) };
    };
    const controls = pages > 1 ? paginationNav(page, displayedPageNumbers(page, pages), page < pages, pageUrl) : '';
    return { search, ordering, count, rows, base, controls, sortHeader };
  }

  /** `null` when the user is active staff; else the answer for everyone else. */
  protected guard(req: ApiRequest): Response | null {
    const user = req.user as User | null;
    if (user && user.isAuthenticated && user.isActive && user.isStaff) return null;
    if (req.method === 'GET' || req.method === 'HEAD') {
      return redirect(`${this.url(req, 'login')}?next=${encodeURIComponent(req.raw.url)}`);
    }
    throw new PermissionDenied();
  }

  /** A page with the navigation of a logged-in staff user, and breadcrumbs from the index. */
  protected page(
    req: ApiRequest,
    title: string,
    body: string | SafeHtml,
    messages: readonly AdminMessage[] = [],
    trail: readonly Breadcrumb[] = [],
    scripts: readonly string[] = [],
  ): AdminPage {
    const nav = this.navUrls(req);
    return new AdminPage(title, body, {
      user: req.user,
      messages,
      csrfToken: getCsrfToken(req),
      nav,
      breadcrumbs: [{ name: 'Home', url: nav.index }, ...trail],
      ...(scripts.length ? { scripts } : {}),
    });
  }

  private navUrls(req: ApiRequest): AdminNav {
    return {
      index: this.url(req, 'index'),
      users: this.url(req, 'users'),
      tokens: this.url(req, 'tokens'),
      logout: this.url(req, 'logout'),
    };
  }

  /** The navigation of an error page: only for a logged-in active staff user. */
  adminNavigation(req: ApiRequest): { nav: AdminNav; csrfToken: string } | null {
    const user = req.isAuthenticationResolved ? (req.user as User | null) : null;
    if (!user || !user.isAuthenticated || !user.isActive || !user.isStaff) return null;
    try {
      return { nav: this.navUrls(req), csrfToken: getCsrfToken(req) };
    } catch {
      return null;
    }
  }

  /** Every admin answer, pages and redirects alike, is `Cache-Control: no-store`. */
  override finalizeResponse(req: ApiRequest, res: Response): Response {
    res.headers['Cache-Control'] = 'no-store';
    return super.finalizeResponse(req, res);
  }

  /** The hidden CSRF field every admin form carries. */
  protected csrfField(req: ApiRequest): SafeHtml {
    return csrfField(getCsrfToken(req));
  }

  /** The parsed form, field by field (the first value of each). */
  protected form(req: ApiRequest): Record<string, string> {
    const data = req.data as Record<string, unknown> | null;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(data ?? {})) {
      const first = Array.isArray(v) ? v[0] : v;
      if (typeof first === 'string') out[k] = first;
    }
    return out;
  }

  /**
   * Writes Django's history row of a change made through the admin
   * (`trestle_admin_log`; skipped when the app has no database):
   * `fields` are the labels a change changed.
   */
  protected async history(
    req: ApiRequest,
    entry: { contentType: string; objectId: string | number; objectRepr: string; flag: typeof ADDITION | typeof CHANGE | typeof DELETION; fields?: readonly string[] },
  ): Promise<void> {
    if (!req.app.services.has('db')) return;
    await writeLogEntry(req.app.services.get('db'), {
      userId: Number(req.user.pk),
      contentType: entry.contentType,
      objectId: String(entry.objectId),
      objectRepr: entry.objectRepr,
      actionFlag: entry.flag,
      changeMessage: entry.flag === DELETION ? '' : changeMessageJson(entry.flag, entry.fields ?? []),
    });
  }

  /** Logs an admin change with who made it: `{ actor, action, target }`. */
  protected logAction(req: ApiRequest, action: string, target: Record<string, unknown>): void {
    req.app.log.info({ actor: req.user.username, actorId: req.user.pk, action, target }, `admin: ${action}`);
  }
}

/** A 302 to a same-site path. */
export function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location } });
}

/** A list's page links (previous, the numbers with `null` as a break, next), as the admin's lists show them. */
export function paginationNav(page: number, numbers: (number | null)[], hasNext: boolean, pageUrl: (n: number) => string): string {
  return `<nav id="pagination-controls" aria-label="Pagination">${numbersTemplate({
    previous_url: page > 1 ? pageUrl(page - 1) : null,
    next_url: hasNext ? pageUrl(page + 1) : null,
    page_links: pageLinks(numbers, page, pageUrl),
  })}</nav>`;
}
