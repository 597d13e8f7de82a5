import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from './settings.js';

/**
 * Cross-origin requests for browser clients on another origin, answered as
 * django-cors-headers' `CorsMiddleware` answers them, with its setting names;
 * registered by `createApp` when CORS_ALLOWED_ORIGINS or
 * CORS_ALLOW_ALL_ORIGINS is set:
 *
 * ```
 * OPTIONS /api/books/ HTTP/1.1
 * Origin: https://app.example.com
 * Access-Control-Request-Method: POST
 * Access-Control-Request-Headers: authorization, content-type
 * ```
 *
 * An OPTIONS that carries `Access-Control-Request-Method` is a preflight:
 * answered at once (200, empty), before the host check and authentication,
 * as the browser sends no credentials with it. Any other OPTIONS reaches
 * the view and gets DRF's metadata.
 *
 * Every response gets `Vary: origin` (added to the view's own `Vary`), as
 * the answer depends on the origin. Only a response to an allowed origin
 * gets `Access-Control-*` headers: `Allow-Origin` (the origin, or `*` with
 * CORS_ALLOW_ALL_ORIGINS and no credentials), `Allow-Credentials`,
 * `Expose-Headers`, and for OPTIONS `Allow-Headers`, `Allow-Methods` and
 * `Max-Age`. An origin not allowed gets none, so the browser withholds the
 * response.
 */
export function installCors(settings: Readonly<Settings>, fastify: FastifyInstance): void {
  const allowAll = settings.CORS_ALLOW_ALL_ORIGINS;
  const credentials = settings.CORS_ALLOW_CREDENTIALS;
  const allowed = settings.CORS_ALLOWED_ORIGINS.map(splitOrigin).filter((o): o is SplitOrigin => o !== null);
  const allowHeaders = settings.CORS_ALLOW_HEADERS.join(', ');
  const allowMethods = settings.CORS_ALLOW_METHODS.join(', ');
  const exposeHeaders = settings.CORS_EXPOSE_HEADERS.length > 0 ? settings.CORS_EXPOSE_HEADERS.join(', ') : null;
  const maxAge = settings.CORS_PREFLIGHT_MAX_AGE ? String(settings.CORS_PREFLIGHT_MAX_AGE) : null;

  const isAllowed = (origin: string, url: SplitOrigin): boolean =>
    allowAll || allowed.some((o) => o.scheme === url.scheme && o.netloc === url.netloc);

  const addHeaders = (request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('vary', withVaryOrigin(reply.getHeader('vary')));
    const origin = request.headers.origin;
    if (!origin) return;
    const url = splitOrigin(origin);
    if (url === null || !isAllowed(origin, url)) return;
    reply.header('access-control-allow-origin', allowAll && !credentials ? '*' : origin);
    if (credentials) reply.header('access-control-allow-credentials', 'true');
    if (exposeHeaders !== null) reply.header('access-control-expose-headers', exposeHeaders);
    if (request.method === 'OPTIONS') {
      reply.header('access-control-allow-headers', allowHeaders);
      reply.header('access-control-allow-methods', allowMethods);
      if (maxAge !== null) reply.header('access-control-max-age', maxAge);
    }
  };

  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) {
      done();
      return;
    }
    // A preflight: Django's empty HttpResponse, before any route runs.
    reply.header('x-request-id', request.id);
    reply.code(200).header('content-type', 'text/html; charset=utf-8').send('');
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    addHeaders(request, reply);
    done(null, payload);
  });
}

interface SplitOrigin {
  scheme: string;
  netloc: string;
}

/**
 * The scheme and network location of a URL as Python's `urlsplit` gives
 * them (scheme lower-cased, netloc as written), which is what
 * django-cors-headers compares; `null` where `urlsplit` raises (unbalanced
 * IPv6 brackets).
 */
function splitOrigin(value: string): SplitOrigin | null {
  // urlsplit drops leading C0 controls and spaces, and every tab and newline.
  let url = value.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  let scheme = '';
  const colon = url.indexOf(':');
  if (colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(url.slice(0, colon))) {
    scheme = url.slice(0, colon).toLowerCase();
    url = url.slice(colon + 1);
  }
  let netloc = '';
  if (url.startsWith('//')) {
    const rest = url.slice(2);
    const end = rest.search(/[/?#]/);
    netloc = end === -1 ? rest : rest.slice(0, end);
    if (netloc.includes('[') !== netloc.includes(']')) return null;
  }
  return { scheme, netloc };
}

/** `vary` with `origin` added unless it names it already (Django's `patch_vary_headers`). */
function withVaryOrigin(vary: string | number | string[] | undefined): string {
  if (vary === undefined || vary === '') return 'origin';
  const current = Array.isArray(vary) ? vary.join(', ') : String(vary);
  const names = current.split(/\s*,\s*/);
  if (names.includes('*')) return '*';
  return names.some((n) => n.toLowerCase() === 'origin') ? current : `${current}, origin`;
}
