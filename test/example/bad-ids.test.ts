import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyUserStore, type TrestleApp } from '../../src/index.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { DEMO_USER } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from './start-example.js';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe.each(testDatabases())('bad ids and parameters are 4xx on $name', ({ open }) => {
  let app: TrestleApp;
  let running: RunningExample | undefined;

  beforeAll(async () => {
    running = await startExample(open);
    app = running.app;
  }, 120_000);

  afterAll(() => running?.stop());

  it.each([
    ['/api/books/abc/', 'Book'],
    ['/api/books/1e3/', 'Book'],
    ['/api/books/-1/', 'Book'],
    ['/api/books/1.0/', 'Book'],
    ['/api/books/2147483648/', 'Book'],
    ['/api/books/99999999999999999999999/', 'Book'],
    ['/api/authors/9999999999/', 'Author'],
    ['/api/authors/%00/', 'Author'],
  ])('GET %s is the 404 of a missing %s, before any query', async (url, item) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: `No ${item} matches the given query.` });
  });

  it('a write to an id out of range is a 404 too, after authentication', async () => {
    const auth = basic(DEMO_USER.username, DEMO_USER.password);
    const put = await app.inject({ method: 'PATCH', url: '/api/books/2147483648/', headers: { authorization: auth }, payload: { title: 'x' } });
    expect(put.statusCode).toBe(404);
    expect(put.json()).toEqual({ detail: 'No Book matches the given query.' });
    const anonymous = await app.inject({ method: 'DELETE', url: '/api/books/1e3/' });
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('book 1000 is still found by its real id', async () => {
    const res = await app.inject({ url: '/api/books/1000/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 1000 });
  });

  it('a NUL in ?search= matches as if it were absent', async () => {
    const withNul = await app.inject({ url: '/api/authors/?search=%00' });
    const without = await app.inject({ url: '/api/authors/' });
    expect(withNul.statusCode).toBe(200);
    expect(withNul.json().count).toBe(without.json().count);
    const nulInside = await app.inject({ url: '/api/authors/?search=%00zzzz-none' });
    expect(nulInside.statusCode).toBe(200);
    expect(nulInside.json()).toMatchObject({ count: 0, results: [] });
  });

  it.each([
    ['POST', '/admin/users/2147483648/', 404],
    ['POST', '/admin/users/99999999999999999999/', 404],
    ['POST', '/admin/tokens/2147483648/', 404],
    ['GET', '/admin/users/?q=%00', 200],
    ['GET', '/admin/tokens/?q=%00&page=1e3', 200],
    ['GET', '/admin/users/?done=created&user=2147483648', 200],
    ['GET', '/admin/tokens/?done=deleted&user=99999999999', 200],
  ])('staff-only admin %s %s answers %i', async (method, url, status) => {
    const users = new KyselyUserStore(running!.database.db);
    if (!(await users.getByUsername('staff'))) await users.createUser({ username: 'staff', password: 'staff-password', isStaff: true });
    const jar = new CookieJar();
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const login = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'staff', password: 'staff-password' }).toString(),
    });
    expect(login.statusCode).toBe(302);
    jar.store(login.headers['set-cookie']);
    const form = await app.inject({ url: '/admin/users/', headers: { accept: 'text/html', cookie: jar.header() } });
    const res = await app.inject({
      method: method as 'GET' | 'POST',
      url,
      headers: { accept: 'text/html', cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      ...(method === 'POST'
        ? { payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(form.body, 'csrfmiddlewaretoken'), action: 'activate' }).toString() }
        : {}),
    });
    expect(res.statusCode).toBe(status);
    expect(res.body).not.toContain('A server error occurred');
  });
  it.each([
    ['GET', '/admin/catalogue/book/2147483648/change/', 404],
    ['GET', '/admin/catalogue/book/abc/history/', 404],
    ['POST', '/admin/catalogue/book/99999999999999999999/delete/', 404],
    ['GET', '/admin/catalogue/book/?p=1e3', 404],
    ['GET', '/admin/catalogue/book/?p=99999999999', 404],
    ['GET', '/admin/catalogue/book/?author__id__exact=99999999999', 400],
    ['GET', '/admin/catalogue/book/?tags__id__exact=%00', 400],
    ['GET', '/admin/catalogue/book/?created__year=99999', 400],
    ['GET', '/admin/catalogue/book/?year__exact=1', 400],
    ['GET', '/admin/catalogue/book/?q=%00', 200],
    ['GET', '/admin/catalogue/book/?o=-nope', 200],
  ])('the catalogue admin %s %s answers %i', async (method, url, status) => {
    const users = new KyselyUserStore(running!.database.db);
    if (!(await users.getByUsername('root'))) await users.createSuperuser({ username: 'root', password: 'root-password' });
    const jar = new CookieJar();
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const login = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'root', password: 'root-password' }).toString(),
    });
    expect(login.statusCode).toBe(302);
    jar.store(login.headers['set-cookie']);
    const form = await app.inject({ url: '/admin/', headers: { accept: 'text/html', cookie: jar.header() } });
    expect(form.body).toContain('href="/admin/catalogue/book/">Books</a>');
    const res = await app.inject({
      method: method as 'GET' | 'POST',
      url,
      headers: { accept: 'text/html', cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      ...(method === 'POST' ? { payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(form.body, 'csrfmiddlewaretoken') }).toString() } : {}),
    });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).not.toContain('A server error occurred');
  });
});
