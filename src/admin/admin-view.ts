import type { ApiRequest } from '../request.js';
import type { AuthenticationClass } from '../authentication/base.js';
import type { PermissionClass } from '../permissions.js';
import type { ParserClass } from '../parsers/base.js';
import type { RendererClass } from '../renderers/base.js';
import type { ThrottleClass } from '../throttling/base.js';
import type { User } from '../users/user.js';
import { APIView } from '../views/api-view.js';
import { Response } from '../response.js';
import { FormParser } from '../parsers/form.js';
import { AllowAny } from '../permissions.js';
import { PermissionDenied } from '../exceptions.js';
import { SessionAuthentication } from '../authentication/session.js';
import { getCsrfToken } from '../authentication/csrf.js';
import { escapeHtml } from '../browsable/escape-html.js';
import type { ViewOpenAPI } from '../schema/types.js';
import { AdminPage, AdminRenderer, type AdminMessage } from './admin-page.js';

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
  protected url(req: ApiRequest, name: AdminRouteName, params?: Record<string, number | string>): string {
    const ns = req.resolverMatch?.namespace;
    return req.app.services.get('routes').reverse(ns ? `${ns}:${name}` : name, params);
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

  /** A page with the navigation of a logged-in staff user. */
  protected page(req: ApiRequest, title: string, body: string, messages: readonly AdminMessage[] = []): AdminPage {
    return new AdminPage(title, body, {
      user: req.user,
      messages,
      csrfToken: getCsrfToken(req),
      nav: {
        index: this.url(req, 'index'),
        users: this.url(req, 'users'),
        tokens: this.url(req, 'tokens'),
        logout: this.url(req, 'logout'),
      },
    });
  }

  /** The hidden CSRF field every admin form carries. */
  protected csrfField(req: ApiRequest): string {
    return `<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(getCsrfToken(req))}">`;
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

  /** Logs an admin change with who made it: `{ actor, action, target }`. */
  protected logAction(req: ApiRequest, action: string, target: Record<string, unknown>): void {
    req.app.log.info({ actor: req.user.username, actorId: req.user.pk, action, target }, `admin: ${action}`);
  }
}

/** A 302 to a same-site path. */
export function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location } });
}
