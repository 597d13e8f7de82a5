import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { generateOpenAPI } from '../../src/schema/generator.js';
import type { OpenAPIDocument, OpenAPIOperation } from '../../src/schema/types.js';
import { schemaApp } from './fixtures.js';

async function fetchDocument(): Promise<{ status: number; headers: Record<string, unknown>; doc: OpenAPIDocument }> {
  const app = await schemaApp();
  const res = await app.inject({ method: 'GET', url: '/openapi.json', headers: { accept: 'application/json' } });
  await app.close();
  return { status: res.statusCode, headers: res.headers, doc: res.json() as OpenAPIDocument };
}

function paramNames(op: OpenAPIOperation | undefined): string[] {
  return (op?.parameters ?? []).map((p) => `${p.in}:${p.name}`);
}

describe('GET /openapi.json', () => {
  it('serves a document that validates as OpenAPI 3.1', async () => {
    const { status, headers, doc } = await fetchDocument();
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Test API', version: '3.2.1' });
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists page and page_size with descriptions on the page-number list only', async () => {
    const { doc } = await fetchDocument();
    const list = doc.paths['/items/']!.get!;
    expect(list.operationId).toBe('items_list');
    expect(list.parameters).toEqual([
      { name: 'page', required: false, in: 'query', description: 'A page number within the paginated result set.', schema: { type: 'integer' } },
      { name: 'page_size', required: false, in: 'query', description: 'Number of results to return per page.', schema: { type: 'integer' } },
    ]);
    const page = list.responses['200']!.content!['application/json']!.schema;
    expect(page).toMatchObject({
      type: 'object',
      properties: {
        count: { type: 'integer' },
        next: { type: ['string', 'null'], format: 'uri' },
        results: { type: 'array', items: { type: 'object', required: ['id', 'title'] } },
      },
    });
    // create and detail operations are not paginated
    expect(paramNames(doc.paths['/items/']!.post)).toEqual([]);
    expect(doc.paths['/items/']!.post!.responses['201']).toBeDefined();
    expect(paramNames(doc.paths['/items/{pk}/']!.get)).toEqual(['path:pk']);
  });

  it('lists limit/offset and cursor parameters with descriptions on their lists', async () => {
    const { doc } = await fetchDocument();
    expect(doc.paths['/logs/']!.get!.parameters).toEqual([
      { name: 'limit', required: false, in: 'query', description: 'Number of results to return per page.', schema: { type: 'integer' } },
      { name: 'offset', required: false, in: 'query', description: 'The initial index from which to return the results.', schema: { type: 'integer' } },
    ]);
    const cursor = doc.paths['/events/']!.get!.parameters!;
    expect(cursor[0]).toEqual({ name: 'cursor', required: false, in: 'query', description: 'The pagination cursor value.', schema: { type: 'string' } });
    const cursorPage = doc.paths['/events/']!.get!.responses['200']!.content!['application/json']!.schema as { properties: object };
    expect(Object.keys(cursorPage.properties).sort()).toEqual(['next', 'previous', 'results']);
  });

  it('types path parameters from Django converters', async () => {
    const { doc } = await fetchDocument();
    expect(doc.paths['/items/{pk}/']!.get!.parameters![0]).toEqual({ name: 'pk', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } });
    const [key, name] = doc.paths['/uuids/{key}/{name}/']!.get!.parameters!;
    expect(key!.schema).toEqual({ type: 'string', format: 'uuid' });
    expect(name!.schema).toEqual({ type: 'string', pattern: '^[-a-zA-Z0-9_]+$' });
  });

  it('documents the version for URL-path, query-parameter and Accept-header versioning', async () => {
    const { doc } = await fetchDocument();
    expect(doc.paths['/{version}/things/']!.get!.parameters).toEqual([
      { name: 'version', in: 'path', required: true, description: 'The API version.', schema: { type: 'string', enum: ['v1', 'v2'] } },
    ]);
    expect(doc.paths['/query-versioned/']!.get!.parameters).toEqual([
      {
        name: 'version',
        in: 'query',
        required: false,
        description: 'The API version. Without it, "1.0".',
        schema: { type: 'string', enum: ['1.0', '2.0'], default: '1.0' },
      },
    ]);
    expect(Object.keys(doc.paths['/accept-versioned/']!.get!.responses['200']!.content!)).toEqual([
      'application/json',
      'application/json; version=1.0',
      'application/json; version=2.0',
    ]);
  });

  it('declares Basic, Token and session security schemes and uses them per operation', async () => {
    const { doc } = await fetchDocument();
    expect(doc.components.securitySchemes).toEqual({
      basicAuth: { type: 'http', scheme: 'basic', description: expect.any(String) },
      tokenAuth: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: 'Token-based authentication with required prefix "Token": `Authorization: Token <key>`.',
      },
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'sessionid', description: expect.stringContaining('X-CSRFToken') },
    });
    // AllowAny: credentials optional
    expect(doc.paths['/items/']!.get!.security).toEqual([{ basicAuth: [] }, { tokenAuth: [] }, { cookieAuth: [] }, {}]);
    // IsAuthenticated: a token is required, and 401/403 are documented
    const detail = doc.paths['/items/{pk}/']!.get!;
    expect(detail.security).toEqual([{ tokenAuth: [] }]);
    expect(Object.keys(detail.responses).sort()).toEqual(['200', '401', '403', '404']);
  });

  it('describes the token endpoint: credentials in, token out, no security', async () => {
    const { doc } = await fetchDocument();
    const op = doc.paths['/api-token-auth/']!.post!;
    expect(op.security).toBeUndefined();
    expect(op.requestBody!.content['application/json']!.schema).toEqual({
      type: 'object',
      properties: { username: { type: 'string' }, password: { type: 'string', format: 'password' } },
      required: ['username', 'password'],
    });
    expect(op.responses['200']!.content!['application/json']!.schema).toEqual({
      type: 'object',
      properties: { token: { type: 'string' } },
      required: ['token'],
    });
  });

  it('leaves the schema view itself out, and has unique operation ids', async () => {
    const { doc } = await fetchDocument();
    expect(doc.paths['/openapi.json']).toBeUndefined();
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => (op as OpenAPIOperation).operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('generateOpenAPI gives the same document without an HTTP request', async () => {
    const app = await schemaApp();
    const direct = generateOpenAPI(app, { title: 'Test API', version: '3.2.1' });
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(direct).toEqual(res.json());
    await app.close();
  });
});
