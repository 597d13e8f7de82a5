import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHarness, PASSWORD, XSS, type Harness } from '../browsable/harness.js';
import { chromiumAvailable, launchChromium, requireChromiumInCi, screenshotPath } from './chromium.js';
import { checkPage } from './axe.js';

requireChromiumInCi();

let h: Harness;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  h = await startHarness();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

interface Watched {
  page: Page;
  context: BrowserContext;
  /** Page errors, CSP violations and failed requests seen so far. */
  problems: string[];
}

async function openPage(): Promise<Watched> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // Failed loads are reported with their URL below.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  page.on('response', (res) => {
    // The login page of /api-auth/ has no icon link, so Chromium asks for /favicon.ico.
    if (res.status() >= 400 && new URL(res.url()).pathname !== '/favicon.ico') problems.push(`${res.status()}: ${res.url()}`);
  });
  page.on('requestfailed', (req) => problems.push(`requestfailed: ${req.url()}`));
  return { page, context, problems };
}

/** axe-core and the 390 px layout: no serious/critical violation, no sideways scrolling; screenshots at both widths. */
async function expectAccessible(page: Page, name: string, exclude: readonly string[] = []): Promise<void> {
  const { violations, overflow } = await checkPage(page, name, exclude);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  expect(overflow, `${name} is wider than 390 px`).toBeLessThanOrEqual(0);
}

async function xssRan(page: Page): Promise<unknown> {
  return page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss);
}

