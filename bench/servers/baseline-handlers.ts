/**
 * The hand-written baselines' request handling, shared by the Fastify and
 * the node:http servers so both do exactly the same work: token lookup by
 * SHA-256 digest joined to the user (one prepared query), count + page
 * query, the same JSON with the same absolute links as Trestle.
 */
import { createHash } from 'node:crypto';
import { verifyPassword } from '../../src/users/passwords.js';
import { KeyCipher } from '../../src/authtoken/keys.js';
import { BENCH_SECRET, COUNT_CAP, LARGE_TABLE, PAGE_SIZE, SMALL_TABLE } from '../lib/constants.js';
import { cursorBinding, signPosition, verifyPosition } from '../lib/cursor-token.js';
import { withQueryParam } from '../lib/links.js';
import type { BaselineStore, ItemRow, ItemTable } from './baseline-store.js';

/** What a handler needs from the HTTP layer. */
export interface BaselineRequest {
  readonly path: string;
  /** The query string without `?` ('' when none). */
  readonly query: string;
  readonly host: string | undefined;
  readonly authorization: string | undefined;
  readonly body?: Buffer | string | undefined;
}

export interface BaselineResponse {
  status: number;
  body: string;
  wwwAuthenticate?: string;
}

const ALLOWED_HOSTS = new Set(['127.0.0.1', 'localhost']);
const cipher = new KeyCipher(BENCH_SECRET);

const json = (status: number, value: unknown, wwwAuthenticate?: string): BaselineResponse =>
  wwwAuthenticate ? { status, body: JSON.stringify(value), wwwAuthenticate } : { status, body: JSON.stringify(value) };
const detail = (status: number, message: string, wwwAuthenticate?: string) => json(status, { detail: message }, wwwAuthenticate);

class HttpError extends Error {
  constructor(readonly response: BaselineResponse) {
    super(response.body);
  }
}

function queryParam(query: string, name: string): string | undefined {
  let found: string | undefined;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if ((eq === -1 ? part : part.slice(0, eq)) === name) found = eq === -1 ? '' : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
  }
  return found;
}

function absoluteUrl(req: BaselineRequest): string {
  return `http://${req.host}${req.path}${req.query ? `?${req.query}` : ''}`;
}

function checkHost(req: BaselineRequest): void {
  const host = req.host ?? '';
  const colon = host.lastIndexOf(':');
  const name = colon === -1 ? host : host.slice(0, colon);
  if (!ALLOWED_HOSTS.has(name.toLowerCase())) throw new HttpError(detail(400, 'Bad Request'));
}

/** `Authorization: Token <key>` → the token's user, one query; 401 otherwise. */
async function authenticate(store: BaselineStore, req: BaselineRequest): Promise<number> {
  const header = req.authorization;
  const parts = header ? header.split(' ') : [];
  if (parts.length === 0 || parts[0]!.toLowerCase() !== 'token') {
    throw new HttpError(detail(401, 'Authentication credentials were not provided.', 'Token'));
  }
  if (parts.length !== 2) throw new HttpError(detail(401, 'Invalid token header.', 'Token'));
  const digest = createHash('sha256').update(parts[1]!).digest('hex');
  const row = await store.tokenUser(digest);
  if (!row || (row.expires !== null && Date.parse(row.expires) <= Date.now())) {
    throw new HttpError(detail(401, 'Invalid token.', 'Token'));
  }
  if (!row.is_active) throw new HttpError(detail(401, 'User inactive or deleted.', 'Token'));
  return row.user_id;
}

