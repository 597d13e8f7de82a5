import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from './start-example.js';

const PATHS = [
  '/', '/api/', '/api/books/', '/api/books/1/', '/api/books/999999/', '/api/authors/', '/api/authors/3/', '/api/feed/', '/api/shelf/',
  '/versioned/v1/books/', '/versioned/v2/books/1/', '/versioned/x/books/', '/auth/basic/', '/auth/token/', '/auth/session/',
  '/auth/custom/', '/auth/remote-user/', '/auth/throttled/', '/auth/upload/', '/auth/csrf/', '/api-auth/login/', '/api-auth/logout/',
  '/api-token-auth/', '/api-token-auth/custom/', '/openapi.json', '/docs/', '/admin/', '/admin/login/', '/nope/',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '%', '%zz', '\u0000', '\u00ff', '€', '<script>', '../../etc/passwd', '-1', '0', '1e9', 'null', '[]', '{}'),
);
const headerValue = fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, ''));

describe.each(testDatabases())('the example never answers 500 on $name', ({ open }) => {
  let app: TrestleApp;
  let running: RunningExample | undefined;

  beforeAll(async () => {
    running = await startExample(open);
    app = running.app;
  }, 120_000);

  afterAll(() => running?.stop());

  it('random methods, queries, headers and bodies on every route get a status below 500 and JSON errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom(...METHODS),
        fc.dictionary(fc.constantFrom('page', 'page_size', 'limit', 'offset', 'cursor', 'search', 'format', 'version', 'author', 'next', 'ordering', 'year__gte', 'year__range', 'author__in', 'isbn', 'created__gte'), junk, { maxKeys: 3 }),
        fc.record(
          {
            authorization: fc.oneof(headerValue, headerValue.map((v) => `Token ${v}`), headerValue.map((v) => `Basic ${v}`)),
            accept: fc.oneof(headerValue, fc.constantFrom('text/html', 'application/json; version=2.0', '*/*', 'text/csv')),
            'content-type': fc.oneof(headerValue, fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain')),
            cookie: headerValue.map((v) => `sessionid=${v}; csrftoken=${v}`),
            'x-csrftoken': headerValue,
            'x-username': headerValue,
            'x-api-version': headerValue,
            'remote-user': headerValue,
          },
          { requiredKeys: [] },
        ),
        fc.oneof(fc.constant(undefined), fc.string({ maxLength: 80 }), fc.json({ maxDepth: 2 })),
        async (path, method, query, headers, body) => {
          const qs = new URLSearchParams(query).toString();
          const res = await app.inject({
            method,
            url: qs ? `${path}?${qs}` : path,
            headers: headers as Record<string, string>,
            ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload: body } : {}),
          });
          if (res.statusCode >= 500) throw new Error(`${method} ${path}?${qs} -> ${res.statusCode}: ${res.body.slice(0, 200)}`);
          if (res.statusCode >= 400 && method !== 'HEAD' && String(res.headers['content-type'] ?? '').startsWith('application/json')) {
            expect(() => JSON.parse(res.body)).not.toThrow();
          }
        },
      ),
      { numRuns: Number(process.env["TRESTLE_FUZZ_RUNS"] ?? 300) },
    );
  }, 120_000);
});
