import type { ApiRequest } from './request.js';
import type { APIView } from './views/api-view.js';
import type { AppContext, PluginClass } from './context.js';

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

function isAuthenticatedUser(req: ApiRequest): boolean {
  const user = req.user as ApiRequest['user'] | null;
  return Boolean(user && user.isAuthenticated);
}

/** Allows every request, authenticated or not. DRF's default. */
export class AllowAny implements Permission {
  hasPermission(): boolean {
    return true;
  }
}

/** Allows only authenticated users. */
export class IsAuthenticated implements Permission {
  hasPermission(req: ApiRequest): boolean {
    return isAuthenticatedUser(req);
  }
}

/** Allows only staff users (`isStaff`), as DRF's `IsAdminUser`. */
export class IsAdminUser implements Permission {
  hasPermission(req: ApiRequest): boolean {
    const user = req.user as ApiRequest['user'] | null;
    return Boolean(user && user.isStaff);
  }
}

/** Reads (GET, HEAD, OPTIONS) for anyone; writes for authenticated users. */
export class IsAuthenticatedOrReadOnly implements Permission {
  hasPermission(req: ApiRequest): boolean {
    return SAFE_METHODS.has(req.method) || isAuthenticatedUser(req);
  }
}

// ------------------------------------------------------------- composition

async function objectPermission(p: Permission, req: ApiRequest, view: APIView, obj: unknown): Promise<boolean> {
  // DRF's BasePermission.has_object_permission returns True.
  return p.hasObjectPermission ? p.hasObjectPermission(req, view, obj) : true;
}

function named(cls: PermissionClass, name: string): PermissionClass {
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/**
 * Both permissions must allow, as DRF's `A & B`. Object permission: both
 * objects checks must allow.
 *
 * @example
 * permissionClasses = [and(IsAuthenticated, IsOwner)];
 */
export function and(a: PermissionClass, b: PermissionClass): PermissionClass {
  return named(
    class implements Permission {
      /** The operator and its operands (read by the OpenAPI generator). */
      readonly operator = 'and';
      readonly op1: Permission;
      readonly op2: Permission;
      constructor(app: AppContext) {
        this.op1 = new a(app);
        this.op2 = new b(app);
      }
      async hasPermission(req: ApiRequest, view: APIView): Promise<boolean> {
        return (await this.op1.hasPermission(req, view)) && (await this.op2.hasPermission(req, view));
      }
      async hasObjectPermission(req: ApiRequest, view: APIView, obj: unknown): Promise<boolean> {
        return (await objectPermission(this.op1, req, view, obj)) && (await objectPermission(this.op2, req, view, obj));
      }
    },
    `And(${a.name}, ${b.name})`,
  );
}

/**
 * Either permission allows, as DRF's `A | B`. Object permission as DRF 3.15:
 * `(A.hasPermission && A.hasObjectPermission) || (B.hasPermission && B.hasObjectPermission)`,
 * so an operand that refused the request cannot grant the object.
 *
 * @example
 * permissionClasses = [or(IsAdminUser, IsAuthenticatedOrReadOnly)];
 */
export function or(a: PermissionClass, b: PermissionClass): PermissionClass {
  return named(
    class implements Permission {
      /** The operator and its operands (read by the OpenAPI generator). */
      readonly operator = 'or';
      readonly op1: Permission;
      readonly op2: Permission;
      constructor(app: AppContext) {
        this.op1 = new a(app);
        this.op2 = new b(app);
      }
      async hasPermission(req: ApiRequest, view: APIView): Promise<boolean> {
        return (await this.op1.hasPermission(req, view)) || (await this.op2.hasPermission(req, view));
      }
      async hasObjectPermission(req: ApiRequest, view: APIView, obj: unknown): Promise<boolean> {
        return (
          ((await this.op1.hasPermission(req, view)) && (await objectPermission(this.op1, req, view, obj))) ||
          ((await this.op2.hasPermission(req, view)) && (await objectPermission(this.op2, req, view, obj)))
        );
      }
    },
    `Or(${a.name}, ${b.name})`,
  );
}

/**
 * The opposite of a permission, as DRF's `~A` (object permission negated too,
 * so `not(IsAuthenticated)` refuses every object, as in DRF).
 */
export function not(a: PermissionClass): PermissionClass {
  return named(
    class implements Permission {
      /** The operator and its operand (read by the OpenAPI generator). */
      readonly operator = 'not';
      readonly op1: Permission;
      constructor(app: AppContext) {
        this.op1 = new a(app);
      }
      async hasPermission(req: ApiRequest, view: APIView): Promise<boolean> {
        return !(await this.op1.hasPermission(req, view));
      }
      async hasObjectPermission(req: ApiRequest, view: APIView, obj: unknown): Promise<boolean> {
        return !(await objectPermission(this.op1, req, view, obj));
      }
    },
    `Not(${a.name})`,
  );
}
