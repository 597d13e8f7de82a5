import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { freshSqliteUrl, type TestDatabaseUrl } from '../helpers/databases.js';
import { chromiumAvailable, launchChromium, requireChromiumInCi } from './chromium.js';
import { checkPage } from './axe.js';

requireChromiumInCi();

const Author = model('library_author', { name: field.char({ maxLength: 100 }) });
const Book = model('library_book', {
  title: field.char({ maxLength: 200 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
  kind: field.char({ maxLength: 1, choices: [['n', 'Novel'], ['p', 'Poetry']], default: 'n' }),
  published: field.date({ null: true, helpText: 'The first edition.' }),
  inPrint: field.boolean({ default: true, verboseName: 'in print' }),
  notes: field.text({ blank: true, default: '' }),
});
const PASSWORD = 'correct horse battery staple';

let target: TestDatabaseUrl;
let database: Database;
let app: TrestleApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  target = freshSqliteUrl();
  database = await openDatabase(target.url);
  await migrate(database, { '0001_initial': migration({ operations: [Author, Book].map((m) => createModel(m.tableName, { ...m.fields }, m.meta)) }) });
  const site = new AdminSite()
    .register(Author, { listDisplay: ['name'], searchFields: ['name'], str: (a) => a.name })
    .register(Book, { listDisplay: ['title', 'author', 'kind', 'inPrint'], listFilter: ['kind', 'author', 'published'], searchFields: ['title', 'author__name'], str: (b) => b.title, listPerPage: 5 });
  app = await createApp({ settings: { SECRET_KEY: 'test-secret-key-for-model-admin-e2e-0123456789' }, routes: [adminRoutes({ site })], database, logger: false });
  await app.trestle.services.get('users').createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
  const author = await database.db.insertInto('library_author' as never).values({ name: 'Ursula Le Guin' } as never).returningAll().executeTakeFirstOrThrow();
  for (let i = 0; i < 7; i++) {
    await database.db
      .insertInto('library_book' as never)
      .values({ title: `Book ${i}`, author_id: (author as { id: number }).id, kind: i % 2 ? 'p' : 'n', published: `19${60 + i}-01-01`, inPrint: 1, notes: '' } as never)
      .execute();
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await database?.close();
  await target?.cleanup();
});

async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations, overflow } = await checkPage(page, name);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  expect(overflow, `${name} is wider than 390 px`).toBeLessThanOrEqual(0);
}

describe.skipIf(!chromiumAvailable)('the admin of models in Chromium', () => {
  it('lists, filters, searches, adds with an error then fixed, changes, shows the history and deletes after confirming', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
    });

    await page.goto(`${base}/admin/`);
    await page.fill('#id_username', 'root');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/admin/`), page.click('#admin-login-form button[type=submit]')]);
    expect(await page.locator('#app-library caption').textContent()).toBe('Library');
    await expectAccessible(page, 'admin-models-index');

    // The change list: two pages of five, a filter, a search.
    await Promise.all([page.waitForURL(`${base}/admin/library/book/`), page.click('#app-library a:text-is("Books")')]);
    expect(await page.locator('#paginator').textContent()).toBe('7 books');
    expect(await page.locator('#result_list tbody tr').count()).toBe(5);
    await expectAccessible(page, 'admin-models-changelist');
    await Promise.all([page.waitForURL(/p=2/), page.click('#pagination-controls a:text-is("2")')]);
    expect(await page.locator('#result_list tbody tr').count()).toBe(2);
    await Promise.all([page.waitForURL(/kind__exact=p/), page.click('#changelist-filter a:text-is("Poetry")')]);
    expect(await page.locator('#result-count').textContent()).toBe('3 results (7 total)');
    await page.fill('#searchbar', 'book 3');
    await Promise.all([page.waitForURL(/q=book\+3/), page.click('#changelist-search button')]);
    expect(await page.locator('#result_list tbody th a').allTextContents()).toEqual(['Book 3']);

    // Add: an error shown at the field, then fixed.
    await page.goto(`${base}/admin/library/book/`);
    await Promise.all([page.waitForURL(/\/add\/$/), page.click('#add-link')]);
    await page.selectOption('#id_author', { label: 'Ursula Le Guin' });
    await Promise.all([page.waitForLoadState('load'), page.click('button[name=_save]')]);
    expect(await page.locator('#id_title_errors').textContent()).toBe('This field may not be blank.');
    expect(await page.locator('#id_title').getAttribute('aria-describedby')).toBe('id_title_errors');
    await expectAccessible(page, 'admin-models-add-error');
    await page.fill('#id_title', 'The Left Hand of Darkness');
    await page.fill('#id_published', '1969-03-01');
    await page.selectOption('#id_kind', 'n');
    await Promise.all([page.waitForURL(/\/change\/$/), page.click('button[name=_continue]')]);
    expect(await page.locator('.messages').textContent()).toContain('The book “The Left Hand of Darkness” was added successfully. You may edit it again below.');
    expect(await page.locator('#id_published').inputValue()).toBe('1969-03-01');
    await expectAccessible(page, 'admin-models-change');

    // Change, then the history.
    await page.uncheck('#id_inPrint');
    await Promise.all([page.waitForURL(/\/change\/$/), page.click('button[name=_continue]')]);
    expect(await page.locator('.messages').textContent()).toContain('was changed successfully');
    expect(await page.locator('#id_inPrint').isChecked()).toBe(false);
    await Promise.all([page.waitForURL(/\/history\/$/), page.click('a:text-is("History")')]);
    expect(await page.locator('#change-history td[data-label="Action"]').allTextContents()).toEqual(['Added.', 'Changed In print.']);
    await expectAccessible(page, 'admin-models-history');

    // Delete asks first.
    await page.goBack();
    await Promise.all([page.waitForURL(/\/delete\/$/), page.click('a:text-is("Delete")')]);
    expect(await page.locator('#deleted-objects').textContent()).toContain('Book: The Left Hand of Darkness');
    await expectAccessible(page, 'admin-models-delete');
    await Promise.all([page.waitForURL(`${base}/admin/library/book/`), page.click('button:text-is("Yes, I’m sure")')]);
    expect(await page.locator('.messages').textContent()).toContain('The book “The Left Hand of Darkness” was deleted successfully.');
    expect(await page.locator('#paginator').textContent()).toBe('7 books');

    // Deleting an author lists their books.
    await page.goto(`${base}/admin/library/author/1/delete/`);
    expect(await page.locator('#deleted-summary').textContent()).toContain('Books: 7');

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
