/**
 * The short cuts taken for plain query strings, page numbers and link
 * parameters give the same answers as the general code they skip.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type TrestleApp } from '../../src/app.js';
import { path } from '../../src/routing/routes.js';
import { APIView } from '../../src/views/api-view.js';
import { AllowAny } from '../../src/permissions.js';
import type { ApiRequest } from '../../src/request.js';
import { quotePlus, removeQueryParam, replaceQueryParam } from '../../src/utils/urls.js';
import { pythonInt } from '../../src/pagination/python-int.js';

class Echo extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    // Names of Object.prototype's members must not show through as parameters.
    const inherited = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'].filter((k) => req.query[k] !== undefined && !Object.hasOwn(req.query, k));
    return { url: req.raw.url, query: { ...req.query }, inherited };
  }
}

let app: TrestleApp;
beforeAll(async () => {
  app = await createApp({ logger: false, settings: { ALLOWED_HOSTS: ['localhost'] }, routes: [path('echo/', Echo)] });
});
afterAll(() => app.close());

describe('request.query', () => {
  it('is what URLSearchParams gives (last value wins), for escaped and plain query strings alike', async () => {
    const fixed = ['a=1&a=2', '=x', 'a', '&&a=&&', 'a=b=c', 'constructor=1&toString=2', '__proto__=x', 'x=%E2%82%AC&y=a+b', 'q=%zz', 'é=1'];
    const random = fc.sample(fc.string({ unit: fc.constantFrom('a', 'b', '=', '&', '%', '+', '2', '0', 'é') }), { numRuns: 150, seed: 7 });
    for (const qs of [...fixed, ...random]) {
      const res = await app.inject({ url: `/echo/?${qs}`, headers: { host: 'localhost' } });
      const body = res.json() as { url: string; query: Record<string, string> };
      // The query string as the server received it, read the general way.
      const q = body.url.indexOf('?');
      const expected = Object.fromEntries(new URLSearchParams(q === -1 ? '' : body.url.slice(q + 1)));
      expect({ qs, status: res.statusCode, type: res.headers['content-type'], query: body.query, inherited: (body as { inherited?: unknown }).inherited }).toEqual({
        qs,
        status: 200,
        type: 'application/json',
        query: expected,
        inherited: [],
      });
    }
  });
});

describe('link building', () => {
  it("quotePlus is Python's quote_plus(safe='') for any string", () => {
    const python = (s: string) =>
      encodeURIComponent(s)
        .replace(/%20/g, '+')
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => quotePlus(s) === python(s)), { numRuns: 300 });
    expect(quotePlus('page_size-2.x~')).toBe('page_size-2.x~');
    expect(quotePlus("a b!'()*/")).toBe('a+b%21%27%28%29%2A%2F');
  });

  it('sorts parameter names by code point, as Python does, also above U+FFFF', () => {
    // UTF-16 order would put U+1F600 (a surrogate pair, 0xD83D…) before U+FFFD.
    expect(replaceQueryParam('http://h/x/?%F0%9F%98%80=1&%EF%BF%BD=2&b=3', 'page', 2)).toBe(
      'http://h/x/?b=3&page=2&%EF%BF%BD=2&%F0%9F%98%80=1',
    );
    expect(removeQueryParam('http://h/x/?page=2&a=1', 'page')).toBe('http://h/x/?a=1');
  });

  it('reads page numbers as Python int(): plain digits and the rest agree', () => {
    expect(pythonInt('007')).toBe(7n);
    expect(pythonInt(' 12 ')).toBe(12n);
    expect(pythonInt('1_000')).toBe(1000n);
    expect(pythonInt('١٢')).toBe(12n);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (n) => pythonInt(String(n)) === n && pythonInt(` +${n}`) === n));
    expect(() => pythonInt('1.0')).toThrow();
    expect(() => pythonInt('')).toThrow();
  });
});
