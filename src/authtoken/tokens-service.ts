import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { TokenStore } from './token-store.js';

declare module '../context.js' {
  interface ServiceMap {
    /** Every token operation (`TokenStore`); present when the app has a `database`. */
    tokens: TokenStore;
  }
}

/**
 * A `TokenStore` for an app's settings, keyed by the app's one SECRET_KEY
 * (resolved on first use, so an app that never shows a key never creates
 * the development key file).
 */
export function tokenStoreFor(app: AppContext): TokenStore {
  const s = app.settings;
  return new TokenStore(app.services.get('database').db, {
    secret: () => app.secretKey(),
    mode: s.TOKEN_MODE,
    ttlSeconds: s.TOKEN_TTL,
  });
}

/**
 * Called by `createApp` for an app that has a `database`: registers the
 * `tokens` service (unless the app brought its own), and, with
 * TOKEN_CREATE_ON_USER_CREATED, gives every new user a token (DRF's
 * post-save receiver).
 */
export function installTokens(app: AppContext, fastify: FastifyInstance): void {
  if (!app.services.has('database')) return;
  if (!app.services.has('tokens')) app.services.set('tokens', tokenStoreFor(app));
  if (app.settings.TOKEN_CREATE_ON_USER_CREATED) {
    const users = app.services.tryGet('users');
    if (!users) return;
    const tokens = app.services.get('tokens');
    const unsubscribe = users.onUserCreated(async (user) => {
      await tokens.getOrCreate(user);
    });
    // The user store may outlive the app (tests, several apps on one store).
    fastify.addHook('onClose', async () => unsubscribe());
  }
}
