// The catalogue's admin in Chromium, through the example service as `npm start`
// runs it (migrated and seeded): a staff user's walk through the books and
// authors, checked against the API, and a view-only user's read-only pages.
// axe-core finds no serious or critical violation on any page, at 1280 and 390 px.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_ADMIN, DEMO_USER } from '../../example/catalogue/seed.js';
import { catalogueModels } from '../../example/catalogue/models.js';
import { syncPermissions } from '../../src/admin/permissions.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from '../example/start-example.js';
import { chromiumAvailable, launchChromium, requireChromiumInCi } from './chromium.js';
import { checkPage } from './axe.js';

requireChromiumInCi();

const READER_PASSWORD = 'correct horse battery staple';
const sqlite = testDatabases()[0]!;

let running: RunningExample;
let browser: Browser;
let base: string;

/** The example's API as the demo user (HTTP Basic), JSON in and out. */
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${DEMO_USER.username}:${DEMO_USER.password}`).toString('base64')}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

beforeAll(async () => {
  if (!chromiumAvailable) return;
  running = await startExample(sqlite.open);
  await running.app.listen({ host: '127.0.0.1', port: 0 });
  const address = running.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.stop();
});

/** Watches a page for script errors, console errors and failed requests. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
  });
  return problems;
}

async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations, overflow } = await checkPage(page, `example-admin-${name}`);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  expect(overflow, `${name} is wider than 390 px`).toBeLessThanOrEqual(0);
}

async function logIn(context: BrowserContext, username: string, password: string, check: boolean): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/admin/`);
  expect(page.url()).toBe(`${base}/admin/login/?next=%2Fadmin%2F`);
  if (check) await expectAccessible(page, 'login');
  await page.fill('#id_username', username);
  await page.fill('#id_password', password);
  await Promise.all([page.waitForURL(`${base}/admin/`), page.click('#admin-login-form button[type=submit]')]);
  return page;
}

