// Signing in to the admin console as a browser does, for the admin's tests.
import { expect } from 'vitest';
import { CookieJar, inputValue } from '../browsable/cookies.js';

/** What the helpers need of an app: `inject`. */
interface Injectable {
  inject(options: { method?: string; url: string; headers?: Record<string, string>; payload?: string }): Promise<{
    statusCode: number;
    body: string;
    headers: Record<string, string | string[] | number | undefined>;
  }>;
}

/** Logs `username` in through /admin/login/ (its form and CSRF token) and returns the cookie jar. */
export async function adminLogin(app: Injectable, username: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
  jar.store(page.headers['set-cookie'] as string[] | string | undefined);
  const res = await app.inject({
    method: 'POST',
    url: '/admin/login/',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username, password }).toString(),
  });
  expect(res.statusCode).toBe(302);
  jar.store(res.headers['set-cookie'] as string[] | string | undefined);
  return jar;
}

/** GET `url` as the jar's user, keeping the cookies the answer sets. */
export async function adminGet(app: Injectable, jar: CookieJar, url: string) {
  const res = await app.inject({ url, headers: { accept: 'text/html', cookie: jar.header() } });
  jar.store(res.headers['set-cookie'] as string[] | string | undefined);
  return res;
}

/**
 * POST `fields` (a list value repeats its name) as a form to `url` as the
 * jar's user, with a CSRF token read from /admin/, keeping the cookies the
 * answer sets.
 */
export async function adminPost(app: Injectable, jar: CookieJar, url: string, fields: Record<string, string | string[]>) {
  const token = inputValue((await adminGet(app, jar, '/admin/')).body, 'csrfmiddlewaretoken');
  const body = new URLSearchParams({ csrfmiddlewaretoken: token });
  for (const [k, v] of Object.entries(fields)) for (const one of typeof v === 'string' ? [v] : v) body.append(k, one);
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    payload: body.toString(),
  });
  jar.store(res.headers['set-cookie'] as string[] | string | undefined);
  return res;
}
