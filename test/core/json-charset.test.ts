import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, Response, createApp, path, type ApiRequest, type TrestleApp } from '../../src/index.js';

/** Echoes the parsed body, as a DRF view returning `request.data`. */
class Echo extends APIView {
  override permissionClasses = [AllowAny];
  override authenticationClasses = [];
  post(req: ApiRequest): Response {
    return new Response({ received: req.data });
  }
}

describe('JSON bodies with a charset parameter (Django reads the body in that charset)', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await createApp({ logger: false, routes: [path('echo/', Echo)] });
  });
  afterAll(() => app.close());

  const post = (payload: Buffer | string, contentType: string) => app.inject({ method: 'POST', url: '/echo/', payload, headers: { 'content-type': contentType } });

  it.each(['latin-1', 'latin1', 'ISO-8859-1', 'iso_8859_1', 'l1', 'cp819'])('charset=%s: a latin-1 body is decoded byte for byte', async (charset) => {
    const res = await post(Buffer.from('{"name": "Zoë \u0080"}', 'latin1'), `application/json; charset=${charset}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ received: { name: 'Zoë \u0080' } });
  });

  it('a quoted charset and other codecs Python knows (windows-1251, utf-16 with a BOM)', async () => {
    const cyrillic = await post(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xcf, 0xf0, 0xe8, 0x22, 0x7d]), 'application/json; charset="cp1251"');
    expect(cyrillic.statusCode).toBe(200);
    expect(cyrillic.json()).toEqual({ received: { a: 'При' } });
    const utf16 = await post(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a": "ü"}', 'utf16le')]), 'application/json; charset=utf-16');
    expect(utf16.statusCode).toBe(200);
    expect(utf16.json()).toEqual({ received: { a: 'ü' } });
  });

  it('an unknown charset is ignored: the body is read as UTF-8 (DEFAULT_CHARSET)', async () => {
    const res = await post(Buffer.from('{"name": "Zoë"}', 'utf8'), 'application/json; charset=no-such-codec');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: { name: 'Zoë' } });
  });

  it("bytes that are not valid in the charset are 400 with Python's codec message", async () => {
    const utf8 = await post(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]), 'application/json; charset=utf-8');
    expect(utf8.statusCode).toBe(400);
    expect(utf8.headers['content-type']).toBe('application/json');
    expect(utf8.json()).toEqual({ detail: "JSON parse error - 'utf-8' codec can't decode byte 0xe9 in position 6: invalid continuation byte" });
    const ascii = await post(Buffer.from('{"a": "ë"}', 'latin1'), 'application/json; charset=us-ascii');
    expect(ascii.statusCode).toBe(400);
    expect(ascii.json()).toEqual({ detail: "JSON parse error - 'ascii' codec can't decode byte 0xeb in position 7: ordinal not in range(128)" });
  });
});
