import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, Response, createApp, path, type ApiRequest, type TrestleApp } from '../../src/index.js';

/** Echoes the parsed body, as a DRF view returning `request.data`. */
class Echo extends APIView {
  override permissionClasses = [AllowAny];
  override authenticationClasses = [];
  post(req: ApiRequest): Response {
    return new Response(req.data);
  }
}

describe('U+2028 and U+2029 in JSON answers (DRF escapes them, as JavaScript parsers need)', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await createApp({ logger: false, routes: [path('echo/', Echo)] });
  });
  afterAll(() => app.close());

  const echo = (value: unknown, accept = 'application/json') =>
    app.inject({ method: 'POST', url: '/echo/', payload: JSON.stringify(value), headers: { 'content-type': 'application/json', accept } });

  it.each([
    ['Latin-1 text', 'Zoë', '{"a":"Zoë"}'],
    ['text beyond Latin-1', 'Wisława’s', '{"a":"Wisława’s"}'],
    ['a line separator', 'x\u2028y', '{"a":"x\\u2028y"}'],
    ['a paragraph separator beside other text', 'Ngũgĩ\u2029', '{"a":"Ngũgĩ\\u2029"}'],
    ['both, more than once', '\u2028\u2029\u2028', '{"a":"\\u2028\\u2029\\u2028"}'],
  ])('%s', async (_name, value, body) => {
    const res = await echo({ a: value });
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([200, 'application/json', body]);
    expect(res.json()).toEqual({ a: value });
  });

  it('indented answers are escaped too', async () => {
    const res = await echo({ a: 'x\u2029' }, 'application/json; indent=2');
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([200, 'application/json', '{\n  "a": "x\\u2029"\n}']);
  });
});
