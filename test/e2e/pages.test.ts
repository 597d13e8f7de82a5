import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHarness, PASSWORD, XSS, type Harness } from '../browsable/harness.js';
import { chromiumAvailable, launchChromium, requireChromiumInCi, screenshotPath } from './chromium.js';

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

async function xssRan(page: Page): Promise<unknown> {
  return page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss);
}

describe.skipIf(!chromiumAvailable)('in Chromium', () => {
  it('browsable API: log in, page through numbers and a cursor, POST from the form with CSRF', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/items/`);
    expect(await page.locator('h1').textContent()).toBe('Item List');
    await expect.poll(() => page.locator('#response-info').textContent()).toContain('HTTP 200 OK');
    await page.screenshot({ path: screenshotPath('browsable-anonymous'), fullPage: true });

    // log in through the link; `next` brings us back
    await page.click('#login-link');
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

    // POST from the raw-data form: fetch with X-CSRFToken, answer shown in place
    await page.goto(`${base}/items/`);
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

    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('admin: log in as staff, create and regenerate a token, then use it over HTTP', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/admin/`);
    await page.waitForURL(/\/admin\/login\/\?next=%2Fadmin%2F$/);
    await page.screenshot({ path: screenshotPath('admin-login'), fullPage: true });
    await page.fill('#id_username', 'admin');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/admin/`), page.click('#admin-login-form button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('Site administration');

    await page.click('.navbar a:text-is("Users")');
    await page.waitForURL(`${base}/admin/users/`);
    expect(await page.locator('#user-list tr[data-username="alice"] td').first().textContent()).toBe('alice');
    await page.screenshot({ path: screenshotPath('admin-users'), fullPage: true });

    await page.click('.navbar a:text-is("Tokens")');
    await page.fill('#id_token_username', 'alice');
    await page.click('#create-token-form button[type=submit]');
    await page.waitForSelector('#token-key');
    const first = (await page.locator('#token-key').textContent())!;
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    await page.screenshot({ path: screenshotPath('admin-token-created'), fullPage: true });

    await page.click('a:text-is("Back to tokens")');
    await page.click('#token-list tr[data-username="alice"] a:text-is("Regenerate…")');
    await page.click('#confirm button:text-is("Yes, regenerate")');
    await page.waitForSelector('#token-key');
    const second = (await page.locator('#token-key').textContent())!;
    expect(second).toMatch(/^[0-9a-f]{40}$/);
    expect(second).not.toBe(first);
    expect(await page.locator('.messages').textContent()).toContain('the old key no longer works');
    await page.screenshot({ path: screenshotPath('admin-token-regenerated'), fullPage: true });

    // the new key works over plain HTTP, the old one does not
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

    // a <script> in a query parameter of an admin page renders as text
    await page.goto(`${base}/admin/users/?q=${encodeURIComponent(XSS)}`);
    expect(await page.locator('input[name=q]').inputValue()).toBe(XSS);
    expect(await xssRan(page)).toBeUndefined();

    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('docs page: Swagger UI lists the operations from /openapi.json', async () => {
    const { page, context, problems } = await openPage();
    await page.goto(`${base}/docs/`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    const cleaned = paths.map((p) => p.replace(/\u200b/g, ''));
    expect(cleaned).toEqual(expect.arrayContaining(['/items/', '/items/{pk}/', '/events/', '/api-token-auth/']));
    const methods = await page.locator('.opblock-summary-method').allTextContents();
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    await page.screenshot({ path: screenshotPath('docs'), fullPage: true });
    // nothing was loaded from anywhere but this server
    expect(problems).toEqual([]);

    await page.goto(`${base}/docs/?q=${encodeURIComponent(XSS)}`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    expect(await xssRan(page)).toBeUndefined();
    await context.close();
  }, 60_000);
});
