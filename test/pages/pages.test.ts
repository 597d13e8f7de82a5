import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, XSS, type Harness } from '../browsable/harness.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { PAGE_CSP } from '../../src/pages/layout.js';
import { prefersHtml } from '../../src/pages/not-found-page.js';
import { html } from '../../src/pages/html.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** What every Trestle HTML page carries. */
function expectPageHeaders(headers: Record<string, unknown>): void {
  expect(headers['content-type']).toBe('text/html; charset=utf-8');
  expect(headers['content-security-policy']).toBe(PAGE_CSP);
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
}

describe('the html template tag', () => {
  it('escapes values, keeps nested templates, joins arrays and prints nothing for null/false', () => {
    const items = ['<a>', 'b&c'];
    const out = html`<ul class="${'"x"'}">${items.map((i) => html`<li>${i}</li>`)}${null}${false}${undefined}</ul>${0}`;
    expect(out.value).toBe('<ul class="&quot;x&quot;"><li>&lt;a&gt;</li><li>b&amp;c</li></ul>0');
  });
});

describe('the login page of /api-auth/', () => {
  it('uses the shared layout: viewport, stylesheet, CSP, X-Frame-Options, no-store', async () => {
    const res = await h.app.inject({ url: '/api-auth/login/?next=/items/', headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res.headers);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.body).toContain('<link rel="stylesheet" href="/static/trestle/trestle.css">');
    expect(res.body).toContain('<header class="navbar">');
    expect(res.body).toContain('<form method="post" action="" id="login-form">');
    expect(res.body).toContain('<input type="hidden" name="next" value="/items/">');
    expect(inputValue(res.body, 'csrfmiddlewaretoken')).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it('shows a failed attempt as an error message with the username kept, escaped', async () => {
    const jar = new CookieJar();
    const page = await h.app.inject({ url: '/api-auth/login/', headers: { accept: BROWSER } });
    jar.store(page.headers['set-cookie']);
    const res = await h.app.inject({
      method: 'POST',
      url: '/api-auth/login/',
      headers: { accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: XSS, password: 'wrong' }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res.headers);
    expect(res.body).toContain('<p class="error" role="alert">Please enter a correct username and password. Note that both fields may be case-sensitive.</p>');
    expect(res.body).toContain('value="&lt;script&gt;window.__xss = 1&lt;/script&gt;"');
    expect(res.body).not.toContain(XSS);
  });
});

describe('unknown routes', () => {
  it('a browser gets an HTML 404 page with the pages headers', async () => {
    const res = await h.app.inject({ url: `/nowhere/?q=${encodeURIComponent(XSS)}`, headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(404);
    expectPageHeaders(res.headers);
    expect(res.headers['vary']).toBe('Accept');
    expect(res.body).toContain('<h1><span class="status">404</span> Not Found</h1>');
    expect(res.body).toContain('<p class="error" role="alert">Not found.</p>');
    expect(res.body).not.toContain('<script>window');
  });

  it('API clients keep the JSON 404', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html']) {
      const res = await h.app.inject({ url: '/nowhere/', headers: accept ? { accept } : {} });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ detail: 'Not found.' });
    }
  });

  it('prefersHtml reads Accept as browsers send it', () => {
    expect(prefersHtml(BROWSER)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json;q=0.5, text/html')).toBe(true);
    expect(prefersHtml('text/html;q=0.5, application/json')).toBe(false);
    expect(prefersHtml('text/html;q=0')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
  });
});
