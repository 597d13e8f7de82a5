// The example's admin names a favourite by its user and book (the rows the
// admin attaches under `user` and `book`), on the list, its form, its
// history and a book's delete confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrestleApp } from '../../src/index.js';
import { DEMO_ADMIN, DEMO_USER } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';
import { startExample, type RunningExample } from './start-example.js';

const AUTH = { authorization: `Basic ${Buffer.from(`${DEMO_USER.username}:${DEMO_USER.password}`).toString('base64')}` };
const FORM = 'application/x-www-form-urlencoded';

describe.each(testDatabases())("the example admin's favourites on $name", ({ open }) => {
  let running: RunningExample | undefined;
  let app: TrestleApp;
  const admin = new CookieJar();
  beforeAll(async () => {
    running = await startExample(open);
    app = running.app;
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    admin.store(page.headers['set-cookie']);
    const res = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: admin.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: DEMO_ADMIN.username, password: DEMO_ADMIN.password }).toString(),
    });
    expect(res.statusCode).toBe(302);
    admin.store(res.headers['set-cookie']);
  }, 120_000);
  afterAll(() => running?.stop());

  const get = async (url: string) => {
    const res = await app.inject({ url, headers: { accept: 'text/html', cookie: admin.header() } });
    admin.store(res.headers['set-cookie']);
    return res;
  };

  it('a favourite is "<username> – <title>" on its list, form, history and a delete confirmation', async () => {
    const book = await app.inject({ url: '/api/books/4/', headers: AUTH });
    expect(book.statusCode).toBe(200);
    const title = String(book.json().title);
    const favourite = await app.inject({ method: 'POST', url: '/api/books/4/favourite/', headers: AUTH });
    expect(favourite.statusCode).toBe(201);
    const name = `${DEMO_USER.username} – ${title}`;

    const list = await get('/admin/catalogue/favourite/');
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    const id = /<tr data-pk="(\d+)">/.exec(list.body)?.[1];
    expect(id).toBeDefined();
    expect(list.body).toContain(`aria-label="${`Select ${name}`.replaceAll('&', '&amp;')}"`);
    expect(list.body).not.toContain('Favourite object');

    const form = await get(`/admin/catalogue/favourite/${id}/change/`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`<h2 class="muted">${name.replaceAll('&', '&amp;')}</h2>`);
    const history = await get(`/admin/catalogue/favourite/${id}/history/`);
    expect(history.statusCode).toBe(200);
    expect(history.body).toContain(name.replaceAll('&', '&amp;'));

    const confirm = await get('/admin/catalogue/book/4/delete/');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`Favourite: ${name.replaceAll('&', '&amp;')}`);
  });
});
