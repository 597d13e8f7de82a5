import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, XSS, PASSWORD, type Harness } from './harness.js';
import { CookieJar, inputValue } from './cookies.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function loggedIn(username: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const page = await h.app.inject({ url: '/api-auth/login/', headers: { accept: 'text/html' } });
  jar.store(page.headers['set-cookie']);
  const res = await h.app.inject({
    method: 'POST',
    url: '/api-auth/login/',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username, password: PASSWORD, next: '/items/' }).toString(),
  });
  expect(res.statusCode).toBe(302);
  jar.store(res.headers['set-cookie']);
  return jar;
}

describe('BrowsableAPIRenderer', () => {
  it('answers a browser with an HTML page: name, description, status line, Allow, Content-Type, Vary', async () => {
    const res = await h.app.inject({ url: '/items/', headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['vary']).toBe('Accept, Cookie');
    expect(res.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(res.body).toContain('<h1>Item List</h1>');
    expect(res.body).toContain('<p>Items of the test API.</p>');
    expect(res.body).toContain('<p>Titles are &lt;b&gt;escaped&lt;/b&gt;.</p>');
    expect(res.body).toContain('<b class="status-line">HTTP 200 OK</b>');
    expect(res.body).toContain('<b>Allow:</b> <span class="lit">GET, POST, HEAD, OPTIONS</span>');
    expect(res.body).toContain('<b>Content-Type:</b> <span class="lit">application/json</span>');
    expect(res.body).toContain('<b>Vary:</b> <span class="lit">Accept, Cookie</span>');
  });

  it('still answers JSON to API clients, and ?format=api forces the page', async () => {
    const json = await h.app.inject({ url: '/items/', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.json()).toMatchObject({ count: 12, previous: null });
    const any = await h.app.inject({ url: '/items/', headers: { accept: '*/*' } });
    expect(any.headers['content-type']).toBe('application/json');
    const forced = await h.app.inject({ url: '/items/?format=api', headers: { accept: '*/*' } });
    expect(forced.statusCode).toBe(200);
    expect(forced.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('sends a strict CSP and loads only local assets', async () => {
    const res = await h.app.inject({ url: '/items/', headers: { accept: HTML } });
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const srcs = [...res.body.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(srcs).toEqual(['/static/trestle/trestle.css', '/static/trestle/browsable.js']);
    expect(res.body).not.toMatch(/<script>(?!window)/);
    for (const src of srcs) {
      const asset = await h.app.inject({ url: src! });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toMatch(/^text\/(css|javascript); charset=utf-8$/);
      expect(asset.headers['etag']).toMatch(/^".+"$/);
      const again = await h.app.inject({ url: src!, headers: { 'if-none-match': asset.headers['etag'] as string } });
      expect(again.statusCode).toBe(304);
    }
    const missing = await h.app.inject({ url: '/static/trestle/../../package.json' });
    expect(missing.statusCode).toBe(404);
    const unknown = await h.app.inject({ url: '/static/trestle/swagger-ui/index.html' });
    expect(unknown.statusCode).toBe(404);
  });

  it('makes URLs in the body clickable and escapes everything else', async () => {
    const res = await h.app.inject({ url: '/items/?page=3', headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('&quot;<a href="http://localhost:80/items/5/" rel="nofollow">http://localhost:80/items/5/</a>&quot;');
    expect(res.body).toContain('&quot;title&quot;: &quot;&lt;script&gt;window.__xss = 1&lt;/script&gt;&quot;');
    expect(res.body).not.toContain(XSS);
  });

  it('escapes a <script> in a query parameter everywhere it is printed', async () => {
    const res = await h.app.inject({ url: `/items/?page=2&q=${encodeURIComponent(XSS)}`, headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>window');
    expect(res.body).not.toMatch(/<script>[^<]/);
    // request line, links, login `next`
    expect(res.body).toContain('<b>GET</b> /items/?page=2&amp;q=%3Cscript%3Ewindow.__xss%20%3D%201%3C%2Fscript%3E');
    // a query the client did not encode (inject, like browsers, percent-encodes `<`)
    const raw = await h.app.inject({ url: '/items/?q=<script>x</script>', headers: { accept: HTML } });
    expect(raw.statusCode).toBe(200);
    expect(raw.body).toContain('<b>GET</b> /items/?q=%3Cscript%3Ex%3C/script%3E');
    expect(raw.body).not.toContain('<script>x');
  });

  it('shows page-number controls with an ellipsis, and previous/next for a cursor', async () => {
    const numbers = await h.app.inject({ url: '/items/?page=2', headers: { accept: HTML } });
    const nav = /<nav id="pagination-controls"[\s\S]*?<\/nav>/.exec(numbers.body)![0];
    const labels = [...nav.matchAll(/<li[^>]*>(?:<a[^>]*>|<span[^>]*>)([^<]*)</g)].map((m) => m[1]);
    expect(labels).toEqual(['&laquo;', '1', '2', '3', '&hellip;', '6', '&raquo;']);
    expect(nav).toContain('<li class="active"><a href="http://localhost:80/items/?page=2" aria-current="page">2</a></li>');

    const cursor = await h.app.inject({ url: '/events/', headers: { accept: HTML } });
    const pager = /<nav id="pagination-controls"[\s\S]*?<\/nav>/.exec(cursor.body)![0];
    expect(pager).toContain('<span class="btn disabled" aria-disabled="true">&laquo; Previous</span>');
    expect(pager).toMatch(/<a class="btn" href="http:\/\/localhost:80\/events\/\?cursor=[^"]+" rel="next" aria-label="Next">Next &raquo;<\/a>/);

    // no controls on a detail page
    const detail = await h.app.inject({ url: '/items/1/', headers: { accept: HTML } });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain('pagination-controls');
  });

  it('shows the request version', async () => {
    const res = await h.app.inject({ url: '/versioned/?version=2.0', headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<span class="badge" title="API version">Version: 2.0</span>');
  });

  it('anonymous: a log-in link back to the page and no write form (IsAuthenticatedOrReadOnly)', async () => {
    const res = await h.app.inject({ url: '/items/', headers: { accept: HTML } });
    expect(res.body).toContain('<a href="/api-auth/login/?next=%2Fitems%2F" id="login-link">Log in</a>');
    expect(res.body).not.toContain('raw-data-form');
  });

  it('logged in: user name, log-out form and the raw-data form with the CSRF token', async () => {
    const jar = await loggedIn('alice');
    const res = await h.app.inject({ url: '/items/', headers: { accept: HTML, cookie: jar.header() } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<span class="user">alice</span>');
    expect(res.body).toContain('<form method="post" action="/api-auth/logout/">');
    expect(res.body).toContain('<form id="raw-data-form" action="" method="post">');
    expect(res.body).toContain('<button type="button" class="btn btn-primary" data-method="POST" data-raw-form>POST</button>');
    expect(res.body).toContain('<option value="application/json" selected>application/json</option>');
    const token = /data-csrf-token="([^"]+)"/.exec(res.body)![1]!;
    jar.store(res.headers['set-cookie']);
    // the page's token is accepted in X-CSRFToken
    const post = await h.app.inject({
      method: 'POST',
      url: '/items/',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrftoken': token, cookie: jar.header() },
      payload: JSON.stringify({ title: 'From the form' }),
    });
    expect(post.statusCode).toBe(201);
    expect(post.json()).toMatchObject({ title: 'From the form' });
    // a detail page offers PUT/PATCH with the current object, and DELETE
    const detail = await h.app.inject({ url: '/items/2/', headers: { accept: HTML, cookie: jar.header() } });
    expect(detail.body).toContain('data-method="PUT" data-raw-form>PUT</button>');
    // DELETE opens a confirmation dialog; only its "Yes, delete" sends the request
    expect(detail.body).toContain('<button type="button" class="btn btn-danger" data-confirm="delete-dialog" aria-haspopup="dialog">DELETE</button>');
    expect(detail.body).toContain('<dialog id="delete-dialog" aria-labelledby="delete-dialog-title">');
    expect(detail.body).toContain('<button type="button" class="btn btn-danger" data-method="DELETE" id="delete-confirm">Yes, delete</button>');
    expect(detail.body).toContain('&quot;title&quot;: &quot;Item 2&quot;');
  });

  it('builds an HTML form from the view\'s serializer fields next to the raw-data tab, prefilled on detail pages', async () => {
    const jar = await loggedIn('alice');
    const list = await h.app.inject({ url: '/items/', headers: { accept: HTML, cookie: jar.header() } });
    expect(list.body).toContain('<form id="html-form" action="" method="post" data-form-method="POST" data-content-type="application/json" novalidate>');
    expect(list.body).toContain('<label for="id_title">Title</label><input type="text" name="title" id="id_title" data-type="string" value="" maxlength="100" required>');
    expect(list.body).toContain('<input type="number" step="1" name="rank" id="id_rank" data-type="number" value="" min="0">');
    expect(list.body).toContain('<input type="checkbox" name="featured" id="id_featured" data-type="boolean"><label for="id_featured">Featured</label>');
    expect(list.body).toContain('<button type="submit" class="btn btn-primary">POST</button>');
    // a read-only field is not an input
    expect(list.body).not.toContain('name="id"');
    expect(list.body).toContain('role="tab" id="tab-raw"');
    expect(list.body).toContain('id="raw-data-form"');
    const detail = await h.app.inject({ url: '/items/5/', headers: { accept: HTML, cookie: jar.header() } });
    expect(detail.body).toContain('data-form-method="PUT"');
    // the current title, a <script>, is a value, escaped
    expect(detail.body).toContain('name="title" id="id_title" data-type="string" value="&lt;script&gt;window.__xss = 1&lt;/script&gt;"');
    // anonymous users get no form
    const anonymous = await h.app.inject({ url: '/items/', headers: { accept: HTML } });
    expect(anonymous.body).not.toContain('html-form');
  });

  it('a POST\'s 400 shows the values sent and each field\'s error in the form, and no page controls', async () => {
    const jar = await loggedIn('alice');
    const page = await h.app.inject({ url: '/items/', headers: { accept: HTML, cookie: jar.header() } });
    jar.store(page.headers['set-cookie']);
    const token = /data-csrf-token="([^"]+)"/.exec(page.body)![1]!;
    const res = await h.app.inject({
      method: 'POST',
      url: '/items/',
      headers: { accept: 'text/html', 'content-type': 'application/json', 'x-csrftoken': token, cookie: jar.header() },
      payload: JSON.stringify({ title: 'x'.repeat(101), rank: -1 }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(`value="${'x'.repeat(101)}" maxlength="100" required aria-describedby="err_title" aria-invalid="true">`);
    expect(res.body).toContain('<ul class="field-errors" id="err_title"><li>Ensure this field has no more than 100 characters.</li></ul>');
    expect(res.body).toContain('<ul class="field-errors" id="err_rank"><li>Ensure this value is greater than or equal to 0.</li></ul>');
    expect(res.body).not.toContain('pagination-controls');
    expect(page.body).toContain('id="pagination-controls"');
  });

  it('shows breadcrumbs from the routes that prefix the path', async () => {
    const res = await h.app.inject({ url: '/items/2/', headers: { accept: HTML } });
    expect(res.body).toContain(
      '<nav aria-label="Breadcrumbs"><ol class="breadcrumb"><li><a href="/items/">Item List</a></li><li><a href="/items/2/" aria-current="page">Item Detail</a></li></ol></nav>',
    );
  });

  it('renders errors as pages too', async () => {
    const res = await h.app.inject({ url: '/items/999/', headers: { accept: HTML } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<b class="status-line">HTTP 404 Not Found</b>');
    expect(res.body).toContain('&quot;detail&quot;: &quot;No object matches the given query.&quot;');
  });
});
