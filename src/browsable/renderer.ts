import { STATUS_CODES } from 'node:http';
import type { AppContext } from '../context.js';
import type { MediaType } from '../media-types.js';
import type { ApiRequest } from '../request.js';
import type { Renderer, RenderContext } from '../renderers/base.js';
import type { User } from '../users/user.js';
import { parseMediaType } from '../media-types.js';
import { APIView } from '../views/api-view.js';
import { GenericAPIView } from '../views/generics.js';
import { getCsrfToken } from '../authentication/csrf.js';
import { escapeHtml } from './escape-html.js';
import { jsonToHtml } from './json-html.js';
import { renderPage, setHtmlSecurityHeaders, type Breadcrumb } from '../pages/layout.js';
import type { SafeHtml } from '../pages/html.js';
import type { FieldInfo } from '../serializers/field.js';
import { deleteDialog, formsArea, htmlForm, rawDataForm, type FormField } from '../pages/browsable-templates.js';
import { PAGINATION_TEMPLATES, renderPaginationControls, type PaginationTemplate } from './pagination-controls.js';
import { renderFilterControls } from './filter-controls.js';

const FORM_METHODS = ['POST', 'PUT', 'PATCH'] as const;
/** Media types a browser can send as typed text from the raw-data form. */
const TEXT_BODY = (mediaType: string) => !mediaType.startsWith('multipart/');

/**
 * DRF's `BrowsableAPIRenderer`: the HTML page a browser gets for any API
 * response when it prefers `text/html` (or asks `?format=api`).
 *
 * ```
 * GET /api/items/ HTTP/1.1
 * Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*\/*;q=0.8
 * ```
 *
 * The page shows the view's name and description, the request line, the
 * status line and the `Allow`, `Content-Type` and `Vary` headers, the body
 * as the view's JSON renderer writes it (indented, URLs clickable), the
 * pagination controls of the view's pagination class, the request's
 * version, log in / log out links (when `authRoutes()` is mounted) and a
 * raw-data form for POST, PUT and PATCH plus a DELETE button, each sent by
 * `fetch` with the `X-CSRFToken` header (see docs/browsable-api.md).
 * Every printed value is HTML-escaped; the page carries a strict CSP and
 * loads only files served by this app.
 */
export class BrowsableAPIRenderer implements Renderer {
  mediaType = 'text/html';
  format = 'api';
  charset: string | null = 'utf-8';
  /** Page-control templates by name; add one for a custom pagination `template`. */
  paginationTemplates: Record<string, PaginationTemplate> = { ...PAGINATION_TEMPLATES };
  /** Text of the brand link in the navigation bar. */
  brand = 'Trestle';

  constructor(protected readonly app: AppContext) {}

  render(data: unknown, _accepted: MediaType, ctx: RenderContext): string {
    const req = ctx.request;
    const view = ctx.view instanceof APIView ? ctx.view : null;
    const status = ctx.response.status;
    if (req) setHtmlSecurityHeaders(req.reply);

    const contentRenderer = view?.policies.renderers.find((r) => r.mediaType !== 'text/html') ?? null;
    const contentType = contentRenderer?.mediaType ?? 'application/json';
    const content = this.renderContent(data, contentRenderer);
    const headers: Record<string, string> = { ...ctx.response.headers, 'Content-Type': contentType };
    const headerLines = Object.keys(headers)
      .sort((a, b) => a.localeCompare(b))
      .map((name) => `<b>${escapeHtml(name)}:</b> <span class="lit">${escapeHtml(headers[name])}</span>`);

    const name = view?.getViewName() ?? 'API';
    const description = view?.getViewDescription() ?? '';
    const user = req && req.isAuthenticationResolved ? (req.user as User | null) : null;
    const csrfToken = req ? getCsrfToken(req) : '';

    const body = [
      '<div class="page-header">',
      `<h1>${escapeHtml(name)}</h1>`,
      req && view ? this.toolbar(req, view) : '',
      req && view ? this.extraActions(req, view, status) : '',
      '</div>',
      description ? `<div class="description">${paragraphs(description)}</div>` : '',
      req && view ? this.filterControls(req, view, data) : '',
      req && view ? this.paginationControls(req, view) : '',
      `<div id="request-info" class="request-info" aria-label="request info"><pre class="prettyprint"><b>${escapeHtml(req?.method ?? 'GET')}</b> ${escapeHtml(req?.raw.url ?? '')}</pre></div>`,
      `<div id="response-info" class="response-info" aria-label="response info"><pre class="prettyprint"><span class="meta nocode"><b class="status-line">HTTP ${status} ${escapeHtml(STATUS_CODES[status] ?? '')}</b>\n${headerLines.join('\n')}</span>\n\n${content}</pre></div>`,
      req && view ? this.forms(req, view, data, status).value : '',
      req && view && this.showsDelete(req, view) ? deleteDialog(req.path).value : '',
    ].join('\n');

    return renderPage(this.app.settings, {
      title: `${name} – ${this.brand}`,
      brand: { text: this.brand, href: '/' },
      breadcrumbs: req ? this.breadcrumbs(req) : [],
      body,
      nav: req ? this.navigation(req, user, csrfToken) : '',
      scripts: ['browsable.js'],
      data: { 'csrf-token': csrfToken, 'csrf-header': this.app.settings.CSRF_HEADER_NAME },
    });
  }

