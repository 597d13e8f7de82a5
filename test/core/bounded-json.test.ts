import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, ApiRequest, createApp, path, type TrestleApp } from '../../src/index.js';
import { jsonDepthExceeds } from '../../src/parsers/json-depth.js';

class Echo extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  post(req: ApiRequest) {
    return { echo: req.data };
  }
}

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

let app: TrestleApp;
let small: TrestleApp;
beforeAll(async () => {
  app = await createApp({ routes: [path('echo/', Echo)] });
  small = await createApp({ settings: { JSON_MAX_DEPTH: 3, JSON_INDENT_MAX_SIZE: 200 }, routes: [path('echo/', Echo)] });
});
afterAll(async () => {
  await app.close();
  await small.close();
});

const post = (a: TrestleApp, payload: string, accept = 'application/json') =>
  a.inject({ method: 'POST', url: '/echo/', headers: { 'content-type': 'application/json', accept }, payload });

describe('JSON nesting is bounded', () => {
  it('63 levels (64 with the echo wrapper) are accepted', async () => {
    const res = await post(app, nested(64));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`{"echo":${nested(64)}}`);
  });

  it.each([65, 5000, 200_000])('%i levels are a 400 before parsing', async (depth) => {
    const res = await post(app, nested(depth));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'JSON parse error - nesting is deeper than 64 levels' });
  });

  it('objects count as levels too, and JSON_MAX_DEPTH changes the limit', async () => {
    expect((await post(small, '{"a":{"b":[1]}}')).statusCode).toBe(200);
    const res = await post(small, '{"a":{"b":[{}]}}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'JSON parse error - nesting is deeper than 3 levels' });
  });

  it('brackets inside strings, escaped quotes included, are not nesting', async () => {
    const text = JSON.stringify({ s: '[[[[{{{{\\"[[[[' + '['.repeat(100) });
    const res = await post(small, text);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ echo: JSON.parse(text) });
  });
});

/** The nesting of a JSON text by the definition: brackets outside strings. */
function deepest(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

describe('the nesting check', () => {
  it('answers as the full scan does, whether the brackets are few (counted) or many (scanned)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonDepthExceeds(text, limit)).toBe(deepest(text) > limit);
      }),
      { numRuns: 500 },
    );
    // Many brackets in strings, few nested: not too deep; the same brackets unquoted are.
    expect(jsonDepthExceeds(JSON.stringify({ s: '['.repeat(50) }), 3)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(4) + ']'.repeat(4), 3)).toBe(true);
    expect(jsonDepthExceeds('['.repeat(3) + ']'.repeat(3), 3)).toBe(false);
  });
});

describe('indentation is bounded', () => {
  it('indent=N renders exactly as JSON.stringify(value, null, N), N capped at 8', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 12 }), async (value, n) => {
        const res = await post(app, JSON.stringify(value), `application/json; indent=${n}`);
        expect(res.statusCode).toBe(200);
        // JSON.parse turns -0 into 0 on the way in, as the server sees it.
        expect(res.body).toBe(JSON.stringify({ echo: JSON.parse(JSON.stringify(value)) }, null, Math.min(n, 8) || undefined));
      }),
      { numRuns: 150 },
    );
  });

  it('past JSON_INDENT_MAX_SIZE the body is sent compact', async () => {
    const value = { items: Array.from({ length: 20 }, (_, i) => ({ i })) };
    const res = await post(small, JSON.stringify(value), 'application/json; indent=8');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe(JSON.stringify({ echo: value }));
    const under = await post(small, '{"a":1}', 'application/json; indent=2');
    expect(under.body).toBe('{\n  "echo": {\n    "a": 1\n  }\n}');
  });

  it('the deepest accepted body with indent=8 stays within the cap', async () => {
    const body = JSON.stringify(Array.from({ length: 100 }, () => JSON.parse(nested(60))));
    const res = await post(app, body, 'application/json; indent=8');
    expect(res.statusCode).toBe(200);
    expect(res.body.length).toBeLessThanOrEqual(1_048_576);
    expect(JSON.parse(res.body)).toEqual({ echo: JSON.parse(body) });
  });
});
