import { Redis } from 'ioredis';
import type { AppContext } from './context.js';

declare module './context.js' {
  interface ServiceMap {
    /** The shared Redis connection, opened on first use when REDIS_URL is set. */
    redis: Redis;
  }
}

/**
 * The app's Redis client (REDIS_URL), created on first use and shared by
 * throttles and sessions; `null` when REDIS_URL is not set. The app closes
 * it when Fastify closes.
 */
export function redisClient(app: AppContext): Redis | null {
  const existing = app.services.tryGet('redis');
  if (existing) return existing;
  const url = app.settings.REDIS_URL;
  if (!url) return null;
  const client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
  client.on('error', (err: Error) => app.log.error({ err }, 'redis error'));
  app.services.set('redis', client);
  return client;
}

/** Closes the app's Redis client if one was opened. */
export async function closeRedis(app: AppContext): Promise<void> {
  const client = app.services.tryGet('redis');
  if (client && client.status !== 'end') await client.quit().catch(() => client.disconnect());
}
