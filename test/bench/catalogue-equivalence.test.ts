import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type Database } from '../../src/db/database.js';
import { buildExampleApp } from '../../bench/servers/example-app.js';
import { buildCatalogueBaseline } from '../../bench/servers/catalogue-baseline.js';
import { pgCatalogue, sqliteCatalogue, type CatalogueStore } from '../../bench/servers/catalogue-store.js';
import { ensureCatalogueSqlite, loadCatalogue } from '../../bench/lib/catalogue-dataset.js';
import { AUTH_HEADERS, CATALOGUE_WORKLOADS, W8_BOOK } from '../../bench/lib/workloads.js';
import { freshPgUrl } from '../helpers/databases.js';
import { pgAvailable, requirePgInCi } from '../helpers/pg.js';

requirePgInCi();

// W7 and W8 compare speed only if the hand-written catalogue does the example's
// work: the same status, the same bytes, the same links and headers that matter.
const HOST = '127.0.0.1:8123';

const stores: { name: string; url: () => Promise<{ url: string; cleanup: () => void }>; store: (url: string) => CatalogueStore }[] = [
  {
    name: 'sqlite',
    // A copy: the POSTs below must not grow the cached dataset.
    url: async () => {
      const cached = await ensureCatalogueSqlite(() => {});
      const dir = mkdtempSync(join(tmpdir(), 'trestle-catalogue-'));
      copyFileSync(cached, join(dir, 'catalogue.sqlite3'));
      return { url: `sqlite:${join(dir, 'catalogue.sqlite3')}`, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
    store: (url) => sqliteCatalogue(url.slice('sqlite:'.length)),
  },
  ...(pgAvailable()
    ? [
        {
          name: 'postgres',
          url: async () => {
            const { url } = await freshPgUrl();
            const database = await openDatabase(url);
            try {
              await loadCatalogue(database);
            } finally {
              await database.close();
            }
            return { url, cleanup: () => {} };
          },
          store: (url: string) => pgCatalogue(url),
        },
      ]
    : []),
];

interface Answer {
  status: number;
  body: string;
  type: string | undefined;
  www: unknown;
  allow: unknown;
  location: unknown;
}

async function ask(app: FastifyInstance, method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const res = await app.inject({ method, url, headers: { ...headers, host: HOST, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: body } : {}) });
  return {
    status: res.statusCode,
    body: res.body,
    // Fastify adds `; charset=utf-8` to what its serializer writes; the media type is what must agree.
    type: String(res.headers['content-type']).split(';')[0],
    www: res.headers['www-authenticate'],
    allow: res.headers['allow'],
    location: res.headers['location'],
  };
}

const reads: { name: string; url: string; auth: boolean; headers?: Record<string, string> }[] = [
  ...CATALOGUE_WORKLOADS.filter((w) => w.body === undefined && w.database === 'catalogue-sqlite').map((w) => ({ name: `${w.id} ${w.name}`, url: w.path, auth: true })),
  { name: 'page 1', url: '/api/books/', auth: true },
  { name: 'anonymous read', url: '/api/books/?page=3', auth: false },
  { name: 'last page of a search', url: '/api/books/?page=13&search=Atlas&ordering=-year&year__gte=1950', auth: true },
  { name: 'page past the end', url: '/api/books/?page=999', auth: true },
  { name: 'two search words, ordering by title', url: '/api/books/?search=Invisible%20Atlas&ordering=title', auth: true },
  { name: 'an ordering field that is not allowed', url: '/api/books/?ordering=isbn&page=2', auth: true },
  { name: 'search on the author name, page size', url: '/api/books/?search=Borges&page_size=7&page=2', auth: true },
  { name: 'a year that is not a number', url: '/api/books/?year__gte=abc', auth: true },
  { name: 'a book that does not exist', url: '/api/books/999999/', auth: true },
  { name: 'a bad token', url: '/api/books/?page=2', auth: false, headers: { authorization: 'Token nope' } },
];

describe.each(stores)('the catalogue baseline answers as the example does on $name', ({ url: makeUrl, store: makeStore }) => {
  let cleanup: () => void = () => {};
  let database: Database;
  let example: FastifyInstance;
  let store: CatalogueStore;
  let baseline: FastifyInstance;

  beforeAll(async () => {
    const made = await makeUrl();
    cleanup = made.cleanup;
    database = await openDatabase(made.url);
    example = await buildExampleApp(database);
    store = makeStore(made.url);
    baseline = buildCatalogueBaseline(store);
  }, 120_000);

  afterAll(async () => {
    await example?.close();
    await database?.close();
    await baseline?.close();
    await store?.close();
    cleanup();
  });

  it.each(reads)('$name: same status, bytes and headers', async ({ url, auth, headers }) => {
    const sent = { ...(auth ? AUTH_HEADERS : {}), ...(headers ?? {}) };
    const a = await ask(example, 'GET', url, sent);
    const b = await ask(baseline, 'GET', url, sent);
    expect(b).toEqual(a);
  });

  it('the searched page is a real page: 20 books, links both ways, newest years first', async () => {
    const a = await ask(example, 'GET', CATALOGUE_WORKLOADS[0]!.path, { ...AUTH_HEADERS });
    const page = JSON.parse(a.body) as { count: number; next: string; previous: string; results: { title: string; year: number }[] };
    expect(a.status).toBe(200);
    expect(page.count).toBeGreaterThan(40);
    expect(page.results).toHaveLength(20);
    expect(page.next).toBe(`http://${HOST}/api/books/?ordering=-year&page=3&search=Atlas&year__gte=1950`);
    expect(page.previous).toBe(`http://${HOST}/api/books/?ordering=-year&search=Atlas&year__gte=1950`);
    expect(page.results.every((book) => book.title.includes('Atlas') && book.year >= 1950)).toBe(true);
  });

  it('POST a book: 201 with the same body but its id and time, Location, and the book reads back alike', async () => {
    const a = await ask(example, 'POST', '/api/books/', { ...AUTH_HEADERS }, W8_BOOK);
    const b = await ask(baseline, 'POST', '/api/books/', { ...AUTH_HEADERS }, W8_BOOK);
    expect(a.status).toBe(201);
    const bodyA = JSON.parse(a.body) as Record<string, unknown>;
    const bodyB = JSON.parse(b.body) as Record<string, unknown>;
    // Each created its own row: the id, its URL and the creation time differ, everything else is the same.
    const strip = ({ id: _id, url: _url, created, ...rest }: Record<string, unknown>) => ({ ...rest, created: typeof created });
    expect(strip(bodyB)).toEqual(strip(bodyA));
    expect(bodyB['id']).toBe(Number(bodyA['id']) + 1);
    expect(b.location).toBe(bodyB['url']);
    expect(a.location).toBe(bodyA['url']);
    expect({ ...b, body: '', location: '' }).toEqual({ ...a, body: '', location: '' });
    const path = String(bodyB['url']).slice(`http://${HOST}`.length);
    expect(await ask(baseline, 'GET', path, { ...AUTH_HEADERS })).toEqual(await ask(example, 'GET', path, { ...AUTH_HEADERS }));
  });

  it.each([
    ['a missing title and a year out of range', { author: 'http://127.0.0.1/api/authors/7/', year: 3001, isbn: '1' }],
    ['an author that does not exist', { title: 'T', author: 'http://127.0.0.1/api/authors/99999/', year: 1, isbn: '1' }],
    ['a blank isbn and a title too long', { title: 'x'.repeat(201), author: 'http://127.0.0.1/api/authors/7/', year: 1, isbn: ' ' }],
  ])('POST with %s: the same 400', async (_name, book) => {
    const body = JSON.stringify(book);
    const a = await ask(example, 'POST', '/api/books/', { ...AUTH_HEADERS }, body);
    expect(a.status).toBe(400);
    expect(await ask(baseline, 'POST', '/api/books/', { ...AUTH_HEADERS }, body)).toEqual(a);
  });

  it('POST without credentials: the same 403 (the session, the first authentication class, names no scheme)', async () => {
    const a = await ask(example, 'POST', '/api/books/', {}, W8_BOOK);
    expect(a.status).toBe(403);
    expect(await ask(baseline, 'POST', '/api/books/', {}, W8_BOOK)).toEqual(a);
  });
});