describe.skipIf(!chromiumAvailable)('the example catalogue in the admin, in Chromium', () => {
  it('a superuser searches, filters and sorts the books, changes one, adds one after an error, and deletes an author after seeing the cascade', async () => {
    // Two tags and a favourite, through the API.
    const tags: string[] = [];
    for (const name of ['classic', 'translated']) {
      const made = await api('POST', '/api/tags/', { name });
      expect(made.status).toBe(201);
      tags.push(String(made.body!['id']));
    }

    const context = await browser.newContext();
    const page = await logIn(context, DEMO_ADMIN.username, DEMO_ADMIN.password, true);
    const problems = watch(page);
    expect(await page.locator('#app-catalogue caption').textContent()).toBe('Catalogue');
    await expectAccessible(page, 'index');

    // The books: search, then filter by an author, then sort by year.
    await Promise.all([page.waitForURL(`${base}/admin/catalogue/book/`), page.click('#app-catalogue a:text-is("Books")')]);
    expect(await page.locator('h1').textContent()).toBe('Select book to change');
    expect(await page.locator('#paginator').textContent()).toBe('5,000 books');
    expect(await page.locator('#result_list tbody tr').count()).toBe(50);
    await expectAccessible(page, 'books');
    await page.fill('#searchbar', 'Ursula Lagerlöf');
    await Promise.all([page.waitForURL(/q=Ursula\+Lagerl/), page.click('#changelist-search button')]);
    expect(await page.locator('#result-count').textContent()).toMatch(/^\d+ results \(5,000 total\)$/);
    for (const name of await page.locator('#result_list td[data-label="Author"]').allTextContents()) expect(name).toMatch(/^Ursula Lagerlöf( \d+)?$/);
    await Promise.all([page.waitForURL(/author__id__exact=3/), page.click('#changelist-filter a:text-is("Ursula Lagerlöf")')]);
    expect(await page.locator('#result-count').textContent()).toBe('25 results (5,000 total)');
    expect(await page.locator('#changelist-filter li.selected a').allTextContents()).toContain('Ursula Lagerlöf');
    await Promise.all([page.waitForURL(/o=year/), page.click('#result_list thead a:text-is("Year")')]);
    const years = (await page.locator('#result_list td[data-label="Year"]').allTextContents()).map(Number);
    expect(years).toHaveLength(25);
    expect(years).toEqual([...years].sort((a, b) => a - b));
    expect(await page.locator('#result_list thead th[aria-sort="ascending"]').textContent()).toContain('Year');
    await expectAccessible(page, 'books-filtered');

    // Open the oldest of them; change its title and tags.
    const first = page.locator('#result_list tbody th a').first();
    const oldTitle = await first.textContent();
    await Promise.all([page.waitForURL(/\/change\/\?_changelist_filters=/), first.click()]);
    const bookId = Number(/\/book\/(\d+)\/change\//.exec(page.url())![1]);
    expect(await page.locator('#id_title').inputValue()).toBe(oldTitle);
    expect(await page.locator('#id_author option:checked').textContent()).toBe('Ursula Lagerlöf');
    await expectAccessible(page, 'book-change');
    await page.fill('#id_title', 'The Saga of Gösta Berling');
    await page.selectOption('#id_tags', tags);
    await Promise.all([page.waitForURL(/\/admin\/catalogue\/book\/\?author__id__exact=3&q=Ursula\+Lagerl%C3%B6f&o=year$/), page.click('button[name=_save]')]);
    expect(await page.locator('.messages').textContent()).toContain('The book “The Saga of Gösta Berling” was changed successfully.');
    // Back on the list as it was: searched, filtered and sorted.
    expect(await page.locator('#result-count').textContent()).toBe('25 results (5,000 total)');
    expect(await page.locator('#result_list thead th[aria-sort="ascending"]').textContent()).toContain('Year');

    const book = await api('GET', `/api/books/${bookId}/`);
    expect(book).toMatchObject({ status: 200, body: { id: bookId, title: 'The Saga of Gösta Berling', author: `${base}/api/authors/3/` } });
    expect(await api('GET', `/api/tagged-books/${bookId}/`)).toEqual({
      status: 200,
      body: { url: `${base}/api/books/${bookId}/`, id: bookId, title: 'The Saga of Gösta Berling', tags: tags.map((t) => `${base}/api/tags/${t}/`) },
    });
    expect((await api('POST', `/api/books/${bookId}/favourite/`)).status).toBe(201);

    // Its history.
    await page.goto(`${base}/admin/catalogue/book/${bookId}/history/`);
    expect(await page.locator('#change-history td[data-label="Action"]').allTextContents()).toEqual(['Changed Title and Tags.']);
    await expectAccessible(page, 'book-history');

    // Add a book: the missing title is shown at its field, then fixed.
    await page.goto(`${base}/admin/catalogue/book/`);
    await Promise.all([page.waitForURL(/\/add\/$/), page.click('#add-link')]);
    await page.selectOption('#id_author', { label: 'Ursula Lagerlöf' });
    await page.fill('#id_year', '1891');
    await page.fill('#id_isbn', '9789100000001');
    await Promise.all([page.waitForLoadState('load'), page.click('button[name=_save]')]);
    expect(await page.locator('#id_title_errors').textContent()).toBe('This field may not be blank.');
    expect(await page.locator('#id_title').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'book-add-error');
    await page.fill('#id_title', 'Invisible Links');
    await Promise.all([page.waitForURL(/\/change\/$/), page.click('button[name=_continue]')]);
    expect(await page.locator('.messages').textContent()).toContain('The book “Invisible Links” was added successfully. You may edit it again below.');
    const addedId = Number(/\/book\/(\d+)\/change\/$/.exec(page.url())![1]);
    expect(await api('GET', `/api/books/${addedId}/`)).toMatchObject({ status: 200, body: { title: 'Invisible Links', year: 1891, isbn: '9789100000001' } });

    // Delete the author: the confirmation lists the books, their tags' rows and the favourite.
    await page.goto(`${base}/admin/catalogue/author/3/change/`);
    await Promise.all([page.waitForURL(/\/delete\/$/), page.click('a:text-is("Delete")')]);
    const summary = await page.locator('#deleted-summary li').allTextContents();
    expect(summary).toEqual(['Authors: 1', 'Books: 26', 'Book-tag relationships: 2', 'Favourites: 1']);
    const objects = (await page.locator('#deleted-objects').textContent()) ?? '';
    expect(objects).toContain('Author: Ursula Lagerlöf');
    expect(objects).toContain('Book: The Saga of Gösta Berling');
    expect(objects).toContain('Book: Invisible Links');
    expect(objects).toMatch(/Book-tag relationship: Book_tags object \(\d+\)/);
    expect(objects).toContain(`Favourite: ${DEMO_USER.username} – The Saga of Gösta Berling`);
    await expectAccessible(page, 'author-delete');
    await Promise.all([page.waitForURL(`${base}/admin/catalogue/author/`), page.click('button:text-is("Yes, I’m sure")')]);
    expect(await page.locator('.messages').textContent()).toContain('The author “Ursula Lagerlöf” was deleted successfully.');
    await expectAccessible(page, 'authors');
    expect((await api('GET', '/api/authors/3/')).status).toBe(404);
    expect((await api('GET', `/api/books/${bookId}/`)).status).toBe(404);
    expect((await api('GET', `/api/books/${addedId}/`)).status).toBe(404);

    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('a staff user with the view permission only sees the books read-only', async () => {
    const users = running.app.trestle.services.get('users');
    const db = running.app.trestle.services.get('db') as unknown as Kysely<Record<string, Record<string, unknown>>>;
    // The permission rows, as the admin's first page inserts them.
    await syncPermissions(db, [...catalogueModels]);
    const reader = await users.createUser({ username: 'reader', password: READER_PASSWORD, isStaff: true });
    const perms = await db.selectFrom('auth_permission').select(['id', 'codename']).where('codename', 'in', ['view_book', 'view_author']).execute();
    expect(perms).toHaveLength(2);
    for (const p of perms) await db.insertInto('trestle_user_user_permissions').values({ user_id: Number(reader.pk), permission_id: p.id }).execute();

    const context = await browser.newContext();
    const page = await logIn(context, 'reader', READER_PASSWORD, false);
    const problems = watch(page);
    expect(await page.locator('#app-catalogue tr.model-book a.changelink').textContent()).toBe('View');
    expect(await page.locator('#app-catalogue a.addlink').count()).toBe(0);
    await Promise.all([page.waitForURL(`${base}/admin/catalogue/book/`), page.click('#app-catalogue a:text-is("Books")')]);
    expect(await page.locator('h1').textContent()).toBe('Select book to view');
    expect(await page.locator('#add-link').count()).toBe(0);
    expect(await page.locator('#result_list input[type=checkbox]').count()).toBe(0);
    await expectAccessible(page, 'books-view-only');
    const first = page.locator('#result_list tbody th a').first();
    const title = await first.textContent();
    await Promise.all([page.waitForURL(/\/change\/$/), first.click()]);
    expect(await page.locator('h1').textContent()).toBe('View book');
    expect(await page.locator('#field-title .readonly-value').textContent()).toBe(title);
    expect(await page.locator('main input, main select, main textarea, main button').count()).toBe(0);
    await expectAccessible(page, 'book-view-only');
    await Promise.all([page.waitForURL(`${base}/admin/catalogue/book/`), page.click('a.closelink')]);

    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);
});