function positiveInt(raw: string | undefined): number | null {
  if (raw === undefined || !/^\s*\+?\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** Page numbers with an exact count, or `{capped: N}` when `cap` is given. */
async function pageNumber(store: BaselineStore, req: BaselineRequest, table: ItemTable, cap: number | null): Promise<BaselineResponse> {
  const raw = queryParam(req.query, 'page') || '1';
  const number = positiveInt(raw);
  if (number === null || number < 1) throw new HttpError(detail(404, 'Invalid page.'));
  const url = absoluteUrl(req);
  let count: number;
  let capped: boolean | undefined;
  let rows: ItemRow[];
  let hasNext: boolean;
  const upTo = cap === null ? null : await store.countUpTo(table, cap + 1);
  if (upTo === null || upTo <= cap!) {
    count = upTo ?? (await store.count(table));
    if (cap !== null) capped = false;
    const numPages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    if (number > numPages) throw new HttpError(detail(404, 'Invalid page.'));
    rows = await store.page(table, PAGE_SIZE, (number - 1) * PAGE_SIZE);
    hasNext = number < numPages;
  } else {
    count = cap!;
    capped = true;
    rows = await store.page(table, PAGE_SIZE + 1, (number - 1) * PAGE_SIZE);
    if (number > 1 && rows.length === 0) throw new HttpError(detail(404, 'Invalid page.'));
    hasNext = rows.length > PAGE_SIZE;
    if (hasNext) rows = rows.slice(0, PAGE_SIZE);
  }
  const next = hasNext ? withQueryParam(url, 'page', number + 1) : null;
  const previous = number <= 1 ? null : withQueryParam(url, 'page', number === 2 ? null : number - 1);
  return capped === undefined
    ? json(200, { count, next, previous, results: rows })
    : json(200, { count, count_capped: capped, next, previous, results: rows });
}

async function limitOffset(store: BaselineStore, req: BaselineRequest): Promise<BaselineResponse> {
  const limit = positiveInt(queryParam(req.query, 'limit')) || PAGE_SIZE;
  const offset = positiveInt(queryParam(req.query, 'offset')) ?? 0;
  const count = await store.count(LARGE_TABLE);
  const rows = count === 0 || offset > count ? [] : await store.page(LARGE_TABLE, limit, offset);
  const url = withQueryParam(absoluteUrl(req), 'limit', limit);
  const next = offset + limit < count ? withQueryParam(url, 'offset', offset + limit) : null;
  const previous = offset <= 0 ? null : withQueryParam(url, 'offset', offset - limit <= 0 ? null : offset - limit);
  return json(200, { count, next, previous, results: rows });
}

/** Keyset pages over (created, id), newest first, signed cursors. */
async function cursorPage(store: BaselineStore, req: BaselineRequest): Promise<BaselineResponse> {
  const binding = cursorBinding(req.path);
  const token = queryParam(req.query, 'cursor');
  let position: [string, number] | null = null;
  let reverse = false;
  if (token) {
    const decoded = verifyPosition(binding, token);
    if (!decoded) throw new HttpError(detail(404, 'Invalid cursor'));
    position = [decoded.created, decoded.id];
    reverse = decoded.reverse;
  }
  const rows = await store.seek(position, reverse, PAGE_SIZE + 1);
  const more = rows.length > PAGE_SIZE;
  const page = more ? rows.slice(0, PAGE_SIZE) : rows;
  if (reverse) page.reverse();
  const hasCurrent = position !== null;
  const hasNext = reverse ? hasCurrent : more;
  const hasPrevious = reverse ? more : hasCurrent;
  const url = absoluteUrl(req);
  const link = (row: ItemRow | undefined, back: boolean) =>
    withQueryParam(url, 'cursor', row ? signPosition(binding, row.created, row.id, back) : signPosition(binding, position![0], position![1], back));
  return json(200, {
    next: hasNext ? link(page[page.length - 1], false) : null,
    previous: hasPrevious ? link(page[0], true) : null,
    results: page,
  });
}

async function obtainToken(store: BaselineStore, req: BaselineRequest): Promise<BaselineResponse> {
  let data: { username?: unknown; password?: unknown };
  try {
    data = JSON.parse(typeof req.body === 'string' ? req.body : (req.body?.toString('utf8') ?? '{}')) as typeof data;
  } catch {
    return detail(400, 'JSON parse error');
  }
  const invalid = json(400, { non_field_errors: ['Unable to log in with provided credentials.'] });
  if (typeof data.username !== 'string' || typeof data.password !== 'string') return invalid;
  const user = await store.login(data.username);
  if (!user || !(await verifyPassword(data.password, user.password)) || !user.is_active) return invalid;
  const row = await store.userToken(user.id);
  const key = row ? cipher.decrypt(row.encrypted_key, row.digest) : null;
  if (key === null) return detail(500, 'A server error occurred.');
  return json(200, { token: key });
}

const PING = JSON.stringify({ ping: 'pong' });

export type BaselineHandler = (req: BaselineRequest) => Promise<BaselineResponse>;

/** The routes, built once: `"GET /w1/items/"` → handler. */
export function baselineRoutes(store: BaselineStore): Map<string, BaselineHandler> {
  const guarded = (fn: BaselineHandler, auth: boolean): BaselineHandler => async (req) => {
    try {
      checkHost(req);
      if (auth) await authenticate(store, req);
      return await fn(req);
    } catch (err) {
      if (err instanceof HttpError) return err.response;
      throw err;
    }
  };
  return new Map<string, BaselineHandler>([
    ['GET /w1/items/', guarded((req) => pageNumber(store, req, SMALL_TABLE, null), true)],
    ['GET /w1/large/', guarded((req) => pageNumber(store, req, LARGE_TABLE, null), true)],
    ['GET /w1/large-capped/', guarded((req) => pageNumber(store, req, LARGE_TABLE, COUNT_CAP), true)],
    ['GET /w2/items/', guarded((req) => cursorPage(store, req), true)],
    ['GET /w3/items/', guarded((req) => limitOffset(store, req), true)],
    ['GET /w5/ping/', guarded(async () => ({ status: 200, body: PING }), false)],
    ['POST /api-token-auth/', guarded((req) => obtainToken(store, req), false)],
  ]);
}

/** Headers every baseline response carries, as Trestle's views send them. */
export const ALLOW = 'GET, HEAD, OPTIONS';
export const ALLOW_POST = 'POST, OPTIONS';
export const NOT_FOUND = JSON.stringify({ detail: 'Not found.' });
