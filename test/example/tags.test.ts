// The example's many-to-many resource: tags (a model with a unique name) and
// books' tags, written through the model serializer and read a page at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrestleApp } from '../../src/index.js';
import { DEMO_USER } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from './start-example.js';

const AUTH = { authorization: `Basic ${Buffer.from(`${DEMO_USER.username}:${DEMO_USER.password}`).toString('base64')}` };
const ORIGIN = 'http://localhost:80';

describe.each(testDatabases())('example tags on $name', ({ open }) => {
  let running: RunningExample | undefined;
  let app: TrestleApp;
  beforeAll(async () => {
    running = await startExample(open);
    app = running.app;
  }, 120_000);
  afterAll(() => running?.stop());

  const send = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, headers: { ...AUTH, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
    return { status: res.statusCode, type: res.headers['content-type'], location: res.headers['location'], body: res.body === '' ? null : res.json() };
  };

  it('tags are created with a unique name, and books take them', async () => {
    const poetry = await send('POST', '/api/tags/', { name: 'poetry' });
    expect(poetry).toEqual({
      status: 201,
      type: 'application/json',
      location: `${ORIGIN}/api/tags/1/`,
      body: { url: `${ORIGIN}/api/tags/1/`, id: 1, name: 'poetry' },
    });
    expect((await send('POST', '/api/tags/', { name: 'fantasy' })).status).toBe(201);
    expect(await send('POST', '/api/tags/', { name: 'poetry' })).toMatchObject({
      status: 400,
      type: 'application/json',
      body: { name: ['tag with this name already exists.'] },
    });
    expect(await send('POST', '/api/tags/', { name: 'x'.repeat(51) })).toMatchObject({
      status: 400,
      body: { name: ['Ensure this field has no more than 50 characters.'] },
    });

    const tagged = await send('PATCH', '/api/tagged-books/3/', { tags: [`${ORIGIN}/api/tags/2/`, `${ORIGIN}/api/tags/1/`] });
    expect(tagged).toMatchObject({ status: 200, type: 'application/json' });
    expect(tagged.body).toEqual({
      url: `${ORIGIN}/api/books/3/`,
      id: 3,
      title: (await send('GET', '/api/books/3/')).body.title,
      tags: [`${ORIGIN}/api/tags/1/`, `${ORIGIN}/api/tags/2/`],
    });
    // The book's own representation is unchanged by its tags.
    expect(Object.keys((await send('GET', '/api/books/3/')).body)).toEqual(['url', 'id', 'title', 'author', 'year', 'isbn', 'created']);
    expect((await send('PATCH', '/api/tagged-books/5/', { tags: [`${ORIGIN}/api/tags/1/`] })).status).toBe(200);
  });

  it('lists books with their tags; filters and search follow the relation', async () => {
    const page = await send('GET', '/api/tagged-books/?page_size=5');
    expect(page.status).toBe(200);
    expect(page.body.results.map((b: { id: number; tags: string[] }) => [b.id, b.tags.length])).toEqual([[1, 0], [2, 0], [3, 2], [4, 0], [5, 1]]);
    const ids = async (query: string) => ((await send('GET', `/api/tagged-books/?${query}`)).body.results as { id: number }[]).map((b) => b.id);
    expect(await ids('tags=1')).toEqual([3, 5]);
    expect(await ids('tags=2')).toEqual([3]);
    expect(await ids('tags__in=1,2')).toEqual([3, 5]);
    expect(await ids('tags__name=fantasy')).toEqual([3]);
    expect(await ids('tags__name__iexact=POETRY')).toEqual([3, 5]);
    expect(await ids('search=poetry')).toEqual([3, 5]);
    expect((await send('GET', '/api/tagged-books/?tags=abc')).body).toEqual({ tags: ['“abc” is not a valid value.'] });
  });

  it('a tag that does not exist is refused and nothing changes; deleting a tag removes it from books', async () => {
    expect(await send('PATCH', '/api/tagged-books/3/', { tags: [`${ORIGIN}/api/tags/1/`, `${ORIGIN}/api/tags/99/`] })).toMatchObject({
      status: 400,
      body: { tags: ['Invalid hyperlink - Object does not exist.'] },
    });
    expect((await send('GET', '/api/tagged-books/3/')).body.tags).toEqual([`${ORIGIN}/api/tags/1/`, `${ORIGIN}/api/tags/2/`]);
    expect((await send('DELETE', '/api/tags/1/')).status).toBe(204);
    expect((await send('GET', '/api/tagged-books/3/')).body.tags).toEqual([`${ORIGIN}/api/tags/2/`]);
    expect((await send('GET', '/api/tagged-books/5/')).body.tags).toEqual([]);
    // Only the listed actions are routed: books are not created or deleted here.
    expect((await send('DELETE', '/api/tagged-books/3/')).status).toBe(405);
    expect((await app.inject({ url: '/api/tags/', method: 'POST', payload: { name: 'anon' } })).statusCode).toBe(403);
  });
});
