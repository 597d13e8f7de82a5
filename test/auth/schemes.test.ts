import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIView,
  AllowAny,
  BasicAuthentication,
  IsAuthenticated,
  RemoteUserAuthentication,
  SessionAuthentication,
  TokenAuthentication,
  createApp,
  path,
  type ApiRequest,
  type AuthenticationClass,
  type PermissionClass,
  type TrestleApp,
} from '../../src/index.js';
import { XUsernameAuthentication } from '../../example/auth.js';
import { appWith, authFixture, basic, type AuthFixture } from './helpers.js';

class Echo extends APIView {
  override permissionClasses: PermissionClass[] = [AllowAny];
  get(req: ApiRequest) {
    return {
      user: req.user === null ? null : req.user.username,
      authenticated: req.user?.isAuthenticated ?? null,
      auth: req.auth === undefined ? 'undefined' : req.auth,
      scheme: req.successfulAuthenticator?.constructor.name ?? null,
    };
  }
}

describe('authentication schemes on the wire', () => {
  let fx: AuthFixture;
  beforeAll(async () => {
    fx = await authFixture();
  });
  afterAll(async () => fx.close());

  describe('scheme list semantics', () => {
    let app: TrestleApp;
    class Default extends Echo {}
    class CustomFirst extends Echo {
      override authenticationClasses: AuthenticationClass[] = [XUsernameAuthentication, BasicAuthentication];
    }
    class CustomProtected extends CustomFirst {
      override permissionClasses = [IsAuthenticated];
    }
    class AdminOnly extends APIView {
      override authenticationClasses = [BasicAuthentication];
      override permissionClasses = [
        class {
          hasPermission(req: ApiRequest) {
            return req.user.isStaff;
          }
        },
      ];
      get() {
        return {};
      }
    }
    beforeAll(async () => {
      app = await appWith(fx, {
        routes: [path('default/', Default), path('custom/', CustomFirst), path('custom-protected/', CustomProtected), path('admin/', AdminOnly)],
      });
    });
    afterAll(async () => app.close());

    it('the default list is [Session, Basic]: Basic works and the anonymous user is AnonymousUser with auth null', async () => {
      const res = await app.inject({ url: '/default/', headers: { authorization: basic('alice', 's3cret') } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: 'alice', authenticated: true, auth: null, scheme: 'BasicAuthentication' });
      const anon = await app.inject({ url: '/default/' });
      expect(anon.json()).toEqual({ user: '', authenticated: false, auth: null, scheme: null });
    });

    it('a scheme that returns null lets the next one try', async () => {
      const res = await app.inject({ url: '/custom/', headers: { authorization: basic('alice', 's3cret') } });
      expect(res.json()).toEqual({ user: 'alice', authenticated: true, auth: null, scheme: 'BasicAuthentication' });
    });

    it('the first scheme that succeeds wins; later ones are not consulted', async () => {
      const res = await app.inject({
        url: '/custom/',
        headers: { 'x-username': 'admin', authorization: basic('alice', 'wrong') },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: 'admin', authenticated: true, auth: null, scheme: 'XUsernameAuthentication' });
    });

    it('custom scheme: unknown user fails at once with its message; no authenticateHeader makes it 403', async () => {
      const res = await app.inject({ url: '/custom/', headers: { 'x-username': 'ghost', authorization: basic('alice', 's3cret') } });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: 'No such user' });
    });

    it('custom scheme first and nothing sent: denial is 403 without WWW-Authenticate', async () => {
      const res = await app.inject({ url: '/custom-protected/' });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it('authenticated but denied: 403 even when the first scheme has a WWW-Authenticate', async () => {
      const res = await app.inject({ url: '/admin/', headers: { authorization: basic('alice', 's3cret') } });
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
      const anon = await app.inject({ url: '/admin/' });
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toBe('Basic realm="api"');
    });
  });

  describe('UNAUTHENTICATED_USER / UNAUTHENTICATED_TOKEN', () => {
    it('either may be null, and IsAuthenticated still refuses cleanly', async () => {
      class Guarded extends Echo {
        override permissionClasses = [IsAuthenticated];
      }
      const app = await appWith(fx, {
        settings: { UNAUTHENTICATED_USER: null, UNAUTHENTICATED_TOKEN: null },
        routes: [path('echo/', Echo), path('guarded/', Guarded)],
      });
      const res = await app.inject({ url: '/echo/' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: null, authenticated: null, auth: null, scheme: null });
      const guarded = await app.inject({ url: '/guarded/' });
      expect(guarded.statusCode).toBe(403); // Session first: no WWW-Authenticate
      expect(guarded.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      await app.close();
    });

    it('custom factories give the anonymous user and token', async () => {
      const app = await appWith(fx, {
        settings: { UNAUTHENTICATED_TOKEN: () => 'no-token' },
        routes: [path('echo/', Echo)],
      });
      const res = await app.inject({ url: '/echo/' });
      expect(res.json()).toEqual({ user: '', authenticated: false, auth: 'no-token', scheme: null });
      await app.close();
    });
  });

  describe('[Basic, Token] vs [Session, Token]', () => {
    it('Basic first: 401 Basic realm="api"; Session first: 403 without WWW-Authenticate', async () => {
      class BT extends Echo {
        override authenticationClasses: AuthenticationClass[] = [BasicAuthentication, TokenAuthentication];
        override permissionClasses = [IsAuthenticated];
      }
      class ST extends BT {
        override authenticationClasses = [SessionAuthentication, TokenAuthentication];
      }
      const app = await appWith(fx, { routes: [path('bt/', BT), path('st/', ST)] });
      const bt = await app.inject({ url: '/bt/' });
      expect(bt.statusCode).toBe(401);
      expect(bt.headers['www-authenticate']).toBe('Basic realm="api"');
      expect(bt.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      const st = await app.inject({ url: '/st/' });
      expect(st.statusCode).toBe(403);
      expect(st.headers['www-authenticate']).toBeUndefined();
      expect(st.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      // A bad token under [Session, Token]: the failure is still 403, decided by the first scheme.
      const bad = await app.inject({ url: '/st/', headers: { authorization: 'Token nope' } });
      expect(bad.statusCode).toBe(403);
      expect(bad.json()).toEqual({ detail: 'Invalid token.' });
      await app.close();
    });
  });

  describe('RemoteUserAuthentication', () => {
    class Remote extends Echo {
      override authenticationClasses = [RemoteUserAuthentication];
    }
    class NoCreate extends RemoteUserAuthentication {
      override createUnknownUser = false;
      override header = 'X-Forwarded-User';
    }
    class RemoteNoCreate extends Echo {
      override authenticationClasses = [NoCreate];
    }
    let trusted: TrestleApp;
    let untrusted: TrestleApp;
    beforeAll(async () => {
      const routes = [path('remote/', Remote), path('strict/', RemoteNoCreate)];
      trusted = await appWith(fx, { routes, settings: { REMOTE_USER_TRUSTED_PROXIES: ['10.0.0.0/8'] } });
      untrusted = await appWith(fx, { routes, settings: { REMOTE_USER_TRUSTED_PROXIES: ['10.0.0.0/8'] } });
    });
    afterAll(async () => {
      await trusted.close();
      await untrusted.close();
    });

    it('from a trusted proxy the header names the user', async () => {
      const res = await trusted.inject({ url: '/remote/', remoteAddress: '10.1.2.3', headers: { 'remote-user': 'alice' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: 'alice', authenticated: true, auth: null, scheme: 'RemoteUserAuthentication' });
    });

    it('TRUSTED_PROXIES alone does not make the header believed; a subclass can name its own proxies', async () => {
      class OwnProxies extends RemoteUserAuthentication {
        override trustedProxies = ['192.0.2.7'];
      }
      class RemoteOwn extends Echo {
        override authenticationClasses = [OwnProxies];
      }
      const a = await appWith(fx, { routes: [path('remote/', Remote), path('own/', RemoteOwn)], settings: { TRUSTED_PROXIES: ['10.0.0.0/8'] } });
      try {
        const general = await a.inject({ url: '/remote/', remoteAddress: '10.1.2.3', headers: { 'remote-user': 'alice' } });
        expect(general.statusCode).toBe(200);
        expect(general.json()).toEqual({ user: '', authenticated: false, auth: null, scheme: null });
        const own = await a.inject({ url: '/own/', remoteAddress: '192.0.2.7', headers: { 'remote-user': 'alice' } });
        expect(own.json()).toEqual({ user: 'alice', authenticated: true, auth: null, scheme: 'OwnProxies' });
      } finally {
        await a.close();
      }
    });

    it('from any other peer the header is ignored', async () => {
      const res = await untrusted.inject({ url: '/remote/', remoteAddress: '203.0.113.9', headers: { 'remote-user': 'admin' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: '', authenticated: false, auth: null, scheme: null });
    });

    it('unknown users are created by default, with an unusable password', async () => {
      const res = await trusted.inject({ url: '/remote/', remoteAddress: '10.0.0.1', headers: { 'remote-user': 'newcomer' } });
      expect(res.json()).toMatchObject({ user: 'newcomer', authenticated: true });
      const created = await fx.users.getByUsername('newcomer');
      expect(created).not.toBeNull();
      expect(await fx.users.authenticate('newcomer', '')).toBeNull();
    });

    it('createUnknownUser = false and a custom header: unknown names are not authenticated', async () => {
      const res = await trusted.inject({ url: '/strict/', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-user': 'stranger' } });
      expect(res.json()).toEqual({ user: '', authenticated: false, auth: null, scheme: null });
      expect(await fx.users.getByUsername('stranger')).toBeNull();
      const known = await trusted.inject({ url: '/strict/', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-user': 'alice' } });
      expect(known.json()).toMatchObject({ user: 'alice' });
    });

    it('absent header and inactive users: not authenticated, never an error', async () => {
      const none = await trusted.inject({ url: '/remote/', remoteAddress: '10.0.0.1' });
      expect(none.json()).toMatchObject({ authenticated: false });
      const inactive = await trusted.inject({ url: '/remote/', remoteAddress: '10.0.0.1', headers: { 'remote-user': 'carol' } });
      expect(inactive.statusCode).toBe(200);
      expect(inactive.json()).toMatchObject({ authenticated: false });
    });
  });

  it('a TypeError inside a scheme is a 500, never "not authenticated"', async () => {
    class Buggy {
      authenticate(): null {
        throw new TypeError('oops');
      }
    }
    class V extends Echo {
      override authenticationClasses = [Buggy];
    }
    const app = await createApp({ logger: false, routes: [path('v/', V)] });
    const res = await app.inject({ url: '/v/' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'A server error occurred.' });
    await app.close();
  });
});