  /** The body as the view's own (JSON) renderer writes it, indented, as HTML. */
  protected renderContent(data: unknown, renderer: Renderer | null): string {
    if (data === undefined || data === null) return '';
    if (!renderer) return jsonToHtml(JSON.stringify(data, null, 4));
    const out = renderer.render(data, parseMediaType(`${renderer.mediaType}; indent=4`), {
      request: null,
      response: { status: 200, headers: {}, data } as unknown as RenderContext['response'],
      view: null,
    });
    const text = typeof out === 'string' ? out : out.toString('utf8');
    return renderer.mediaType.includes('json') ? jsonToHtml(text) : escapeHtml(text);
  }

  /** GET-as-JSON link, OPTIONS and (when allowed) DELETE buttons. */
  protected toolbar(req: ApiRequest, view: APIView): string {
    const params = new URLSearchParams(req.queryString);
    params.set('format', this.jsonFormat(view));
    const parts = [`<a class="btn" href="${escapeHtml(`${req.path}?${params}`)}" rel="nofollow">GET json</a>`];
    if (view.allowedMethods.includes('OPTIONS')) parts.push('<button type="button" class="btn" data-method="OPTIONS">OPTIONS</button>');
    if (this.showsDelete(req, view)) {
      // Opens the confirmation dialog; its "Yes, delete" sends the request.
      parts.push('<button type="button" class="btn btn-danger" data-confirm="delete-dialog" aria-haspopup="dialog">DELETE</button>');
    }
    return `<div class="toolbar">${parts.join('')}</div>`;
  }

  /**
   * DRF's "Extra Actions" drop-down: on a viewset routed by a router, a link
   * to each extra action of the same level (detail actions on a detail or
   * detail-action page, list actions on a list or list-action page), named
   * by the action's view name, from `getExtraActionUrlMap`. Nothing on a 401
   * or 403 page or when the view has no extra action there, as DRF.
   */
  protected extraActions(req: ApiRequest, view: APIView, status: number): string {
    if (status === 401 || status === 403) return '';
    const map = (view as { getExtraActionUrlMap?: (req: ApiRequest) => Record<string, string> }).getExtraActionUrlMap;
    if (typeof map !== 'function') return '';
    const urls = Object.entries(map.call(view, req));
    if (urls.length === 0) return '';
    const items = urls.map(([name, url]) => `<li><a href="${escapeHtml(url)}">${escapeHtml(name)}</a></li>`).join('');
    return `<details class="extra-actions"><summary class="btn" id="extra-actions-menu">Extra Actions</summary><ul class="dropdown-menu" aria-labelledby="extra-actions-menu">${items}</ul></details>`;
  }

  private jsonFormat(view: APIView): string {
    return view.policies.renderers.find((r) => r.mediaType !== 'text/html')?.format ?? 'json';
  }

