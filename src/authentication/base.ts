import type { ApiRequest } from '../request.js';
import type { User } from '../users/user.js';
import type { PluginClass } from '../context.js';

/**
 * An authentication scheme. `authenticate` returns `[user, auth]` when the
 * request carries its credentials and they are good, `null` when the scheme
 * was not attempted (the next scheme runs), and throws `AuthenticationFailed`
 * when credentials were sent and are bad (the request ends at once).
 *
 * `authenticateHeader` gives the `WWW-Authenticate` value for a 401; a scheme
 * without one makes denials of unauthenticated requests 403.
 */
export interface Authentication {
  authenticate(req: ApiRequest): Promise<[User, unknown] | null> | [User, unknown] | null;
  authenticateHeader?(req: ApiRequest): string | undefined | null;
}

export type AuthenticationClass = PluginClass<Authentication>;
