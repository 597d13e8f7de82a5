/**
 * Baseline (b) of W7 and W8: the example's book endpoints written by hand on
 * Fastify the way a good Fastify user would — route schemas, so Fastify
 * validates the body and serializes the answer with its compiled
 * serializer; prepared statements; the token looked up by its SHA-256
 * digest joined to its user; links built by hand. `BENCH_DATABASE` is a
 * SQLite file or a postgres:// URL; prints `READY <port>` once listening.
 */
import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { withQueryParam } from '../lib/links.js';
import type { BookQuery, BookRow, CatalogueStore } from './catalogue-store.js';

const ALLOWED_HOSTS = new Set(['127.0.0.1', 'localhost']);
const PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const ORDERING_FIELDS = new Set(['id', 'title', 'year', 'created']);
const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly wwwAuthenticate?: string,
  ) {
    super(String(status));
  }
}

const BOOK_SCHEMA = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    id: { type: 'integer' },
    title: { type: 'string' },
    author: { type: 'string' },
    year: { type: 'integer' },
    isbn: { type: 'string' },
    created: { type: 'string' },
  },
  required: ['url', 'id', 'title', 'author', 'year', 'isbn', 'created'],
} as const;

const PAGE_SCHEMA = {
  type: 'object',
  properties: {
    count: { type: 'integer' },
    next: { type: ['string', 'null'] },
    previous: { type: ['string', 'null'] },
    results: { type: 'array', items: BOOK_SCHEMA },
  },
  required: ['count', 'next', 'previous', 'results'],
} as const;

const DETAIL_SCHEMA = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] } as const;

/** The book a client sends: Fastify's validator checks types and lengths before the handler runs. */
const BOOK_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    author: { type: 'string' },
    year: { type: 'integer' },
    isbn: { type: 'string' },
  },
} as const;

/**
 * Python's `datetime.isoformat()` in UTC as DRF writes it: microseconds only
 * when there are some. SQLite keeps the text `toISOString` wrote;
 * node-postgres gives a `timestamptz` as a `Date`.
 */
function drfDateTime(value: string | Date): string {
  const stored = typeof value === 'string' ? value : value.toISOString();
  const dot = stored.indexOf('.', 19);
  if (dot !== 19) return stored.endsWith('Z') ? stored : `${stored.slice(0, 19)}Z`;
  const fraction = stored.slice(20, stored.length - 1);
  return /^0*$/.test(fraction) ? `${stored.slice(0, 19)}Z` : `${stored.slice(0, 19)}.${fraction.padEnd(6, '0')}Z`;
}

function representation(origin: string, row: BookRow) {
  return {
    url: `${origin}/api/books/${row.id}/`,
    id: row.id,
    title: row.title,
    author: `${origin}/api/authors/${row.author_id}/`,
    year: row.year,
    isbn: row.isbn,
    created: drfDateTime(row.created),
  };
}

function origin(request: FastifyRequest): string {
  const host = request.headers.host ?? '';
  const colon = host.lastIndexOf(':');
  if (!ALLOWED_HOSTS.has((colon === -1 ? host : host.slice(0, colon)).toLowerCase())) throw new HttpError(400, { detail: 'Bad Request' });
  return `http://${host}`;
}

/**
 * `Authorization: Token <key>` → the user's id; no header → anonymous
 * (`null`). A bad token is a 403 without `WWW-Authenticate`: the example's
 * first authentication class is the session's, which names no scheme (DRF).
 */
async function authenticate(store: CatalogueStore, request: FastifyRequest): Promise<number | null> {
  const header = request.headers.authorization;
  if (!header) return null;
  const parts = header.split(' ');
  if (parts[0]!.toLowerCase() !== 'token') return null;
  if (parts.length !== 2) throw new HttpError(403, { detail: 'Invalid token header. No credentials provided.' });
  const row = await store.tokenUser(createHash('sha256').update(parts[1]!).digest('hex'));
  if (!row || (row.expires !== null && Date.parse(row.expires) <= Date.now())) throw new HttpError(403, { detail: 'Invalid token.' });
  if (!row.is_active) throw new HttpError(403, { detail: 'User inactive or deleted.' });
  return row.user_id;
}

