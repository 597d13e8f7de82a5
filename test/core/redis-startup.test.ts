import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, path, HealthView, type TrestleApp } from '../../src/index.js';
import { REDIS_TEST_URL, redisAvailable, requireRedisInCi } from '../auth/helpers.js';

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** An app with `REDIS_URL`, logging JSON lines at info into a string. */
async function start(redisUrl: string): Promise<{ app: TrestleApp; messages: () => string[] }> {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  app = await createApp({ logger: { level: 'info', stream }, settings: { REDIS_URL: redisUrl }, routes: [path('health/', HealthView)] });
  await app.ready();
  const messages = () => text.trim().split('\n').filter(Boolean).map((l) => String((JSON.parse(l) as { msg: unknown }).msg));
  return { app, messages };
}

describe('an app whose settings name Redis says at start-up whether it reached it', () => {
  it('unreachable: one error line naming the URL (password hidden) and the reason', async () => {
    const { app: a, messages } = await start('redis://:hunter2@127.0.0.1:1/0');
    await vi.waitFor(() => expect(messages().some((m) => m.startsWith('Redis not reachable'))).toBe(true), { timeout: 10_000, interval: 50 });
    const lines = messages().filter((m) => m.includes('Redis') || m.includes('redis'));
    expect(lines).toEqual(['Redis not reachable at redis://:***@127.0.0.1:1/0: connect ECONNREFUSED 127.0.0.1:1 (requests that need it answer 503 until it is)']);
    // The app serves all the same: what needs Redis answers 503.
    const res = await a.inject({ url: '/health/', headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable', database: 'not configured', redis: 'unavailable' });
  });

  describe('reachable', () => {
    requireRedisInCi();
    it.skipIf(!redisAvailable())('one info line naming the URL', async () => {
      const { messages } = await start(REDIS_TEST_URL);
      await vi.waitFor(() => expect(messages()).toContain(`Redis reached at ${REDIS_TEST_URL}`), { timeout: 10_000, interval: 50 });
      expect(messages().filter((m) => /redis/i.test(m))).toEqual([`Redis reached at ${REDIS_TEST_URL}`]);
    });
  });

  it('an app without REDIS_URL says nothing about Redis', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    app = await createApp({ logger: { level: 'info', stream }, routes: [path('health/', HealthView)] });
    await app.ready();
    const res = await app.inject({ url: '/health/', headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'not configured', redis: 'not configured' });
    expect(text).not.toMatch(/Redis/);
  });
});
