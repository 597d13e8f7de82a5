/**
 * Signed cursors in Trestle's wire format (`<base64url JSON>.<base64url
 * HMAC-SHA256>`), written out by hand for the baselines and for the harness,
 * which needs a cursor 500,000 rows deep without paging there.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BENCH_SECRET } from './constants.js';

/** The signing key CursorPagination derives from SECRET_KEY. */
export const CURSOR_KEY = createHmac('sha256', BENCH_SECRET).update('trestle.pagination.CursorPagination').digest();

/** What a cursor is bound to: the position format (2), the view's path and its ordering (`-created` NULLs first, then the unique `-id`). */
export function cursorBinding(path: string): string {
  return `2|${path}|-created:nf,-id`;
}

function mac(binding: string, body: string): Buffer {
  return createHmac('sha256', CURSOR_KEY).update(binding).update('\u0000').update(body).digest();
}

/** Payload `{p: [created, id]}` (plus `r: 1` going backwards), signed. */
export function signPosition(binding: string, created: string, id: number, reverse: boolean): string {
  const payload = reverse ? { r: 1, p: [created, id] } : { p: [created, id] };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(binding, body).toString('base64url')}`;
}

/** The decoded `{position, reverse}` of a valid cursor, else `null`. */
export function verifyPosition(binding: string, token: string): { created: string; id: number; reverse: boolean } | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(binding, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p?: unknown; r?: unknown; o?: unknown };
    const p = payload.p;
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || !Number.isSafeInteger(p[1])) return null;
    if (payload.o !== undefined && payload.o !== 0) return null;
    return { created: p[0], id: p[1] as number, reverse: payload.r === 1 };
  } catch {
    return null;
  }
}
