import type { Redis } from 'ioredis';
import { sha256Hex } from '../security.js';
import type { SessionData, SessionStore } from './store.js';

/** Sessions in Redis (REDIS_URL), expiring with the key's TTL; shared by every process. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    readonly keyPrefix = 'trestle:session:',
  ) {}

  async load(key: string): Promise<SessionData | null> {
    const raw = await this.redis.get(this.keyPrefix + sha256Hex(key));
    if (raw === null) return null;
    try {
      return JSON.parse(raw) as SessionData;
    } catch {
      return null;
    }
  }

  async save(key: string, data: SessionData, expiresAt: Date): Promise<void> {
    const ttlMs = expiresAt.getTime() - Date.now();
    if (ttlMs <= 0) return this.delete(key);
    const ttl = Math.ceil(ttlMs / 1000);
    await this.redis.set(this.keyPrefix + sha256Hex(key), JSON.stringify(data), 'EX', ttl);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.keyPrefix + sha256Hex(key));
  }

  async clearExpired(): Promise<number> {
    return 0; // Redis expires keys itself
  }
}
