// Authentication, permission and throttle pieces of the example service:
// the login/logout routes, one route per scheme, a custom scheme, composed
// permissions and throttles. Wired into the example's routes by example/main.ts.
import {
  APIView,
  AllowAny,
  AnonRateThrottle,
  AuthenticationFailed,
  BasicAuthentication,
  IsAdminUser,
  IsAuthenticated,
  IsAuthenticatedOrReadOnly,
  RemoteUserAuthentication,
  ScopedRateThrottle,
  SessionAuthentication,
  TokenAuthentication,
  UserRateThrottle,
  authRoutes,
  getCsrfToken,
  not,
  or,
  path,
  type AppContext,
  type ApiRequest,
  type Authentication,
  type Permission,
  type RouteEntry,
  type User,
} from '../src/index.js';

/**
 * The custom scheme from DRF's documentation:
 *
 * ```
 * GET /auth/custom/ HTTP/1.1
 * X-USERNAME: alice
 * ```
 *
 * No header: not attempted. Unknown user: 401/403 `No such user`. No
 * `authenticateHeader`, so denials are 403. (Trust a header like this only
 * behind a proxy that sets it; it is an example of the interface.)
 */
export class XUsernameAuthentication implements Authentication {
  noSuchUserMessage = 'No such user';

  constructor(private readonly app: AppContext) {}

  async authenticate(req: ApiRequest): Promise<[User, null] | null> {
    const raw = req.headers['x-username'];
    const username = Array.isArray(raw) ? raw[0] : raw;
    if (!username) return null;
    const user = await this.app.services.get('users').getByUsername(username);
    if (!user) throw new AuthenticationFailed(this.noSuchUserMessage);
    return [user, null];
  }
}

/** `Bearer <key>` instead of `Token <key>`: the two-line subclass. */
export class BearerAuthentication extends TokenAuthentication {
  override keyword = 'Bearer';
}

/** Who the request is, as each scheme sees it. */
class WhoAmI extends APIView {
  override permissionClasses = [IsAuthenticated];

  async get(req: ApiRequest): Promise<Record<string, unknown>> {
    return { username: req.user.username, scheme: req.successfulAuthenticator?.constructor.name ?? null };
  }

  // Session clients prove CSRF here; Basic/Token clients need nothing more.
  async post(req: ApiRequest): Promise<Record<string, unknown>> {
    return { username: req.user.username, received: req.data };
  }
}

export class BasicWhoAmI extends WhoAmI {
  override authenticationClasses = [BasicAuthentication];
}
export class TokenWhoAmI extends WhoAmI {
  override authenticationClasses = [TokenAuthentication, BearerAuthentication];
}
export class SessionWhoAmI extends WhoAmI {
  override authenticationClasses = [SessionAuthentication];
}
export class RemoteUserWhoAmI extends WhoAmI {
  override authenticationClasses = [RemoteUserAuthentication];
}
export class CustomWhoAmI extends WhoAmI {
  override authenticationClasses = [XUsernameAuthentication];
}

/** `GET /auth/csrf/` → `{"csrfToken": "…"}` and the csrftoken cookie, for SPAs. */
export class CsrfTokenView extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest): Record<string, string> {
    return { csrfToken: getCsrfToken(req) };
  }
}

/** Object-level rule: only the owner may change a note; anyone may read. */
export class IsOwnerOrReadOnly implements Permission {
  message = 'Only the owner may change this note.';
  hasPermission(): boolean {
    return true;
  }
  hasObjectPermission(req: ApiRequest, _view: APIView, obj: unknown): boolean {
    return req.method === 'GET' || (obj as { owner?: string }).owner === req.user.username;
  }
}

/** Staff may do anything; others read only. Anonymous writes are refused, staff-only deletes. */
export class StaffOrReadOnly extends APIView {
  override authenticationClasses = [SessionAuthentication, BasicAuthentication, TokenAuthentication];
  override permissionClasses = [or(IsAdminUser, IsAuthenticatedOrReadOnly)];
  get(): Record<string, string> {
    return { detail: 'anyone may read' };
  }
  post(req: ApiRequest): Record<string, string> {
    return { detail: `written by ${req.user.username}` };
  }
}

/** Only for anonymous clients (e.g. sign-up): `not(IsAuthenticated)`. */
export class AnonymousOnly extends APIView {
  override permissionClasses = [not(IsAuthenticated)];
  get(): Record<string, string> {
    return { detail: 'hello, stranger' };
  }
}

/** Burst and sustained limits per user; settings give `burst` and `sustained` rates. */
export class BurstRateThrottle extends UserRateThrottle {
  override scope: string | null = 'burst';
}
export class SustainedRateThrottle extends UserRateThrottle {
  override scope: string | null = 'sustained';
}

export class ThrottledView extends APIView {
  override throttleClasses = [AnonRateThrottle, BurstRateThrottle, SustainedRateThrottle];
  get(): Record<string, string> {
    return { detail: 'not throttled yet' };
  }
}

/** Shares the `uploads` budget with every view of that scope. */
export class UploadView extends APIView {
  override throttleClasses = [ScopedRateThrottle];
  override throttleScope = 'uploads';
  post(): Record<string, string> {
    return { detail: 'uploaded' };
  }
}

/** Settings the routes below expect (merge into the example's settings). */
export const authSettings = {
  DEFAULT_THROTTLE_RATES: { anon: '100/day', user: '1000/day', burst: '60/min', sustained: '1000/day', uploads: '20/day' },
};

/** `/api-auth/login/`, `/api-auth/logout/` and one route per scheme under `/auth/`. */
export const authExampleRoutes: RouteEntry[] = [
  authRoutes(),
  path('auth/csrf/', CsrfTokenView, { name: 'auth-csrf' }),
  path('auth/basic/', BasicWhoAmI, { name: 'auth-basic' }),
  path('auth/token/', TokenWhoAmI, { name: 'auth-token' }),
  path('auth/session/', SessionWhoAmI, { name: 'auth-session' }),
  path('auth/remote-user/', RemoteUserWhoAmI, { name: 'auth-remote-user' }),
  path('auth/custom/', CustomWhoAmI, { name: 'auth-custom' }),
  path('auth/staff-or-read-only/', StaffOrReadOnly, { name: 'auth-staff-or-read-only' }),
  path('auth/anonymous-only/', AnonymousOnly, { name: 'auth-anonymous-only' }),
  path('auth/throttled/', ThrottledView, { name: 'auth-throttled' }),
  path('auth/upload/', UploadView, { name: 'auth-upload' }),
];
