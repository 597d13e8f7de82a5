/**
 * The id a response carries in X-Request-Id when the client sent none: a
 * random (version 4) UUID as `crypto.randomUUID()` writes one, a new one for
 * every request, also past the batch of random bytes drawn at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, createApp, path, type TrestleApp } from '../../src/index.js';
import { requestId } from '../../src/utils/request-id.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

class Ping extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get() {
    return { ok: true };
  }
}

let app: TrestleApp;
beforeAll(async () => {
  app = await createApp({ logger: false, routes: [path('ping/', Ping)] });
});
afterAll(() => app.close());

describe('request ids', () => {
  it('are version 4 UUIDs, all different, over several draws of random bytes', () => {
    const ids = Array.from({ length: 2_000 }, () => requestId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
    // Each hex digit position takes many values (not a constant or a counter).
    const firstDigits = new Set(ids.map((id) => id[0]));
    expect(firstDigits.size).toBe(16);
  });

  it('are sent in X-Request-Id, one per request, and a plausible id sent by the client is kept', async () => {
    const a = await app.inject({ url: '/ping/' });
    const b = await app.inject({ url: '/ping/' });
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(res.headers['x-request-id']).toMatch(V4);
    }
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    const kept = await app.inject({ url: '/ping/', headers: { 'x-request-id': 'edge-7f3a' } });
    expect(kept.statusCode).toBe(200);
    expect(kept.headers['x-request-id']).toBe('edge-7f3a');
  });
});
