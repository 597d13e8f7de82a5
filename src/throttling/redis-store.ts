import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ThrottleHit, ThrottleStore } from './store.js';

// One round trip, atomic on the server: every process sees one history per key.
const HIT_SCRIPT = `
local key = KEYS[1]
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local count = redis.call('ZCARD', key)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if count >= tonumber(ARGV[4]) then
  return {0, count, oldest[2] or ''}
end
redis.call('ZADD', key, ARGV[1], ARGV[5])
redis.call('PEXPIRE', key, ARGV[3])
return {1, count, oldest[2] or ARGV[1]}
`;

/**
 * Histories in Redis sorted sets (score = timestamp), updated by one Lua
 * script so that N processes behind a load balancer share one count.
 */
export class RedisThrottleStore implements ThrottleStore {
  constructor(
    private readonly redis: Redis,
    readonly keyPrefix = 'trestle:',
  ) {}

  async hit(key: string, now: number, duration: number, limit: number): Promise<ThrottleHit> {
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    const ttlMs = Math.max(1, Math.ceil(duration * 1000));
    const [allowed, count, oldest] = (await this.redis.eval(
      HIT_SCRIPT,
      1,
      this.keyPrefix + key,
      String(now),
      String(now - duration),
      String(ttlMs),
      String(limit),
      member,
    )) as [number, number, string];
    return { allowed: allowed === 1, count: Number(count), oldest: oldest === '' ? null : Number(oldest) };
  }
}
