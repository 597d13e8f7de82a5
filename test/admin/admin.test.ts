import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, PASSWORD, XSS, type Harness } from '../browsable/harness.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';

let h: Harness;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  h = await startHarness({}, { level: 'info', stream });
});
afterAll(async () => {
  await h.close();
});

const FORM = 'application/x-www-form-urlencoded';

async function loginPage(jar: CookieJar, next = '') {
  const res = await h.app.inject({ url: `/admin/login/${next ? `?next=${encodeURIComponent(next)}` : ''}`, headers: { accept: 'text/html', cookie: jar.header() } });
  jar.store(res.headers['set-cookie']);
  return res;
}

async function adminLogin(username = 'admin', next = ''): Promise<{ jar: CookieJar; location: string | undefined; status: number; body: string }> {
  const jar = new CookieJar();
  const page = await loginPage(jar, next);
  const res = await h.app.inject({
    method: 'POST',
    url: `/admin/login/${next ? `?next=${encodeURIComponent(next)}` : ''}`,
    headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
    payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username, password: PASSWORD, next }).toString(),
  });
  jar.store(res.headers['set-cookie']);
  return { jar, location: res.headers['location'] as string | undefined, status: res.statusCode, body: res.body };
}

async function postForm(jar: CookieJar, url: string, fields: Record<string, string>, withCsrf = true) {
  const page = await h.app.inject({ url: '/admin/users/', headers: { accept: 'text/html', cookie: jar.header() } });
  jar.store(page.headers['set-cookie']);
  const token = inputValue(page.body, 'csrfmiddlewaretoken');
  const res = await h.app.inject({
    method: 'POST',
    url,
    headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
    payload: new URLSearchParams(withCsrf ? { csrfmiddlewaretoken: token, ...fields } : fields).toString(),
  });
  jar.store(res.headers['set-cookie']);
  return res;
}

