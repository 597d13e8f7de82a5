import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  BasicAuthentication,
  IsAdminUser,
  IsAuthenticated,
  IsAuthenticatedOrReadOnly,
  and,
  not,
  or,
  path,
  type ApiRequest,
  type Permission,
  type PermissionClass,
  type TrestleApp,
} from '../../src/index.js';
import { appWith, authFixture, basic, type AuthFixture } from './helpers.js';

/** Grants the request, refuses objects: shows OR's object semantics. */
class RequestOnly implements Permission {
  hasPermission() {
    return true;
  }
  hasObjectPermission() {
    return false;
  }
}
/** Refuses the request, would grant objects. */
class ObjectOnly implements Permission {
  hasPermission() {
    return false;
  }
  hasObjectPermission() {
    return true;
  }
}
/** Grants the request; answers the object later (a lookup), refusing object 2 with its own message. */
class AsyncObjectCheck implements Permission {
  message = 'Not your object.';
  hasPermission() {
    return true;
  }
  async hasObjectPermission(_req: ApiRequest, _view: APIView, obj: unknown) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return (obj as { id: number }).id !== 2;
  }
}
class WithMessage implements Permission {
  message = 'Members only.';
  code = 'members_only';
  hasPermission(req: ApiRequest) {
    return req.user.username === 'admin';
  }
}

function view(permission: PermissionClass) {
  return class extends APIView {
    override authenticationClasses = [BasicAuthentication];
    override permissionClasses = [permission];
    async get(_req: ApiRequest): Promise<unknown> {
      return { ok: true };
    }
    post() {
      return { ok: true };
    }
  };
}

function objectView(permission: PermissionClass, ...more: PermissionClass[]) {
  return class extends view(permission) {
    override permissionClasses = [permission, ...more];
    override async get(req: ApiRequest): Promise<unknown> {
      await this.checkObjectPermissions(req, { id: Number(req.query['id'] ?? 1) });
      return { ok: true };
    }
  };
}

describe('permissions', () => {
  let fx: AuthFixture;
  let app: TrestleApp;
  const ALICE = basic('alice', 's3cret');
  const ADMIN = basic('admin', 'adminpw');

  beforeAll(async () => {
    fx = await authFixture();
    app = await appWith(fx, {
      routes: [
        path('admin/', view(IsAdminUser)),
        path('read-only/', view(IsAuthenticatedOrReadOnly)),
        path('and/', view(and(IsAuthenticated, IsAdminUser))),
        path('or/', view(or(IsAdminUser, IsAuthenticatedOrReadOnly))),
        path('not/', view(not(IsAuthenticated))),
        path('message/', view(WithMessage)),
        path('or-object/', objectView(or(RequestOnly, ObjectOnly))),
        path('and-object/', objectView(and(IsAuthenticated, RequestOnly))),
        path('not-object/', objectView(not(IsAdminUser))),
        path('sync-object/', objectView(RequestOnly)),
        path('async-object/', objectView(AsyncObjectCheck)),
        path('async-then-sync-object/', objectView(AsyncObjectCheck, RequestOnly)),
      ],
    });
  });
  afterAll(async () => {
    await app.close();
    await fx.close();
  });

  const call = (method: 'GET' | 'POST', url: string, authorization?: string) =>
    app.inject({ method, url, headers: authorization ? { authorization } : {} });

  const DENIED = { detail: 'You do not have permission to perform this action.' };
  const NOT_AUTH = { detail: 'Authentication credentials were not provided.' };

  it('IsAdminUser: staff 200, other users 403, anonymous 401', async () => {
    expect((await call('GET', '/admin/', ADMIN)).statusCode).toBe(200);
    const alice = await call('GET', '/admin/', ALICE);
    expect([alice.statusCode, alice.json()]).toEqual([403, DENIED]);
    const anon = await call('GET', '/admin/');
    expect([anon.statusCode, anon.headers['www-authenticate'], anon.json()]).toEqual([401, 'Basic realm="api"', NOT_AUTH]);
  });

  it('IsAuthenticatedOrReadOnly: anonymous reads, anonymous writes are 401', async () => {
    expect((await call('GET', '/read-only/')).statusCode).toBe(200);
    const write = await call('POST', '/read-only/');
    expect([write.statusCode, write.json()]).toEqual([401, NOT_AUTH]);
    expect((await call('POST', '/read-only/', ALICE)).statusCode).toBe(200);
  });

  it('and(): both must allow', async () => {
    expect((await call('GET', '/and/', ADMIN)).statusCode).toBe(200);
    expect((await call('GET', '/and/', ALICE)).statusCode).toBe(403);
    expect((await call('GET', '/and/')).statusCode).toBe(401);
  });

  it('or(): either allows', async () => {
    expect((await call('POST', '/or/', ADMIN)).statusCode).toBe(200);
    expect((await call('POST', '/or/', ALICE)).statusCode).toBe(200);
    expect((await call('GET', '/or/')).statusCode).toBe(200);
    const anonWrite = await call('POST', '/or/');
    expect([anonWrite.statusCode, anonWrite.json()]).toEqual([401, NOT_AUTH]);
  });

  it('not(): inverts', async () => {
    expect((await call('GET', '/not/')).statusCode).toBe(200);
    const alice = await call('GET', '/not/', ALICE);
    expect([alice.statusCode, alice.json()]).toEqual([403, DENIED]);
  });

  it('a permission\'s message replaces the default 403 detail', async () => {
    const res = await call('GET', '/message/', ALICE);
    expect([res.statusCode, res.json()]).toEqual([403, { detail: 'Members only.' }]);
  });

  it('or() object permission is DRF 3.15: an operand that refused the request cannot grant the object', async () => {
    const res = await call('GET', '/or-object/', ALICE);
    expect([res.statusCode, res.json()]).toEqual([403, DENIED]);
  });

  it('and() object permission needs both; an operand without hasObjectPermission counts as true', async () => {
    const res = await call('GET', '/and-object/', ALICE);
    expect(res.statusCode).toBe(403);
  });

  it('object permissions answer at once or later, in order, each with its message', async () => {
    const sync = await call('GET', '/sync-object/', ALICE);
    expect([sync.statusCode, sync.headers['content-type'], sync.json()]).toEqual([403, 'application/json', DENIED]);
    const granted = await call('GET', '/async-object/', ALICE);
    expect([granted.statusCode, granted.json()]).toEqual([200, { ok: true }]);
    const refused = await call('GET', '/async-object/?id=2', ALICE);
    expect([refused.statusCode, refused.json()]).toEqual([403, { detail: 'Not your object.' }]);
    // The later answer first: its refusal wins; once it grants, the next permission still runs.
    const first = await call('GET', '/async-then-sync-object/?id=2', ALICE);
    expect([first.statusCode, first.json()]).toEqual([403, { detail: 'Not your object.' }]);
    const second = await call('GET', '/async-then-sync-object/', ALICE);
    expect([second.statusCode, second.json()]).toEqual([403, DENIED]);
    const anonymous = await call('GET', '/sync-object/');
    expect([anonymous.statusCode, anonymous.json()]).toEqual([401, NOT_AUTH]);
  });

  it('not() object permission negates the operand\'s (default true) object check, as DRF', async () => {
    const res = await call('GET', '/not-object/', ALICE);
    expect([res.statusCode, res.json()]).toEqual([403, DENIED]);
  });
});
