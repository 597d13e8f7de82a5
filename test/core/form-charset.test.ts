import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, Response, createApp, path, type ApiRequest, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { tokenApp, type TokenTestApp } from '../tokens/helpers.js';

/** Echoes the parsed body, as a DRF view returning `request.data`. */
class Echo extends APIView {
  override permissionClasses = [AllowAny];
  override authenticationClasses = [];
  post(req: ApiRequest): Response {
    return new Response({ received: req.data });
  }
}

const FORM = 'application/x-www-form-urlencoded';

describe("form and multipart bodies are read in their charset (Django's QueryDict and MultiPartParser)", () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await createApp({ logger: false, routes: [path('echo/', Echo)] });
  });
  afterAll(() => app.close());

  const post = (payload: Buffer | string, contentType: string) => app.inject({ method: 'POST', url: '/echo/', payload, headers: { 'content-type': contentType } });

  it.each(['latin-1', 'latin1', 'ISO-8859-1', 'l1'])('charset=%s: percent-escapes are latin-1 bytes', async (charset) => {
    const res = await post('username=j%FCrgen&password=p%E4ssw%F6rt-6', `${FORM}; charset=${charset}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ received: { username: 'jürgen', password: 'pässwört-6' } });
  });

  it('raw latin-1 bytes in the body and other codecs Python knows (windows-1251)', async () => {
    const raw = await post(Buffer.from('name=Zo\u00eb+B&x', 'latin1'), `${FORM}; charset=iso-8859-1`);
    expect(raw.statusCode).toBe(200);
    expect(raw.json()).toEqual({ received: { name: 'Zoë B', x: '' } });
    const cyrillic = await post('a=%CF%F0%E8', `${FORM}; charset="windows-1251"`);
    expect(cyrillic.statusCode).toBe(200);
    expect(cyrillic.json()).toEqual({ received: { a: 'При' } });
  });

  it.each(['latin2', 'l2', 'ISO_8859-2:1987', 'csISOLatin2', 'iso8859_2'])('charset=%s: the names Python gives ISO-8859-2', async (charset) => {
    const res = await post('city=%A3%F3d%BC', `${FORM}; charset=${charset}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: { city: 'Łódź' } });
  });

  it.each(['iso88592', 'iso-8859-12', 'latin-2x'])('charset=%s, which Python does not know, reads UTF-8', async (charset) => {
    const res = await post('city=%C5%81%C3%B3d%C5%BA', `${FORM}; charset=${charset}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: { city: 'Łódź' } });
  });

  it('without a charset, or with one Python does not know, the body is UTF-8', async () => {
    for (const contentType of [FORM, `${FORM}; charset=no-such-codec`]) {
      const res = await post('name=J%C3%BCrgen&same=1&same=2', contentType);
      expect(res.statusCode, contentType).toBe(200);
      expect(res.json()).toEqual({ received: { name: 'Jürgen', same: '2' } });
    }
  });

  it('bytes that do not decode are replaced, never an error (QueryDict falls back to latin-1, unquote replaces)', async () => {
    const escaped = await post('name=j%FCrgen&bad=%', `${FORM}; charset=utf-8`);
    expect(escaped.statusCode).toBe(200);
    expect(escaped.json()).toEqual({ received: { name: 'j\ufffdrgen', bad: '%' } });
    const raw = await post(Buffer.from('name=j\u00fcrgen', 'latin1'), FORM);
    expect(raw.statusCode).toBe(200);
    expect(raw.json()).toEqual({ received: { name: 'jürgen' } });
  });

  it('multipart text fields are decoded in the charset too', async () => {
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="username"\r\n\r\n'),
      Buffer.from('jürgen', 'latin1'),
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const latin = await post(body, 'multipart/form-data; boundary=XyZ; charset=latin-1');
    expect(latin.statusCode).toBe(200);
    expect(latin.json()).toEqual({ received: { username: 'jürgen' } });
    const utf8 = await post(body, 'multipart/form-data; boundary=XyZ; charset=utf-8');
    expect(utf8.statusCode).toBe(200);
    expect(utf8.json()).toEqual({ received: { username: 'j\ufffdrgen' } });
  });
});

describe.each(testDatabases())('obtain-token with a latin-1 form on $name', ({ open }) => {
  let t: TokenTestApp;
  beforeAll(async () => {
    t = await tokenApp(open);
    await t.users.createUser({ username: 'jürgen', password: 'pässwört-6' });
  });
  afterAll(() => t.close());

  it('gets a token, as from DRF', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': `${FORM}; charset=latin-1` },
      payload: 'username=j%FCrgen&password=p%E4ssw%F6rt-6',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Object.keys(res.json() as object)).toEqual(['token']);
    expect((res.json() as { token: string }).token).toMatch(/^[0-9a-f]{40}$/);
  });

  it('the same bytes read as UTF-8 name nobody: 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': FORM },
      payload: 'username=j%FCrgen&password=p%E4ssw%F6rt-6',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] });
  });
});
