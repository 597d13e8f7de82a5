import type { ApiRequest } from '../request.js';
import type { MediaType } from '../media-types.js';
import type { Renderer, RenderContext } from '../renderers/base.js';
import { APIView } from '../views/api-view.js';
import { Response } from '../response.js';
import { JSONRenderer } from '../renderers/json.js';
import { JSONParser } from '../parsers/json.js';
import { FormParser } from '../parsers/form.js';
import { MultiPartParser } from '../parsers/multipart.js';
import { AllowAny } from '../permissions.js';
import { parseMediaType } from '../media-types.js';
import { enforceCsrf, getCsrfToken } from '../authentication/csrf.js';
import { include, path, type IncludeDef } from '../routing/routes.js';
import type { AppContext } from '../context.js';
import { renderPage, setHtmlSecurityHeaders } from '../pages/layout.js';
import { loginForm } from '../pages/login-page.js';
import { errorMessages } from '../pages/error-page.js';
import { login, logout } from './session.js';
import { NotAcceptable, NotFound } from '../exceptions.js';
import { authenticateLogin } from '../throttling/login.js';

/**
 * Whether `next` is a path on this site: starts with one `/`, no scheme,
 * no `//` or `/\` (browsers read both as another host), nothing but printable
 * ASCII (no control characters or characters outside Latin-1, which
 * a `Location` header cannot carry: such a `next` is ignored, as an unsafe one).
 */
export function isSafeRedirectPath(next: unknown): next is string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2000) return false;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return false;
  // Printable ASCII only: anything else cannot go into a Location header as is.
  return !/[^\x20-\x5b\x5d-\x7e]/.test(next);
}

/**
 * The login page for browsers (`text/html`): the shared layout with a form
 * that posts username, password, `csrfmiddlewaretoken` and `next` back to
 * the same URL; errors of a failed attempt above it. The page is never
 * cached and carries the pages' CSP and `X-Frame-Options: DENY`.
 */
export class LoginPageRenderer implements Renderer {
  mediaType = 'text/html';
  format = 'html';
  charset: string | null = 'utf-8';
  title = 'Log in';
  /** Text of the brand link in the navigation bar. */
  brand = 'Trestle';

  constructor(protected readonly app: AppContext) {}

  render(data: unknown, _accepted: MediaType, ctx: RenderContext): string {
    const d = (data ?? {}) as { csrfToken?: string; [k: string]: unknown };
    const req = ctx.request;
    if (req) {
      setHtmlSecurityHeaders(req.reply);
      req.reply.header('cache-control', 'no-store');
    }
    const next = req && isSafeRedirectPath(req.query['next']) ? req.query['next'] : '';
    const form = req?.method === 'POST' ? postedForm(req) : {};
    const body = loginForm({
      heading: this.title,
      formId: 'login-form',
      csrfToken: d.csrfToken ?? (req ? getCsrfToken(req) : ''),
      next,
      username: typeof form['username'] === 'string' ? form['username'] : '',
      errors: errorMessages(d),
    });
    return renderPage(this.app.settings, { title: `${this.title} – ${this.brand}`, brand: { text: this.brand, href: '/' }, body });
  }
}

