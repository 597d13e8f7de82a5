import type { IncomingMessage } from 'node:http';

const ABSOLUTE_FORM = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)([^#]*)/;

/**
 * Fastify's `rewriteUrl`: the request target in origin form. A target in
 * absolute form (`GET http://example.com/items/ HTTP/1.1`, RFC 9112 §3.2.2,
 * what proxies are sent) becomes its path and query, and its authority
 * replaces the `Host` header, which the RFC says to ignore then. So the host
 * check judges the host the client named, and links are never built from
 * `http://host` + `http://other/…`.
 */
export function originFormTarget(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (url.charCodeAt(0) === 0x2f /* / */) return url;
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return url;
  // user:password@ is not part of the host.
  const authority = m[1]!.slice(m[1]!.lastIndexOf('@') + 1);
  req.headers.host = authority;
  const rest = m[2]!;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The name of a header sent twice that must be sent once — `Host` (which
 * host is meant?) or `Authorization` (whose credentials?) — else `null`.
 * Node keeps the first of each and drops the rest silently.
 */
export function duplicatedSingletonHeader(rawHeaders: readonly string[]): 'Host' | 'Authorization' | null {
  let host = 0;
  let authorization = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && isHeaderName(name, 'Host', 'host')) host++;
    else if (name.length === 13 && isHeaderName(name, 'Authorization', 'authorization')) authorization++;
  }
  return host > 1 ? 'Host' : authorization > 1 ? 'Authorization' : null;
}

/** `name.toLowerCase() === lower`, the two usual spellings compared first (a lower-cased copy is a new string per request). */
function isHeaderName(name: string, usual: string, lower: string): boolean {
  return name === usual || name === lower || name.toLowerCase() === lower;
}
