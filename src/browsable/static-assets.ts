import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { staticUrl } from './static-url.js';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { STYLESHEET } from './assets/style.js';
import { BROWSABLE_SCRIPT } from './assets/browsable-script.js';
import { DOCS_SCRIPT } from './assets/docs-script.js';
import { ADMIN_AUTOCOMPLETE_SCRIPT } from './assets/admin-autocomplete-script.js';

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly etag: string;
}

function asset(type: string, body: Buffer): Asset {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Trestle's own files, compiled into the package (no copy step for the build). */
const OWN: Readonly<Record<string, () => Asset>> = {
  'trestle.css': () => asset('text/css; charset=utf-8', Buffer.from(STYLESHEET)),
  'browsable.js': () => asset('text/javascript; charset=utf-8', Buffer.from(BROWSABLE_SCRIPT)),
  'docs.js': () => asset('text/javascript; charset=utf-8', Buffer.from(DOCS_SCRIPT)),
  'admin-autocomplete.js': () => asset('text/javascript; charset=utf-8', Buffer.from(ADMIN_AUTOCOMPLETE_SCRIPT)),
};

/** The files of `swagger-ui-dist` the docs page uses, read from node_modules on first request. */
const SWAGGER_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

let swaggerDir: string | null = null;
function swaggerFile(name: string): Asset {
  swaggerDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return asset(SWAGGER_FILES[name]!, readFileSync(join(swaggerDir, name)));
}

const cache = new Map<string, Asset>();
function lookup(name: string): Asset | null {
  const hit = cache.get(name);
  if (hit) return hit;
  let found: Asset | null = null;
  if (Object.hasOwn(OWN, name)) found = OWN[name]!();
  else if (name.startsWith('swagger-ui/') && Object.hasOwn(SWAGGER_FILES, name.slice('swagger-ui/'.length))) {
    found = swaggerFile(name.slice('swagger-ui/'.length));
  }
  if (found) cache.set(name, found);
  return found;
}


/**
 * Serves the browsable API's, the admin's and the docs page's files under
 * `STATIC_URL` + `trestle/` from memory (our own) or from `swagger-ui-dist`
 * (an allow-list, never a path from the request), with an ETag. Nothing is
 * fetched from a CDN. When STATIC_URL is an absolute URL the app serves
 * nothing and the files are expected there. Called by `createApp` unless
 * its `staticAssets` option is false.
 */
export function installStaticAssets(app: AppContext, fastify: FastifyInstance): void {
  const base = app.settings.STATIC_URL;
  if (!base.startsWith('/')) return;
  const prefix = staticUrl(app.settings, '');
  fastify.route({
    method: ['GET', 'HEAD'],
    url: `${prefix}*`,
    handler: (request, reply) => {
      const name = (request.params as { '*': string })['*'];
      const found = lookup(name);
      reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
      if (!found) {
        return reply.code(404).type('application/json').send(Buffer.from('{"detail":"Not found."}'));
      }
      reply.header('cache-control', 'public, max-age=3600').header('etag', found.etag);
      if (request.headers['if-none-match'] === found.etag) return reply.code(304).send();
      return reply.type(found.type).send(found.body);
    },
  });
}