  /** The filter backends' controls (search, ordering, filter set) on a list response, or nothing. */
  protected filterControls(req: ApiRequest, view: APIView, data: unknown): string {
    if (!(view instanceof GenericAPIView) || req.method !== 'GET' || view.filterBackendInstances.length === 0) return '';
    const isList = Array.isArray(data) || (data !== null && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results));
    if (!isList) return '';
    const controls = [];
    for (const backend of view.filterBackendInstances) {
      const control = backend.htmlContext(req, view);
      if (control) controls.push(control);
    }
    return renderFilterControls(controls, req.path, req.queryParams);
  }

  private showsDelete(req: ApiRequest, view: APIView): boolean {
    return view.allowedMethods.includes('DELETE') && this.mayUse(req, view, 'DELETE');
  }

  /**
   * DRF's breadcrumbs: every prefix of the path that is a route of this app,
   * named by its view, ending with this page.
   */
  protected breadcrumbs(req: ApiRequest): Breadcrumb[] {
    const routes = this.app.services.tryGet('routes');
    if (!routes) return [];
    const path = req.path;
    const crumbs: Breadcrumb[] = [];
    let prefix = '/';
    const segments = path.split('/').filter(Boolean);
    for (let i = 0; i <= segments.length; i++) {
      if (i > 0) prefix += `${segments[i - 1]}/`;
      const url = i === segments.length ? path : prefix;
      let decoded: string;
      try {
        decoded = decodeURIComponent(url);
      } catch {
        continue;
      }
      const route = routes.resolve(decoded)?.route;
      if (route) crumbs.push({ name: viewName(route.view), url });
    }
    return crumbs;
  }

  /** The view's pagination controls for a page read with GET, or nothing (never on a write's answer). */
  protected paginationControls(req: ApiRequest, view: APIView): string {
    if (req.method !== 'GET' && req.method !== 'HEAD') return '';
    if (!(view instanceof GenericAPIView) || !view.paginator || req.pagination === null) return '';
    let context: Record<string, unknown> | null;
    try {
      context = view.paginator.htmlContext(req);
    } catch {
      return '';
    }
    return renderPaginationControls(view.paginator.template, context, this.paginationTemplates);
  }

  /**
   * DRF's forms for POST / PUT / PATCH: the "HTML form" tab, generated from
   * the view's `inputFields` for POST (list) or PUT (detail), and the "Raw
   * data" tab with every write method the view allows this user. After a
   * 400 the HTML form shows the values sent and each field's errors.
   */
  protected forms(req: ApiRequest, view: APIView, data: unknown, status: number): SafeHtml {
    const methods = FORM_METHODS.filter((m) => view.allowedMethods.includes(m) && this.mayUse(req, view, m));
    if (methods.length === 0) return formsArea({ htmlForm: null, rawForm: null });
    const types = view.policies.parsers.map((p) => p.mediaType).filter(TEXT_BODY);
    const objectShown = !methods.includes('POST') && status < 300 && isPlainObject(data);
    const rawForm = types.length === 0 ? null : rawDataForm({ types, methods, content: objectShown ? JSON.stringify(data, null, 4) : '' });

    let form: SafeHtml | null = null;
    const formMethod = methods.find((m): m is 'POST' | 'PUT' => m === 'POST' || m === 'PUT');
    const described: readonly FieldInfo[] | undefined = view instanceof GenericAPIView ? view.getSerializerClass(req)?.fieldInfo() : undefined;
    const contentType = types.find((t) => t === 'application/json') ?? types.find((t) => t === 'application/x-www-form-urlencoded');
    if (formMethod && described && contentType) {
      const failed = status === 400 && req.method === formMethod && isPlainObject(data);
      const errors: Record<string, string[]> = {};
      if (failed) {
        for (const [k, v] of Object.entries(data)) if (Array.isArray(v)) errors[k] = v.map(String);
      }
      // Read-only fields are not sent, and nested serializers have no HTML input (as DRF): the raw tab takes those.
      const fields: FormField[] = described.filter((f) => !f.readOnly && f.inputType !== 'fieldset');
      const nonField = Object.keys(errors).filter((k) => !fields.some((f) => f.name === k));
      form = htmlForm({
        method: formMethod,
        fields,
        values: failed ? sentData(req) : objectShown ? data : {},
        errors,
        nonFieldErrors: nonField.flatMap((k) => errors[k]!),
        contentType,
      });
    }
    return formsArea({ htmlForm: form, rawForm });
  }

  /**
   * Whether the permissions would let this user send `method` here (DRF's
   * `show_form_for_method`). Checks that answer asynchronously are given
   * the benefit of the doubt: the server decides when the form is sent.
   */
  protected mayUse(req: ApiRequest, view: APIView, method: string): boolean {
    if (!req.isAuthenticationResolved) return false;
    const asMethod = Object.create(req, { method: { value: method } }) as ApiRequest;
    for (const permission of view.policies.permissions) {
      try {
        const ok = permission.hasPermission(asMethod, view);
        if (ok === false) return false;
        if (ok instanceof Promise) ok.catch(() => undefined);
      } catch {
        return false;
      }
    }
    return true;
  }

  /** Version badge, user name and log in / log out. */
  protected navigation(req: ApiRequest, user: User | null, csrfToken: string): string {
    const parts: string[] = [];
    if (req.version !== null) parts.push(`<span class="badge" title="API version">Version: ${escapeHtml(req.version)}</span>`);
    const routes = this.app.services.tryGet('routes');
    const here = req.raw.url;
    if (user && user.isAuthenticated) {
      parts.push(`<span class="user">${escapeHtml(user.username)}</span>`);
      if (routes?.hasName('rest_framework:logout')) {
        const action = routes.reverse('rest_framework:logout');
        parts.push(
          `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(csrfToken)}"><input type="hidden" name="next" value="${escapeHtml(here)}"><button type="submit" class="link" id="logout-button">Log out</button></form>`,
        );
      }
    } else if (routes?.hasName('rest_framework:login')) {
      const login = `${routes.reverse('rest_framework:login')}?next=${encodeURIComponent(here)}`;
      parts.push(`<a href="${escapeHtml(login)}" id="login-link">Log in</a>`);
    }
    return parts.join('\n');
  }
}

/** A view target's name for breadcrumbs, without building the view. */
function viewName(target: unknown): string {
  const proto = typeof target === 'function' ? (target as { prototype: unknown }).prototype : target;
  return proto instanceof APIView ? proto.getViewName() : 'API';
}

/** What the client sent, for refilling the form after a 400 (nothing if the body cannot be read). */
function sentData(req: ApiRequest): Record<string, unknown> {
  try {
    const data = req.data;
    if (!isPlainObject(data)) return {};
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) out[k] = Array.isArray(v) ? v[0] : v;
    return out;
  } catch {
    return {};
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A description as escaped paragraphs (blank lines separate them). */
function paragraphs(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((p) => `<p>${escapeHtml(p.trim())}</p>`)
    .join('\n');
}
