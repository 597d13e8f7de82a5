import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { AppContext } from './context.js';
import { redactUrl } from './db/url.js';

declare module './context.js' {
  interface ServiceMap {
    /** The shared Redis connection, opened on first use when REDIS_URL is set. */
    redis: Redis;
  }
}

/** The longest a request waits for one Redis command (or a connection), in ms. */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * The app's Redis client (REDIS_URL), created on first use and shared by
 * throttles and sessions; `null` when REDIS_URL is not set. The app closes
 * it when Fastify closes. While Redis is unreachable its commands fail fast
 * (the request gets a 503, see docs/database.md) and the client keeps
 * reconnecting.
 */
export function redisClient(app: AppContext): Redis | null {
  const existing = app.services.tryGet('redis');
  if (existing) return existing;
  const url = app.settings.REDIS_URL;
  if (!url) return null;
  // ioredis is loaded when an app first uses Redis: an app without REDIS_URL does not carry it (about 20 MB of RSS).
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const client = new RedisClient(url, {
    // Queue commands only until the first connection is up (the client is
    // created while the app starts); after that a command sent while Redis is
    // away fails at once (a 503) instead of waiting for the reconnect.
    enableOfflineQueue: true,
    // A command caught by a dropped connection fails after one reconnect attempt…
    maxRetriesPerRequest: 1,
    // …and is not sent again later, behind the caller's back.
    autoResendUnfulfilledCommands: false,
    // No request waits on Redis longer than this, whatever the network does.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Reconnect forever, at most one second apart, so service resumes by itself.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  client.once('ready', () => {
    client.options.enableOfflineQueue = false;
  });
  // The first outcome is the start-up line (reached or not); after it, one line per outage, not one per reconnect attempt.
  let state: 'starting' | 'up' | 'down' = 'starting';
  const shown = redactUrl(url);
  client.on('error', (err: Error) => {
    if (state === 'starting') app.log.error(`Redis not reachable at ${shown}: ${err.message || (err as { code?: string }).code || String(err)} (requests that need it answer 503 until it is)`);
    else if (state === 'up') app.log.error({ err }, 'redis error');
    state = 'down';
  });
  client.on('ready', () => {
    if (state === 'starting') app.log.info(`Redis reached at ${shown}`);
    else if (state === 'down') app.log.info('redis connection restored');
    state = 'up';
  });
  app.services.set('redis', client);
  return client;
}

/** Closes the app's Redis client if one was opened. */
export async function closeRedis(app: AppContext): Promise<void> {
  const client = app.services.tryGet('redis');
  if (client && client.status !== 'end') await client.quit().catch(() => client.disconnect());
}