describe('admin login', () => {
  it('sends anonymous visitors to the login page with next', async () => {
    const res = await h.app.inject({ url: '/admin/users/?q=a', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/login/?next=%2Fadmin%2Fusers%2F%3Fq%3Da');
    expect(res.body).toBe('');
  });

  it('logs a staff user in and follows a same-site next', async () => {
    const { status, location, jar } = await adminLogin('admin', '/admin/tokens/');
    expect(status).toBe(302);
    expect(location).toBe('/admin/tokens/');
    expect(jar.get('sessionid')).toMatch(/^[a-z0-9]{32}$/);
    const index = await h.app.inject({ url: '/admin/', headers: { accept: 'text/html', cookie: jar.header() } });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.body).toContain('<h1>Site administration</h1>');
    expect(index.body).toContain('<span class="user">admin</span>');
    expect(logs).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'admin.login' }));
  });

  it('ignores a next that leaves the site', async () => {
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example']) {
      const { status, location } = await adminLogin('admin', next);
      expect(status).toBe(302);
      expect(location).toBe('/admin/');
    }
  });

  it('refuses users who are not staff, with the form again', async () => {
    const { status, location, body, jar } = await adminLogin('alice');
    expect(status).toBe(200);
    expect(location).toBeUndefined();
    expect(body).toContain('Please enter the correct username and password for a staff account.');
    expect(jar.get('sessionid')).toBeUndefined();
  });

  it('refuses a login post without the CSRF token', async () => {
    const jar = new CookieJar();
    await loginPage(jar);
    const res = await h.app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ username: 'admin', password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('CSRF Failed: CSRF token missing.');
    expect(res.headers['set-cookie'] ?? '').not.toContain('sessionid=');
  });

  it('escapes a <script> in next and in the username field', async () => {
    const jar = new CookieJar();
    const page = await loginPage(jar, `/admin/?x=${XSS}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>window');
    expect(page.body).toContain('value="/admin/?x=&lt;script&gt;window.__xss = 1&lt;/script&gt;"');
    const res = await h.app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: XSS, password: 'x' }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>window');
    expect(res.body).toContain('value="&lt;script&gt;window.__xss = 1&lt;/script&gt;"');
  });
});

describe('admin users', () => {
  it('creates a user, lists it with search, and logs who did it', async () => {
    const { jar } = await adminLogin();
    const res = await postForm(jar, '/admin/users/', { username: XSS, email: 'x@example.com', password: 'pw-123456' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toMatch(/^\/admin\/users\/\?done=created&user=\d+$/);
    const list = await h.app.inject({ url: res.headers['location'] as string, headers: { accept: 'text/html', cookie: jar.header() } });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('The user “&lt;script&gt;window.__xss = 1&lt;/script&gt;” was added.');
    expect(list.body).not.toContain('<script>window');
    const search = await h.app.inject({ url: `/admin/users/?q=${encodeURIComponent('<script>')}`, headers: { accept: 'text/html', cookie: jar.header() } });
    expect(search.body).toContain('1 user matching “&lt;script&gt;”.');
    expect(search.body).toContain('value="&lt;script&gt;"');
    expect(logs).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'user.create', target: expect.objectContaining({ username: XSS }) }));
    // Django's history row, as for any model changed through the admin.
    const created = await h.database.db.selectFrom('trestle_admin_log').selectAll().where('object_repr', '=', XSS).execute();
    expect(created).toEqual([expect.objectContaining({ user_id: h.staff.pk, content_type: 'trestle_user', action_flag: 1, change_message: '[{"added": {}}]' })]);
  });

  it('refuses a weak password with Django\'s validator messages and adds no user', async () => {
    const { jar } = await adminLogin();
    const res = await postForm(jar, '/admin/users/', { username: 'weakling', email: '', password: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('This password is too short. It must contain at least 8 characters.');
    expect(res.body).toContain('This password is entirely numeric.');
    const similar = await postForm(jar, '/admin/users/', { username: 'margaretha', email: '', password: 'Margaretha1' });
    expect(similar.statusCode).toBe(200);
    expect(similar.body).toContain('The password is too similar to the username.');
    expect(await h.app.trestle.services.get('users').getByUsername('weakling')).toBeNull();
    expect(await h.app.trestle.services.get('users').getByUsername('margaretha')).toBeNull();
  });

  it('pages the user list', async () => {
    const users = h.app.trestle.services.get('users');
    for (let i = 0; i < 30; i++) await users.createUser({ username: `bulk${String(i).padStart(2, '0')}` });
    const { jar } = await adminLogin();
    const page2 = await h.app.inject({ url: '/admin/users/?page=2', headers: { accept: 'text/html', cookie: jar.header() } });
    expect(page2.statusCode).toBe(200);
    expect(page2.body).toContain('<li class="active"><a href="/admin/users/?page=2" aria-current="page">2</a></li>');
    expect(page2.body).toContain('data-username="bulk29"');
    expect(page2.body).not.toContain('data-username="admin"');
  });

  it('deactivates a user and makes another staff; refuses without CSRF', async () => {
    const { jar } = await adminLogin();
    const alice = h.alice;
    const noCsrf = await postForm(jar, `/admin/users/${alice.pk}/`, { action: 'deactivate' }, false);
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.body).toContain('CSRF Failed');
    expect((await h.app.trestle.services.get('users').getById(alice.pk))!.isActive).toBe(true);

    const staff = await postForm(jar, `/admin/users/${alice.pk}/`, { action: 'make-staff' });
    expect(staff.statusCode).toBe(302);
    expect((await h.app.trestle.services.get('users').getById(alice.pk))!.isStaff).toBe(true);
    const off = await postForm(jar, `/admin/users/${alice.pk}/`, { action: 'deactivate' });
    expect(off.statusCode).toBe(302);
    expect(off.headers['location']).toBe(`/admin/users/?done=deactivate&user=${alice.pk}`);
    const after = (await h.app.trestle.services.get('users').getById(alice.pk))!;
    expect(after.isActive).toBe(false);
    expect(logs).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'user.deactivate', target: { id: alice.pk, username: 'alice' } }));
    const changes = await h.database.db.selectFrom('trestle_admin_log').select(['change_message']).where('content_type', '=', 'trestle_user').where('object_id', '=', String(alice.pk)).orderBy('id').execute();
    expect(changes.map((c) => c.change_message)).toEqual(['[{"changed": {"fields": ["Staff status"]}}]', '[{"changed": {"fields": ["Active"]}}]']);
    await h.app.trestle.services.get('users').update(alice.pk, { isActive: true, isStaff: false });
  });

  it('a staff user cannot lock themselves out: an HTML error page, not JSON', async () => {
    const { jar } = await adminLogin();
    const res = await postForm(jar, `/admin/users/${h.staff.pk}/`, { action: 'deactivate' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<p class="error" role="alert">You cannot remove your own access.</p>');
    expect(res.body).toContain('Back to the administration');
    expect(res.body).not.toContain('{"action"');
  });

  it('asks before deactivating a user; the question itself changes nothing', async () => {
    const { jar } = await adminLogin();
    const list = await h.app.inject({ url: '/admin/users/', headers: { accept: 'text/html', cookie: jar.header() } });
    expect(list.body).toContain(`href="/admin/users/${h.alice.pk}/?confirm=deactivate"`);
    const res = await h.app.inject({ url: `/admin/users/${h.alice.pk}/?confirm=deactivate`, headers: { accept: 'text/html', cookie: jar.header() } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Deactivate “alice”?');
    expect(res.body).toContain('<input type="hidden" name="action" value="deactivate"><button type="submit" class="btn btn-danger">Yes, deactivate</button>');
    expect((await h.app.trestle.services.get('users').getById(h.alice.pk))!.isActive).toBe(true);
  });

  it('sorts the user list by a column, both ways, keeping the search', async () => {
    const { jar } = await adminLogin();
    const get = (url: string) => h.app.inject({ url, headers: { accept: 'text/html', cookie: jar.header() } });
    const order = (body: string) => [...body.matchAll(/<tr data-username="([^"]+)">/g)].map((m) => m[1]);
    const asc = await get('/admin/users/?o=username&q=a');
    expect(asc.statusCode).toBe(200);
    const names = order(asc.body);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['admin', 'alice']));
    expect(asc.body).toContain('<th scope="col" aria-sort="ascending"><a href="/admin/users/?o=-username&amp;q=a">Username ▲</a></th>');
    const desc = await get('/admin/users/?o=-username&q=a');
    expect(order(desc.body)).toEqual([...names].reverse());
    // an unknown column is ignored, not an error
    const unknown = await get('/admin/users/?o=password');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).not.toContain('aria-sort');
  });

  it('refuses a logged-in user who is not staff', async () => {
    const jar = new CookieJar();
    const page = await h.app.inject({ url: '/api-auth/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const login = await h.app.inject({
      method: 'POST',
      url: '/api-auth/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'alice', password: PASSWORD }).toString(),
    });
    jar.store(login.headers['set-cookie']);
    const res = await h.app.inject({ url: '/admin/users/', headers: { accept: 'text/html', cookie: jar.header() } });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/login/?next=%2Fadmin%2Fusers%2F');
  });
});

describe('admin tokens', () => {
  const KEY_RE = /<code class="key" id="token-key">([^<]+)<\/code>/;
  const page = (jar: CookieJar, url: string) => h.app.inject({ url, headers: { accept: 'text/html', cookie: jar.header() } });

  it('creates a token by hand, shows its key once after a redirect, regenerates it after confirming, and only the new key authenticates', async () => {
    const { jar } = await adminLogin();
    const created = await postForm(jar, '/admin/tokens/', { username: 'alice' });
    expect(created.statusCode).toBe(302);
    expect(created.headers['location']).toBe(`/admin/tokens/${h.alice.pk}/`);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toBe('');

    const shown = await page(jar, `/admin/tokens/${h.alice.pk}/`);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.headers['x-frame-options']).toBe('DENY');
    expect(shown.body).toContain('A token was created for “alice”.');
    const first = KEY_RE.exec(shown.body)![1]!;
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    // a reload shows nothing new, and the key is not shown again
    const reloaded = await page(jar, `/admin/tokens/${h.alice.pk}/`);
    expect(reloaded.statusCode).toBe(200);
    expect(reloaded.body).not.toContain(first);
    expect(reloaded.body).toContain('A key is shown only once');

    // "Create" again: the existing key is not shown
    const again = await postForm(jar, `/admin/tokens/${h.alice.pk}/`, { action: 'create', name: '' });
    expect(again.statusCode).toBe(302);
    expect(again.headers['location']).toBe(`/admin/tokens/?done=exists&user=${h.alice.pk}`);
    const exists = await page(jar, again.headers['location'] as string);
    expect(exists.body).toContain('“alice” already has a token. Its key is not shown again');
    expect(exists.body).not.toContain(first);

    const list = await page(jar, '/admin/tokens/?q=alice');
    expect(list.statusCode).toBe(200);
    expect(list.body).toMatch(/<tr data-username="alice"><td data-label="User">alice<\/td><td data-label="Token">default<\/td>/);
    expect(list.body).not.toContain(first);
    // regenerate and delete are links to a confirmation page, not buttons that act at once
    expect(list.body).toContain(`href="/admin/tokens/${h.alice.pk}/?confirm=regenerate&amp;name="`);
    const confirm = await page(jar, `/admin/tokens/${h.alice.pk}/?confirm=regenerate&name=`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Regenerate the token of “alice”? The current key stops working at once');
    expect(confirm.body).toContain('<input type="hidden" name="action" value="regenerate">');
    // looking at the confirmation changed nothing
    expect((await h.app.inject({ url: '/items/', headers: { authorization: `Token ${first}` } })).statusCode).toBe(200);

    const regenerated = await postForm(jar, `/admin/tokens/${h.alice.pk}/`, { action: 'regenerate', name: '' });
    expect(regenerated.statusCode).toBe(302);
    expect(regenerated.headers['location']).toBe(`/admin/tokens/${h.alice.pk}/`);
    const second = KEY_RE.exec((await page(jar, `/admin/tokens/${h.alice.pk}/`)).body)![1]!;
    expect(second).not.toBe(first);
    // reloading the key page does not regenerate again: the second key keeps working
    expect(KEY_RE.exec((await page(jar, `/admin/tokens/${h.alice.pk}/`)).body)).toBeNull();

    const ok = await h.app.inject({ method: 'POST', url: '/items/', headers: { authorization: `Token ${second}`, 'content-type': 'application/json' }, payload: '{"title":"via token"}' });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ title: 'via token' });
    const old = await h.app.inject({ url: '/items/', headers: { authorization: `Token ${first}` } });
    // SessionAuthentication is the view's first scheme and has no WWW-Authenticate: 403, as DRF.
    expect(old.statusCode).toBe(403);
    expect(old.headers['www-authenticate']).toBeUndefined();
    expect(old.json()).toEqual({ detail: 'Invalid token.' });
    expect(logs).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'token.regenerate', target: expect.objectContaining({ username: 'alice' }) }));
    expect(logs.filter((l) => l['action'] === 'token.regenerate')).toHaveLength(1);

    const deleted = await postForm(jar, `/admin/tokens/${h.alice.pk}/`, { action: 'delete', name: '' });
    expect(deleted.statusCode).toBe(302);
    expect(deleted.headers['location']).toBe(`/admin/tokens/?done=deleted&user=${h.alice.pk}`);
    const gone = await h.app.inject({ url: '/items/', headers: { authorization: `Token ${second}` } });
    expect(gone.statusCode).toBe(403);
    expect(gone.json()).toEqual({ detail: 'Invalid token.' });
    expect(logs).toContainEqual(expect.objectContaining({ actor: 'admin', action: 'token.delete' }));
    // The token's history never holds its key.
    const tokenHistory = await h.database.db.selectFrom('trestle_admin_log').select(['object_repr', 'action_flag', 'change_message']).where('content_type', '=', 'trestle_token').orderBy('id').execute();
    expect(tokenHistory).toEqual([
      { object_repr: 'Token of alice', action_flag: 1, change_message: '[{"added": {}}]' },
      { object_repr: 'Token of alice', action_flag: 2, change_message: '[{"changed": {"fields": ["Key"]}}]' },
      { object_repr: 'Token of alice', action_flag: 3, change_message: '' },
    ]);
  });

  it('says so for an unknown user', async () => {
    const { jar } = await adminLogin();
    const res = await postForm(jar, '/admin/tokens/', { username: 'nobody' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No user named “nobody”.');
  });
});
