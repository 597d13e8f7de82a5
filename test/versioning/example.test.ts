import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { include, type TrestleApp } from '../../src/index.js';
import { versioningRoutes } from '../../example/versioning.js';
import { get, makeApp } from './helpers.js';

describe('example/versioning.ts: the books API', () => {
  let app: TrestleApp;
  beforeAll(async () => {
    app = await makeApp([include('api/', versioningRoutes, { namespace: 'books' })]);
  });
  afterAll(() => app.close());

  it('v2 renders books with hyperlinks that keep v2, and no deprecation headers', async () => {
    const res = await get(app, '/api/v2/books/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['deprecation']).toBeUndefined();
    expect(res.body).toEqual([
      { url: 'http://localhost/api/v2/books/1/', id: 1, title: 'Pride and Prejudice', authors: ['Jane Austen'], year: 1813 },
      { url: 'http://localhost/api/v2/books/2/', id: 2, title: 'Good Omens', authors: ['Terry Pratchett', 'Neil Gaiman'], year: 1990 },
      { url: 'http://localhost/api/v2/books/3/', id: 3, title: 'The Left Hand of Darkness', authors: ['Ursula K. Le Guin'], year: 1969 },
    ]);
  });

  it('v1 renders the same book in the old shape and announces its deprecation', async () => {
    const res = await get(app, '/api/v1/books/2/');
    expect(res.status).toBe(200);
    expect(res.headers['deprecation']).toBe('@1735689600');
    expect(res.headers['sunset']).toBe('Thu, 31 Dec 2026 23:59:59 GMT');
    expect(res.headers['link']).toBe('<https://docs.example.com/books/migrating-to-v2>; rel="deprecation"');
    expect(res.body).toEqual({ id: 2, title: 'Good Omens', author: 'Terry Pratchett, Neil Gaiman' });
  });

  it('an unknown version is a 404, a missing book a 404 in the same version', async () => {
    const bad = await get(app, '/api/v3/books/');
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ detail: 'Invalid version in URL path.' });
    const missing = await get(app, '/api/v2/books/99/');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'No Book matches the given query.' });
  });
});
