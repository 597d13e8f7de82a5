import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRoutes, authRoutes, type TrestleApp } from '../../src/index.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { appWith, authFixture, type AuthFixture } from './helpers.js';

let fx: AuthFixture;
let app: TrestleApp;
beforeAll(async () => {
  fx = await authFixture();
  app = await appWith(fx, { routes: [authRoutes(), adminRoutes()] });
});
afterAll(async () => {
  await app.close();
  await fx.close();
});

const FORM = 'application/x-www-form-urlencoded';
const UNSAFE = ['/caf\u00e9/', '/\u4e2d\u6587/', '/a\u2028b/', '/emoji/\u{1F600}', '/a\tb/'];

async function loginForm(url: string, fields: Record<string, string>) {
  const jar = new CookieJar();
  const page = await app.inject({ url, headers: { accept: 'text/html' } });
  jar.store(page.headers['set-cookie']);
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
    payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), ...fields }).toString(),
  });
  jar.store(res.headers['set-cookie']);
  return { res, jar };
}

describe('redirect targets a Location header cannot carry are ignored, never a 500', () => {
  it.each(UNSAFE)('session login with next=%j logs in and goes to LOGIN_REDIRECT_URL', async (next) => {
    const { res, jar } = await loginForm(`/api-auth/login/?next=${encodeURIComponent(next)}`, { username: 'alice', password: 's3cret', next });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/');
    expect(jar.get('sessionid')).toMatch(/^[a-z0-9]{32}$/);
  });

  it('the login page does not echo such a next into its form', async () => {
    const res = await app.inject({ url: `/api-auth/login/?next=${encodeURIComponent('/\u4e2d/')}`, headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<input type="hidden" name="next" value="">');
  });

  it('a printable ASCII next is still followed', async () => {
    const { res } = await loginForm('/api-auth/login/', { username: 'alice', password: 's3cret', next: '/caf%C3%A9/?q=a b' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/caf%C3%A9/?q=a b');
  });

  it.each(UNSAFE)('admin login with next=%j goes to the admin index', async (next) => {
    const { res, jar } = await loginForm(`/admin/login/?next=${encodeURIComponent(next)}`, { username: 'admin', password: 'adminpw', next });
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe('/admin/');
    expect(jar.get('sessionid')).toMatch(/^[a-z0-9]{32}$/);
  });

  it.each(UNSAFE)('logout with next=%j answers the JSON logout', async (next) => {
    const page = await app.inject({ url: '/api-auth/login/', headers: { accept: 'application/json' } });
    const jar = new CookieJar();
    jar.store(page.headers['set-cookie']);
    const res = await app.inject({
      method: 'POST',
      url: `/api-auth/logout/?next=${encodeURIComponent(next)}`,
      headers: { accept: 'application/json', cookie: jar.header(), 'x-csrftoken': page.json().csrfToken as string },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['location']).toBeUndefined();
    expect(res.json()).toEqual({ detail: 'Logged out.' });
  });
});
