import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { renderPage, setHtmlSecurityHeaders } from './layout.js';
import { errorPageBody } from './error-page.js';

interface AcceptEntry {
  readonly type: string;
  readonly q: number;
}

function parseAccept(header: string): AcceptEntry[] {
  return header.split(',').map((part) => {
    const [type = '', ...params] = part.split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return { type: type.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0 };
  });
}

/**
 * Whether a client that reached no route is a browser asking for a page:
 * its `Accept` names `text/html` (as every browser's navigation does), and
 * not below `application/json`. API clients (`*\/*`, JSON, no header) keep
 * the JSON 404.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept || accept.length > 1000) return false;
  const entries = parseAccept(accept);
  const htmlAt = entries.findIndex((e) => (e.type === 'text/html' || e.type === 'application/xhtml+xml') && e.q > 0);
  if (htmlAt < 0) return false;
  const jsonAt = entries.findIndex((e) => e.type === 'application/json' && e.q > 0);
  if (jsonAt < 0) return true;
  const h = entries[htmlAt]!.q;
  const j = entries[jsonAt]!.q;
  return h > j || (h === j && htmlAt < jsonAt);
}

/** The HTML 404 a browser gets for an unknown URL: the shared layout, the pages' CSP. */
export function sendNotFoundPage(reply: FastifyReply, app: AppContext): FastifyReply {
  setHtmlSecurityHeaders(reply);
  const body = renderPage(app.settings, {
    title: 'Not found – Trestle',
    body: errorPageBody(404, { detail: 'Not found.' }, { href: '/', text: 'Go to the start page' }),
  });
  return reply.code(404).header('vary', 'Accept').type('text/html; charset=utf-8').send(body);
}
