import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapiTS from 'openapi-typescript';
import type { OpenAPIDocument, OpenAPIOperation } from '../../src/schema/types.js';
import { DEMO_USER } from '../../example/catalogue/seed.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from '../example/start-example.js';

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = join(here, 'client');
const basic = `Basic ${Buffer.from(`${DEMO_USER.username}:${DEMO_USER.password}`).toString('base64')}`;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

const [sqlite] = testDatabases();

describe('the example service\'s OpenAPI document', () => {
  let running: RunningExample;
  let doc: OpenAPIDocument;
  let ajv: Ajv2020;

  beforeAll(async () => {
    running = await startExample(sqlite!.open);
    const res = await running.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json() as OpenAPIDocument;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
  }, 120_000);

  afterAll(() => running?.stop());

  /** Checks `body` against the schema the document declares for this operation, status and media type. */
  function expectDeclared(op: OpenAPIOperation, status: number, contentType: string | undefined, body: string, where: string): void {
    const response = op.responses[String(status)];
    expect(response, `${where}: ${status} is not declared (${body.slice(0, 200)})`).toBeDefined();
    if (!response!.content) {
      expect(body, `${where}: ${status} declares no body`).toBe('');
      return;
    }
    const type = (contentType ?? '').split(';')[0]!.trim();
    const media = response!.content[type];
    expect(media, `${where}: ${status} does not declare ${type}`).toBeDefined();
    const schema = JSON.parse(JSON.stringify(media!.schema).replaceAll('"#/components/', '"doc#/components/'));
    const validate = ajv.compile(schema);
    const ok = validate(JSON.parse(body));
    expect(ok ? [] : validate.errors, `${where}: ${status} body does not match its schema: ${body.slice(0, 300)}`).toEqual([]);
  }

  it('validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names operations, tags and components as drf-spectacular does', () => {
    const books = doc.paths['/api/books/']!;
    const book = doc.paths['/api/books/{pk}/']!;
    expect([books.get!.operationId, books.post!.operationId]).toEqual(['books_list', 'books_create']);
    expect([book.get!, book.put!, book.patch!, book.delete!].map((op) => op.operationId)).toEqual([
      'books_retrieve',
      'books_update',
      'books_partial_update',
      'books_destroy',
    ]);
    expect(books.get!.tags).toEqual(['books']);
    expect(doc.paths['/api/authors/']!.get!.operationId).toBe('authors_list');
    expect(doc.paths['/versioned/{version}/books/']!.get!.operationId).toBe('versioned_books_list');
    const schemas = doc.components.schemas!;
    expect(schemas['Book']).toMatchObject({ type: 'object', required: ['url', 'id', 'title', 'author', 'year', 'isbn', 'created'] });
    expect(schemas['Book']!['properties']).toMatchObject({ url: { type: 'string', format: 'uri' }, created: { type: 'string', format: 'date-time' } });
    expect(schemas['BookRequest']).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 200, minLength: 1 },
        author: { type: 'string', format: 'uri' },
        year: { type: 'integer', minimum: 0, maximum: 3000 },
        isbn: { type: 'string', maxLength: 20, minLength: 1 },
      },
      required: ['title', 'author', 'year', 'isbn'],
    });
    expect(schemas['PatchedBookRequest']!['required']).toBeUndefined();
    expect(books.post!.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/BookRequest' });
    expect(book.patch!.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/PatchedBookRequest' });
    expect(book.get!.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Book' });
    expect(books.post!.responses['400']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/BookValidationError' });
  });

  it('lists anonymous access where permissions allow it, and the errors each operation can answer', () => {
    const books = doc.paths['/api/books/']!;
    expect(books.get!.security).toEqual([{ cookieAuth: [] }, { basicAuth: [] }, { tokenAuth: [] }, {}]);
    expect(books.post!.security).toEqual([{ cookieAuth: [] }, { basicAuth: [] }, { tokenAuth: [] }]);
    // Session is the first scheme: DRF answers 403, never 401, on this API.
    // 400: an invalid filter value or search (the filter backends).
    expect(Object.keys(books.get!.responses).sort()).toEqual(['200', '400', '403', '404']);
    expect(Object.keys(books.post!.responses).sort()).toEqual(['201', '400', '403']);
    expect(Object.keys(doc.paths['/api/authors/']!.get!.responses)).not.toContain('404');
    expect(Object.keys(doc.paths['/api/authors/{pk}/']!.get!.responses).sort()).toEqual(['200', '403', '404']);
    expect(Object.keys(doc.paths['/auth/basic/']!.get!.responses).sort()).toEqual(['200', '401', '403']);
    // The extra detail action: 201 or 200 with the book, 404 for a missing one, 403 for anonymous clients.
    const favourite = doc.paths['/api/books/{pk}/favourite/']!;
    expect(Object.keys(favourite).filter((k) => k !== 'parameters')).toEqual(['post']);
    expect([favourite.post!.operationId, favourite.post!.summary]).toEqual(['books_favourite_create', 'Favourite']);
    expect(Object.keys(favourite.post!.responses).sort()).toEqual(['200', '201', '400', '403', '404']);
    expect(favourite.post!.responses['201']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Book' });
    expect(doc.paths['/auth/throttled/']!.get!.responses['429']).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer' } } } });
  });

  it('every example route answers what its operation declares', async () => {
    const app = running.app;
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const versions = (op.parameters ?? []).find((p) => p.in === 'path' && p.name === 'version')?.schema['enum'] as string[] | undefined;
        for (const version of versions ?? [undefined]) {
          for (const pk of method === 'delete' ? ['999999'] : ['1', '999999']) {
            const url = path.replace('{version}', version ?? '').replace(/\{[^}]+\}/g, pk);
            for (const authorization of [undefined, basic]) {
              const payload = method === 'get' || method === 'delete' ? undefined : {};
              const res = await app.inject({
                method: method.toUpperCase() as 'GET',
                url,
                headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
                ...(payload ? { payload } : {}),
              });
              expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
              expectDeclared(op, res.statusCode, res.headers['content-type'] as string | undefined, res.body, `${method.toUpperCase()} ${url}`);
              checked++;
            }
          }
        }
      }
    }
    // Successful writes and the error pages of the books API.
    const books = doc.paths['/api/books/']!;
    const book = doc.paths['/api/books/{pk}/']!;
    const created = await app.inject({ method: 'POST', url: '/api/books/', headers: { authorization: basic }, payload: { title: 'Schema', author: '/api/authors/2/', year: 2020, isbn: '1' } });
    expectDeclared(books.post!, created.statusCode, created.headers['content-type'] as string, created.body, 'POST /api/books/');
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    const put = await app.inject({ method: 'PUT', url: `/api/books/${id}/`, headers: { authorization: basic }, payload: created.json() });
    expect(put.statusCode).toBe(200);
    expectDeclared(book.put!, put.statusCode, put.headers['content-type'] as string, put.body, 'PUT');
    const patch = await app.inject({ method: 'PATCH', url: `/api/books/${id}/`, headers: { authorization: basic }, payload: { year: 'x' } });
    expect(patch.statusCode).toBe(400);
    expectDeclared(book.patch!, patch.statusCode, patch.headers['content-type'] as string, patch.body, 'PATCH');
    const deleted = await app.inject({ method: 'DELETE', url: `/api/books/${id}/`, headers: { authorization: basic } });
    expect(deleted.statusCode).toBe(204);
    expectDeclared(book.delete!, deleted.statusCode, undefined, deleted.body, 'DELETE');
    for (const url of ['/api/books/?page=999', '/api/feed/?cursor=nonsense']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(404);
      expectDeclared(doc.paths[url.split('?')[0]!]!.get!, 404, res.headers['content-type'] as string, res.body, url);
    }
    expect(checked).toBeGreaterThan(50);
  }, 120_000);

  it('a client generated by openapi-typescript type-checks without casts and round-trips a book', async () => {
    const types = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]);
    mkdirSync(join(clientDir, 'generated'), { recursive: true });
    writeFileSync(join(clientDir, 'generated', 'example-api.d.ts'), types);
    for (const file of ['typed-fetch.ts', 'round-trip.ts']) {
      expect(readFileSync(join(clientDir, file), 'utf8')).not.toMatch(/as unknown|as any|: any\b|@ts-/);
    }
    expect(readFileSync(join(clientDir, 'round-trip.ts'), 'utf8')).not.toMatch(/\bas\b [A-Z{]/);
    const tsc = join(here, '..', '..', 'node_modules', '.bin', 'tsc');
    const result = await promisify(execFile)(tsc, ['-p', join(clientDir, 'tsconfig.json')]).then(
      () => ({ code: 0, output: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, output: err.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);

    const address = await running.app.listen({ port: 0, host: '127.0.0.1' });
    // Loaded by URL so the suite's own type-check does not need the generated file.
    const { roundTrip } = (await import(pathToFileURL(join(clientDir, 'round-trip.ts')).href)) as {
      roundTrip(base: string, username: string, password: string): Promise<{
        statuses: Record<string, number>;
        listed: string[];
        years: number[];
        searched: string[];
        created: { id: number; title: string; author: string };
        saved: { title: string; author: string; year: number };
        gone: number;
      }>;
    };
    const out = await roundTrip(address, DEMO_USER.username, DEMO_USER.password);
    expect(out.statuses).toEqual({ login: 200, list: 200, search: 200, create: 201, retrieve: 200, update: 200, partial_update: 200, destroy: 204 });
    expect(out.listed.length).toBe(5);
    expect(out.years).toEqual([...out.years].sort((a, b) => b - a));
    expect(out.searched.length).toBeGreaterThan(0);
    expect(out.searched.every((t) => t.toLowerCase().includes(out.listed[0]!.toLowerCase()))).toBe(true);
    expect(out.searched).toEqual([...out.searched].sort());
    expect(out.created.title).toBe('Typed client');
    expect(out.saved).toEqual({ title: 'Typed client, revised', author: out.created.author, year: 2026 });
    expect(out.gone).toBe(404);
  }, 120_000);
});