describe.skipIf(!chromiumAvailable)('in Chromium', () => {
  it('browsable API: log in, page through numbers and a cursor, POST from the form with CSRF', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/items/`);
    expect(await page.locator('h1').textContent()).toBe('Item List');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 200 OK');
    await expectAccessible(page, 'browsable-anonymous');

    // log in through the link; `next` brings us back
    await page.click('#login-link');
    await page.waitForSelector('#login-form');
    await expectAccessible(page, 'login');
    await page.fill('#id_username', 'alice');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/items/`), page.click('button[type=submit]')]);
    expect(await page.locator('.navbar .user').textContent()).toBe('alice');

    // page-number controls: next, then the last page number, then back to 3
    await page.click('#pagination-controls a[rel=next]');
    await page.waitForURL(/page=2$/);
    expect(await page.locator('#pagination-controls li.active').textContent()).toBe('2');
    await page.click('#pagination-controls a:text-is("6")');
    await page.waitForURL(/page=6$/);
    expect(await page.locator('#pagination-controls li.active').textContent()).toBe('6');
    await page.goto(`${base}/items/?page=3`);
    // the item whose title is a <script> shows as text and never runs
    expect(await page.locator('#response-info').textContent()).toContain(`"title": "${XSS}"`);
    expect(await xssRan(page)).toBeUndefined();
    await page.screenshot({ path: screenshotPath('browsable-page-3'), fullPage: true });

    // cursor controls: next then previous
    await page.goto(`${base}/events/`);
    expect(await page.locator('#pagination-controls .disabled').textContent()).toContain('Previous');
    const firstPage = await page.locator('#response-info').textContent();
    await page.click('#pagination-controls a[rel=next]');
    await page.waitForURL(/cursor=/);
    const secondPage = await page.locator('#response-info').textContent();
    expect(secondPage).not.toBe(firstPage);
    expect(secondPage).toContain('"id": 9');
    await page.screenshot({ path: screenshotPath('browsable-cursor'), fullPage: true });
    await page.click('#pagination-controls a[rel=prev]');
    await page.waitForURL(/cursor=/);
    expect(await page.locator('#response-info').textContent()).toContain('"id": 12');

    // the filter controls: search, then order by a link; the other parameter is kept
    await page.goto(`${base}/items/`);
    await page.click('#filter-controls summary');
    await page.fill('#filter-controls input[name=search]', 'Item 1');
    await Promise.all([page.waitForURL(/search=Item\+1/), page.click('.filter-search button[type=submit]')]);
    await page.click('#filter-controls summary');
    await expectAccessible(page, 'browsable-filters');
    await Promise.all([page.waitForURL(/ordering=-title/), page.click('.filter-ordering a:text-is("title - descending")')]);
    expect(page.url()).toContain('search=Item+1');
    expect(await page.locator('#response-info').textContent()).toContain('"count": 4');
    expect(await page.locator('#response-info').textContent()).toMatch(/"title": "Item 12",[\s\S]*"title": "Item 11"/);

    // the HTML form: a 400 shows the error beside the field and drops the page controls
    await page.goto(`${base}/items/`);
    expect(await page.locator('#tab-html').getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#panel-raw').isHidden()).toBe(true);
    await expectAccessible(page, 'browsable-forms');
    await page.fill('#id_title', 'Out of range');
    await page.fill('#id_rank', '-1');
    await page.click('#html-form button[type=submit]');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 400 Bad Request');
    expect(await page.locator('#err_rank').textContent()).toBe('Ensure this value is greater than or equal to 0.');
    expect(await page.locator('#id_title').inputValue()).toBe('Out of range');
    expect(await page.locator('#pagination-controls').count()).toBe(0);
    await expectAccessible(page, 'browsable-form-400');
    // ... and a valid one creates the item
    await page.fill('#id_title', 'Made with the HTML form');
    await page.fill('#id_rank', '3');
    await page.click('#html-form button[type=submit]');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 201 Created');
    expect(await page.locator('#response-info').textContent()).toContain('"title": "Made with the HTML form"');
    const made = h.items.find((i) => i.title === 'Made with the HTML form')!;
    expect(made).toBeDefined();

    // DELETE asks first: Cancel keeps the item, "Yes, delete" removes it
    await page.goto(`${base}/items/${made.id}/`);
    expect(await page.locator('.breadcrumb a[aria-current=page]').textContent()).toBe('Item Detail');
    await page.click('button[data-confirm=delete-dialog]');
    expect(await page.locator('#delete-dialog').isVisible()).toBe(true);
    await expectAccessible(page, 'browsable-delete-dialog');
    await page.click('#delete-dialog [data-close-dialog]');
    expect(await page.locator('#delete-dialog').isVisible()).toBe(false);
    expect(h.items).toContain(made);
    await page.click('button[data-confirm=delete-dialog]');
    await page.click('#delete-confirm');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 204 No Content');
    expect(h.items).not.toContain(made);

    // POST from the raw-data tab: fetch with X-CSRFToken, answer shown in place
    await page.goto(`${base}/items/`);
    await page.click('#tab-raw');
    await page.fill('#id__content', JSON.stringify({ title: 'Posted from the browser' }));
    await page.click('button[data-method=POST]');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 201 Created');
    expect(await page.locator('#request-info').textContent()).toBe('POST /items/');
    expect(await page.locator('#response-info').textContent()).toContain('"title": "Posted from the browser"');
    await page.screenshot({ path: screenshotPath('browsable-post'), fullPage: true });
    expect(h.items.some((i) => i.title === 'Posted from the browser')).toBe(true);

    // a <script> in a query parameter renders as text
    await page.goto(`${base}/items/?q=${encodeURIComponent(XSS)}`);
    expect(await page.locator('#request-info').textContent()).toContain('q=%3Cscript%3E');
    expect(await xssRan(page)).toBeUndefined();

    // the one failed request is the deliberate 400 of the HTML form
    expect(problems).toEqual([`400: ${base}/items/`]);
    await context.close();
  }, 60_000);

  it('admin: log in, add a user, create a token, regenerate and delete it after confirming; a reload never regenerates again', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/admin/`);
    await page.waitForURL(/\/admin\/login\/\?next=%2Fadmin%2F$/);
    await expectAccessible(page, 'admin-login');
    await page.fill('#id_username', 'admin');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/admin/`), page.click('#admin-login-form button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('Site administration');
    await expectAccessible(page, 'admin-index');

    // add a user through the form
    await page.click('.navbar a:text-is("Users")');
    await page.waitForURL(`${base}/admin/users/`);
    await page.fill('#id_new_username', 'bob');
    await page.fill('#id_new_email', 'bob@example.com');
    await Promise.all([page.waitForURL(/done=created/), page.click('#add-user-form button[type=submit]')]);
    expect(await page.locator('.messages').textContent()).toContain('The user “bob” was added.');
    expect(await page.locator('#user-list tr[data-username="bob"] td').first().textContent()).toBe('bob');
    await page.click('#user-list th a:text("Username")');
    await page.waitForURL(/o=username/);
    await expectAccessible(page, 'admin-users');
    await page.click('#user-list tr[data-username="bob"] a:text-is("Deactivate…")');
    await expectAccessible(page, 'admin-confirm-deactivate');
    await page.click('#confirm a:text-is("No, take me back")');
    await page.waitForURL(`${base}/admin/users/`);

    // create: the key is shown on the page the POST redirects to
    await page.click('.navbar a:text-is("Tokens")');
    await expectAccessible(page, 'admin-tokens');
    await page.fill('#id_token_username', 'alice');
    await Promise.all([page.waitForURL(`${base}/admin/tokens/${h.alice.pk}/`), page.click('#create-token-form button[type=submit]')]);
    const first = (await page.locator('#token-key').textContent())!;
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    await expectAccessible(page, 'admin-token-created');
    // a reload shows nothing new
    await page.reload();
    expect(await page.locator('#token-key').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain('A key is shown only once');

    // regenerate asks first, then shows the new key once
    await page.click('a:text-is("Back to tokens")');
    await page.click('#token-list tr[data-username="alice"] a:text-is("Regenerate…")');
    expect(await page.locator('#confirm h1').textContent()).toBe('Regenerate token?');
    await expectAccessible(page, 'admin-confirm-regenerate');
    await page.click('#confirm button:text-is("Yes, regenerate")');
    await page.waitForSelector('#token-key');
    const second = (await page.locator('#token-key').textContent())!;
    expect(second).toMatch(/^[0-9a-f]{40}$/);
    expect(second).not.toBe(first);
    expect(await page.locator('.messages').textContent()).toContain('the old key no longer works');
    await page.reload();
    expect(await page.locator('#token-key').count()).toBe(0);

    // the reload regenerated nothing: the second key still works over plain HTTP, the first does not
    const created = await fetch(`${base}/items/`, {
      method: 'POST',
      headers: { authorization: `Token ${second}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ title: 'With the admin-made token' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(await created.json()).toMatchObject({ title: 'With the admin-made token' });
    const old = await fetch(`${base}/items/`, { headers: { authorization: `Token ${first}`, accept: 'application/json' } });
    expect(old.status).toBe(403);
    expect(await old.json()).toEqual({ detail: 'Invalid token.' });

    // delete asks first
    await page.click('a:text-is("Back to tokens")');
    await page.click('#token-list tr[data-username="alice"] a:text-is("Delete…")');
    await Promise.all([page.waitForURL(/done=deleted/), page.click('#confirm button:text-is("Yes, delete")')]);
    expect(await page.locator('.messages').textContent()).toContain('The token of “alice” was deleted.');
    expect((await fetch(`${base}/items/`, { headers: { authorization: `Token ${second}`, accept: 'application/json' } })).status).toBe(403);

    // an error is a page with a message, not JSON
    await page.goto(`${base}/admin/tokens/99999/`);
    expect(await page.locator('h1').textContent()).toBe('404 Not Found');
    await expectAccessible(page, 'admin-error');

    // a <script> in a query parameter of an admin page renders as text
    await page.goto(`${base}/admin/users/?q=${encodeURIComponent(XSS)}`);
    expect(await page.locator('input[name=q]').inputValue()).toBe(XSS);
    expect(await xssRan(page)).toBeUndefined();

    // the 404 above is the only failed load
    expect(problems.filter((p) => !p.startsWith('404:'))).toEqual([]);
    await context.close();
  }, 90_000);

  it('docs page: Swagger UI lists the operations from /openapi.json', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/docs/`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    const cleaned = paths.map((p) => p.replace(/\u200b/g, ''));
    expect(cleaned).toEqual(expect.arrayContaining(['/items/', '/items/{pk}/', '/events/', '/api-token-auth/']));
    const methods = await page.locator('.opblock-summary-method').allTextContents();
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    // Swagger UI's own markup is not Trestle's; the page around it is
    await expectAccessible(page, 'docs', ['#swagger-ui']);
    // nothing was loaded from anywhere but this server
    expect(problems).toEqual([]);

    // an unknown URL: an HTML page for the browser
    await page.goto(`${base}/no/such/page/`);
    expect(await page.locator('h1').textContent()).toBe('404 Not Found');
    await expectAccessible(page, 'not-found');

    await page.goto(`${base}/docs/?q=${encodeURIComponent(XSS)}`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    expect(await xssRan(page)).toBeUndefined();
    await context.close();
  }, 60_000);
});