/** The posted fields, or nothing when the body cannot be read (the error being shown may be about it). */
function postedForm(req: ApiRequest): Record<string, unknown> {
  try {
    const data = req.data;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isFormRequest(req: ApiRequest): boolean {
  const { type, subtype } = parseMediaType(req.contentType);
  return type === 'application' && subtype === 'x-www-form-urlencoded' || type === 'multipart' && subtype === 'form-data';
}

function redirect(to: string): Response {
  return new Response(null, { status: 302, headers: { Location: to } });
}

/**
 * DRF's browsable-API login (`/api-auth/login/`), for browsers and SPAs.
 *
 * ```
 * GET /api-auth/login/            -> csrftoken cookie; HTML form, or {"csrfToken": "…"} for JSON clients
 * POST /api-auth/login/           (CSRF always enforced, even though nobody is logged in yet)
 * Cookie: csrftoken=…
 * X-CSRFToken: …                  (or the csrfmiddlewaretoken form field)
 * {"username": "alice", "password": "…"}
 * -> form posts: 302 to a same-site `next` or LOGIN_REDIRECT_URL; JSON: 200 {"username", "csrfToken"}
 * ```
 */
export class LoginView extends APIView {
  static override viewName = 'Login';
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  override rendererClasses = [JSONRenderer, LoginPageRenderer];
  override parserClasses = [JSONParser, FormParser, MultiPartParser];

  requiredMessage = 'This field is required.';
  invalidLoginMessage = 'Please enter a correct username and password. Note that both fields may be case-sensitive.';
  inactiveMessage = 'This account is inactive.';

  get(req: ApiRequest): Response {
    return new Response({ csrfToken: getCsrfToken(req) });
  }

  async post(req: ApiRequest): Promise<Response> {
    enforceCsrf(req);
    const data = (req.data ?? {}) as Record<string, unknown>;
    const username = data['username'];
    const password = data['password'];
    const errors: Record<string, string[]> = {};
    if (typeof username !== 'string' || username === '') errors['username'] = [this.requiredMessage];
    if (typeof password !== 'string' || password === '') errors['password'] = [this.requiredMessage];
    if (Object.keys(errors).length === 0) {
      const user = await authenticateLogin(req, username as string, password as string);
      if (!user) errors['non_field_errors'] = [this.invalidLoginMessage];
      else if (!user.isActive) errors['non_field_errors'] = [this.inactiveMessage];
      else {
        await login(req, user);
        const next = isSafeRedirectPath(data['next']) ? data['next'] : isSafeRedirectPath(req.query['next']) ? req.query['next'] : null;
        if (isFormRequest(req)) return redirect(next ?? req.app.settings.LOGIN_REDIRECT_URL);
        return new Response({ username: user.username, csrfToken: getCsrfToken(req) });
      }
    }
    // Browsers get the form again (200, as Django); API clients a 400.
    const html = req.acceptedRenderer instanceof LoginPageRenderer;
    return new Response({ ...errors, csrfToken: getCsrfToken(req) }, { status: html ? 200 : 400 });
  }
}

/**
 * Logs out (`/api-auth/logout/`): POST only, CSRF enforced (as Django 5's
 * LogoutView), session deleted and cookie cleared — whatever the `Accept`
 * header, as Django: a client that accepts nothing this view renders still
 * gets logged out (and the first renderer's answer, not a 406).
 *
 * ```
 * POST /api-auth/logout/
 * Cookie: sessionid=…; csrftoken=…
 * X-CSRFToken: …
 * -> 200 {"detail": "Logged out."}, or 302 to a same-site `next` for form posts
 * ```
 */
export class LogoutView extends APIView {
  static override viewName = 'Logout';
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  override parserClasses = [JSONParser, FormParser, MultiPartParser];

  loggedOutMessage = 'Logged out.';

  override performContentNegotiation(req: ApiRequest, force = false): void {
    try {
      super.performContentNegotiation(req, force);
    } catch (err) {
      // Nothing fits the Accept header (or ?format=): log out all the same.
      if (!(err instanceof NotAcceptable) && !(err instanceof NotFound)) throw err;
      super.performContentNegotiation(req, true);
    }
  }

  async post(req: ApiRequest): Promise<Response> {
    enforceCsrf(req);
    await logout(req);
    const body = isFormRequest(req) ? ((req.data ?? {}) as Record<string, unknown>) : {};
    const next = isSafeRedirectPath(body['next']) ? body['next'] : isSafeRedirectPath(req.query['next']) ? req.query['next'] : null;
    if (next !== null) return redirect(next);
    return new Response({ detail: this.loggedOutMessage });
  }
}

/**
 * The login and logout routes, as DRF's `rest_framework.urls`: mount them
 * with the app's routes; names `rest_framework:login` / `rest_framework:logout`.
 *
 * @example
 * createApp({ routes: [...apiRoutes, authRoutes()] });
 */
export function authRoutes(prefix = 'api-auth/'): IncludeDef {
  return include(prefix, [path('login/', LoginView, { name: 'login' }), path('logout/', LogoutView, { name: 'logout' })], {
    namespace: 'rest_framework',
  });
}