function wholeNumber(raw: string): number | null {
  if (!/^\s*[-+]?\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** `?ordering=-year,title` → whitelisted columns, `b.id` appended as the tie-breaker; `b.id` when none is valid. */
function orderBy(raw: string | undefined): string {
  const terms: string[] = [];
  let hasId = false;
  for (const part of (raw ?? '').split(',')) {
    const term = part.trim();
    const field = term.startsWith('-') ? term.slice(1) : term;
    if (!ORDERING_FIELDS.has(field)) continue;
    if (field === 'id') hasId = true;
    terms.push(`b.${field} ${term.startsWith('-') ? 'desc' : 'asc'}`);
  }
  if (terms.length === 0) return 'b.id asc';
  if (!hasId) terms.push('b.id asc');
  return terms.join(', ');
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

type Query = Record<string, string | undefined>;

async function listBooks(store: CatalogueStore, request: FastifyRequest, base: string): Promise<unknown> {
  const query = request.query as Query;
  const values: unknown[] = [];
  const bookQuery: BookQuery = { words: 0, yearGte: false, orderBy: orderBy(query['ordering']) };
  const yearGte = query['year__gte'];
  if (yearGte !== undefined && yearGte !== '') {
    const year = wholeNumber(yearGte);
    if (year === null) throw new HttpError(400, { year__gte: ['Enter a whole number.'] });
    bookQuery.yearGte = true;
    values.push(year);
  }
  const search = query['search'];
  if (search) {
    for (const word of search.replace(/\0/g, '').split(/[\s,]+/)) {
      if (word === '') continue;
      bookQuery.words++;
      const pattern = `%${escapeLike(word)}%`;
      values.push(pattern, pattern);
    }
  }
  let size = PAGE_SIZE;
  const sizeParam = query['page_size'];
  if (sizeParam !== undefined) {
    const n = wholeNumber(sizeParam);
    if (n !== null && n > 0) size = Math.min(n, MAX_PAGE_SIZE);
  }
  const pageParam = query['page'] || '1';
  const number = pageParam === 'last' ? -1 : wholeNumber(pageParam);
  if (number === null || number === 0 || number < -1) throw new HttpError(404, { detail: 'Invalid page.' });
  const count = await store.countBooks(bookQuery, values);
  const pages = Math.max(1, Math.ceil(count / size));
  const page = number === -1 ? pages : number;
  if (page > pages) throw new HttpError(404, { detail: 'Invalid page.' });
  const rows = count === 0 ? [] : await store.books(bookQuery, values, size, (page - 1) * size);
  const url = `${base}${request.url}`;
  const results = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) results[i] = representation(base, rows[i]!);
  return {
    count,
    next: page < pages ? withQueryParam(url, 'page', page + 1) : null,
    previous: page <= 1 ? null : withQueryParam(url, 'page', page === 2 ? null : page - 1),
    results,
  };
}

/** `POST /api/books/`: DRF's field errors for what the schema let through, then the insert; 201 with Location. */
async function createBook(store: CatalogueStore, request: FastifyRequest, base: string): Promise<{ status: number; body: unknown; location?: string }> {
  const data = (request.body ?? {}) as { title?: unknown; author?: unknown; year?: unknown; isbn?: unknown };
  const errors: Record<string, string[]> = {};
  const text = (name: 'title' | 'isbn', max: number): string | undefined => {
    const value = data[name];
    if (value === undefined || value === null) errors[name] = [value === null ? 'This field may not be null.' : 'This field is required.'];
    else if (typeof value !== 'string') errors[name] = ['Not a valid string.'];
    else if (value.trim() === '') errors[name] = ['This field may not be blank.'];
    else if (value.trim().length > max) errors[name] = [`Ensure this field has no more than ${max} characters.`];
    else return value.trim();
    return undefined;
  };
  const title = text('title', 200);
  let authorId: number | undefined;
  if (data.author === undefined || data.author === null) errors['author'] = [data.author === null ? 'This field may not be null.' : 'This field is required.'];
  else {
    const m = typeof data.author === 'string' ? /^(?:https?:\/\/[^/]+)?\/api\/authors\/(\d+)\/$/.exec(data.author) : null;
    if (m === null) errors['author'] = ['Invalid hyperlink - No URL match.'];
    else if (!(await store.authorExists(Number(m[1])))) errors['author'] = ['Invalid hyperlink - Object does not exist.'];
    else authorId = Number(m[1]);
  }
  let year: number | undefined;
  if (data.year === undefined || data.year === null) errors['year'] = [data.year === null ? 'This field may not be null.' : 'This field is required.'];
  else if (typeof data.year !== 'number' || !Number.isInteger(data.year)) errors['year'] = ['A valid integer is required.'];
  else if (data.year < 0) errors['year'] = ['Ensure this value is greater than or equal to 0.'];
  else if (data.year > 3000) errors['year'] = ['Ensure this value is less than or equal to 3000.'];
  else year = data.year;
  const isbn = text('isbn', 20);
  if (Object.keys(errors).length > 0) return { status: 400, body: errors };
  const row = await store.insertBook({ title: title!, author_id: authorId!, year: year!, isbn: isbn!, created: new Date().toISOString() });
  const body = representation(base, row);
  return { status: 201, body, location: body.url };
}

function sendError(reply: FastifyReply, err: unknown, allow: string): FastifyReply {
  if (!(err instanceof HttpError)) throw err;
  reply.code(err.status).header('allow', allow).header('vary', 'Accept, Cookie');
  if (err.wwwAuthenticate) reply.header('www-authenticate', err.wwwAuthenticate);
  return reply.type('application/json').send(JSON.stringify(err.body));
}

/** The catalogue baseline on `store`, not listening (the equivalence test injects into it). */
export function buildCatalogueBaseline(store: CatalogueStore): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/api/books/', { schema: { response: { 200: PAGE_SCHEMA } } }, async (request, reply) => {
    try {
      const base = origin(request);
      await authenticate(store, request);
      const page = await listBooks(store, request, base);
      return reply.header('allow', LIST_ALLOW).header('vary', 'Accept, Cookie').send(page);
    } catch (err) {
      return sendError(reply, err, LIST_ALLOW);
    }
  });
  app.get('/api/books/:id/', { schema: { response: { 200: BOOK_SCHEMA, 404: DETAIL_SCHEMA } } }, async (request, reply) => {
    try {
      const base = origin(request);
      await authenticate(store, request);
      const id = wholeNumber((request.params as { id: string }).id);
      const row = id === null || !/^\d+$/.test((request.params as { id: string }).id) ? undefined : await store.book(id);
      reply.header('allow', DETAIL_ALLOW).header('vary', 'Accept, Cookie');
      if (row === undefined) return reply.code(404).send({ detail: 'No Book matches the given query.' });
      return reply.send(representation(base, row));
    } catch (err) {
      return sendError(reply, err, DETAIL_ALLOW);
    }
  });
  app.post('/api/books/', { schema: { body: BOOK_INPUT_SCHEMA, response: { 201: BOOK_SCHEMA } } }, async (request, reply) => {
    try {
      const base = origin(request);
      const user = await authenticate(store, request);
      if (user === null) throw new HttpError(403, { detail: 'Authentication credentials were not provided.' });
      const created = await createBook(store, request, base);
      reply.code(created.status as 201).header('allow', LIST_ALLOW).header('vary', 'Accept, Cookie');
      if (created.location) reply.header('location', created.location);
      return created.status === 201 ? reply.send(created.body) : reply.type('application/json').send(JSON.stringify(created.body));
    } catch (err) {
      return sendError(reply, err, LIST_ALLOW);
    }
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('application/json').send(JSON.stringify({ detail: 'Not found.' })));
  return app;
}
