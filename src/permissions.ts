import type { ApiRequest } from './request.js';
import type { APIView } from './views/api-view.js';
import type { PluginClass } from './context.js';

/**
 * A permission policy. `hasPermission` runs for every request after
 * authentication; `hasObjectPermission` runs when a view calls
 * `checkObjectPermissions` (generic views do, in `getObject`).
 * `message` / `code` replace the default 403 / 401 message.
 */
export interface Permission {
  hasPermission(req: ApiRequest, view: APIView): boolean | Promise<boolean>;
  hasObjectPermission?(req: ApiRequest, view: APIView, obj: unknown): boolean | Promise<boolean>;
  message?: string;
  code?: string;
}

export type PermissionClass = PluginClass<Permission>;

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Allows every request, authenticated or not. DRF's default. */
export class AllowAny implements Permission {
  hasPermission(): boolean {
    return true;
  }
}

/** Allows only authenticated users. */
export class IsAuthenticated implements Permission {
  hasPermission(req: ApiRequest): boolean {
    return Boolean(req.user && req.user.isAuthenticated);
  }
}
