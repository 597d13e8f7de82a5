import net from 'node:net';
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
const RUNS = Number(process.env['TRESTLE_FUZZ_RUNS'] ?? 300);

/** A header name as HTTP allows it (RFC 9110 token), known ones more often. */
const headerName = fc.oneof(
  fc.constantFrom(
    'Host', 'Authorization', 'Accept', 'Content-Type', 'Cookie', 'X-CSRFToken', 'X-Forwarded-For', 'X-Forwarded-Host',
    'X-Forwarded-Proto', 'Remote-User', 'X-Username', 'X-API-Version', 'Origin', 'Referer', 'If-None-Match', 'Range', 'Expect',
  ),
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,30}$/),
);
/** Header values: printable ASCII, Latin-1 bytes, and the shapes schemes parse. */
const anyHeaderValue = fc.oneof(
  headerValue,
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, '')).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
  fc.constantFrom('Token ', 'Basic Og==', 'Basic ' + 'A'.repeat(300), 'application/json; indent=999999', 'text/html; q=0', 'sessionid=;csrftoken=', '127.0.0.1, ::1, x', '*/*;version=\u00ff'),
);
/** Nested JSON: arrays, objects or both, up to depths far past any limit. */
const nestedJson = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":', 'mixed')).map(([depth, kind]) => {
  if (kind === '[') return '['.repeat(depth) + ']'.repeat(depth);
  if (kind === '{"a":') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    if (i % 2) {
      open += '[';
      close = ']' + close;
    } else {
      open += '{"k":';
      close = '}' + close;
    }
  }
  return `${open}0${close}`;
});

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
      { numRuns: RUNS },
    );
  }, 120_000);

  it('deeply nested JSON bodies, with any indent asked for, get a status below 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom('POST', 'PUT', 'PATCH'),
        nestedJson,
        fc.constantFrom('application/json', 'application/json; indent=8', 'text/html'),
        async (path, method, payload, accept) => {
          const res = await app.inject({ method, url: path, headers: { 'content-type': 'application/json', accept }, payload });
          if (res.statusCode >= 500) throw new Error(`${method} ${path} nested ${payload.length} B -> ${res.statusCode}: ${res.body.slice(0, 200)}`);
          // A body is never amplified past the indentation cap.
          expect(res.body.length).toBeLessThanOrEqual(Math.max(1_048_576, payload.length * 2 + 4096));
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  }, 120_000);

  it('random and duplicated headers over a real socket get a status below 500 (400 for two Host or Authorization)', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom('GET', 'POST', 'DELETE', 'OPTIONS', 'PROPFIND', 'PURGE'),
        fc.array(fc.tuple(headerName, anyHeaderValue), { maxLength: 12 }),
        fc.array(fc.tuple(fc.constantFrom('Host', 'Authorization', 'Cookie', 'Accept', 'Content-Type', 'X-CSRFToken'), anyHeaderValue), { maxLength: 3 }),
        async (path, method, headers, duplicates) => {
          const lines = [[`Host`, `127.0.0.1:${port}`], ...headers, ...duplicates].filter(
            ([name]) => !/^(content-length|transfer-encoding|connection|upgrade|expect)$/i.test(name),
          );
          const body = method === 'POST' ? '{"a":1}' : '';
          const text =
            `${method} ${path} HTTP/1.1\r\n` +
            lines.map(([n, v]) => `${n}: ${v}\r\n`).join('') +
            `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
          const { status, body: answer } = await send(port, text);
          if (status >= 500 || Number.isNaN(status)) throw new Error(`${JSON.stringify(text)} -> ${status}: ${answer.slice(0, 200)}`);
          const count = (name: string) => lines.filter(([n]) => n.toLowerCase() === name).length;
          if (count('host') > 1) expect([status, answer]).toEqual([400, '{"detail":"Duplicate Host header."}']);
          else if (count('authorization') > 1) expect([status, answer]).toEqual([400, '{"detail":"Duplicate Authorization header."}']);
        },
      ),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  }, 180_000);
});

/** Writes one raw request, reads until the server closes; the status and body. */
function send(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.from(text, 'latin1')));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const out = Buffer.concat(chunks).toString('latin1');
      const at = out.indexOf('\r\n\r\n');
      resolve({ status: Number(out.split(' ')[1]), body: at === -1 ? '' : out.slice(at + 4) });
    });
  });
}
