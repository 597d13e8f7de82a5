import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyUserStore, type Database, type TrestleApp } from '../../src/index.js';
import { DEMO_USER } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { promisesOfFramework } from '../helpers/promises.js';
import { startExample, type RunningExample } from './start-example.js';

describe.each(testDatabases())("the example's book endpoints on $name", ({ name, open }) => {
  let database: Database;
  let app: TrestleApp;
  let running: RunningExample | undefined;
  let key = '';

  beforeAll(async () => {
    running = await startExample(open);
    ({ database, app } = running);
    const user = await new KyselyUserStore(database.db).getByUsername(DEMO_USER.username);
    key = (await app.trestle.services.get('tokens').getOrCreate(user!)).token.key;
    await app.ready(); // the start-up checks, which query, run before the first request
  }, 120_000);

  afterAll(() => running?.stop());

  // On SQLite every read is answered at once (better-sqlite3), so a token-authenticated detail, a
  // create, an update and a page with its count run from the route to the reply without a promise; on
  // PostgreSQL each query waits.
  it(name === 'sqlite' ? 'a token detail, a create, an update, a searched page and cursor pages answer without a promise in the pipeline' : 'a token detail, a create, an update, a searched page and cursor pages wait on their queries', async () => {
    const authorization = `Token ${key}`;
    const detail = await promisesOfFramework(() => app.inject({ url: '/api/books/7/', headers: { authorization } }));
    expect(detail.result.statusCode).toBe(200);
    expect(detail.result.headers['content-type']).toBe('application/json');
    expect(detail.result.headers['allow']).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect(detail.result.json()).toMatchObject({ url: 'http://localhost:80/api/books/7/', id: 7, author: 'http://localhost:80/api/authors/7/' });

    const payload = { title: 'Written at once', author: 'http://localhost:80/api/authors/3/', year: 2001, isbn: '9780000000002' };
    const created = await promisesOfFramework(() => app.inject({ method: 'POST', url: '/api/books/', payload, headers: { authorization } }));
    expect(created.result.statusCode).toBe(201);
    const book = created.result.json();
    expect(created.result.headers['location']).toBe(book.url);
    expect(book).toMatchObject({ title: 'Written at once', author: 'http://localhost:80/api/authors/3/', year: 2001, isbn: '9780000000002' });

    const path = new URL(book.url).pathname;
    const patched = await promisesOfFramework(() => app.inject({ method: 'PATCH', url: path, payload: { title: 'Written again' }, headers: { authorization } }));
    expect(patched.result.statusCode).toBe(200);
    expect(patched.result.json()).toEqual({ ...book, title: 'Written again' });

    const missing = await promisesOfFramework(() =>
      app.inject({ method: 'POST', url: '/api/books/', payload: { ...payload, author: 'http://localhost:80/api/authors/999999/' }, headers: { authorization } }),
    );
    expect(missing.result.statusCode).toBe(400);
    expect(missing.result.json()).toEqual({ author: ['Invalid hyperlink - Object does not exist.'] });

    const refused = await promisesOfFramework(() => app.inject({ url: '/api/books/7/', headers: { authorization: 'Token not-a-key' } }));
    expect(refused.result.statusCode).toBe(403);
    expect(refused.result.json()).toEqual({ detail: 'Invalid token.' });

    const page = await promisesOfFramework(() => app.inject({ url: '/api/books/?page=2&ordering=-year&year__gte=1950&search=the', headers: { authorization } }));
    expect(page.result.statusCode).toBe(200);
    const body = page.result.json();
    expect(body.previous).toBe('http://localhost:80/api/books/?ordering=-year&search=the&year__gte=1950');
    expect(body.results.length).toBeGreaterThan(0);
    for (const b of body.results) expect(b.year).toBeGreaterThanOrEqual(1950);

    // The feed's cursor pages: the first, then the one its `next` names (read forwards from the cursor's place).
    const feed = await promisesOfFramework(() => app.inject({ url: '/api/feed/', headers: { authorization } }));
    expect(feed.result.statusCode).toBe(200);
    const first = feed.result.json();
    expect(first.previous).toBeNull();
    expect(first.next).toMatch(/^http:\/\/localhost:80\/api\/feed\/\?cursor=/);
    const onward = await promisesOfFramework(() => app.inject({ url: new URL(first.next).pathname + new URL(first.next).search, headers: { authorization } }));
    expect(onward.result.statusCode).toBe(200);
    const second = onward.result.json();
    expect(second.previous).toMatch(/^http:\/\/localhost:80\/api\/feed\/\?cursor=/);
    expect(second.results.length).toBe(first.results.length);
    const seen = new Set(first.results.map((b: { id: number }) => b.id));
    for (const b of second.results) expect(seen.has(b.id)).toBe(false);

    const all = [...detail.created, ...created.created, ...patched.created, ...missing.created, ...refused.created, ...page.created, ...feed.created, ...onward.created];
    if (name === 'sqlite') expect(all).toEqual([]);
    else expect(all.length).toBeGreaterThan(4);
    expect((await app.inject({ method: 'DELETE', url: path, headers: { authorization } })).statusCode).toBe(204);
  });
});
