import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { Settings } from './settings.js';

/**
 * Cross-origin requests for browser clients on another origin, configured
 * with django-cors-headers' setting names and registered by `createApp`
 * when CORS_ALLOWED_ORIGINS or CORS_ALLOW_ALL_ORIGINS is set:
 *
 * ```
 * OPTIONS /api/books/ HTTP/1.1
 * Origin: https://app.example.com
 * Access-Control-Request-Method: POST
 * Access-Control-Request-Headers: authorization, content-type
 * ```
 *
 * is answered at once (200, empty, `Access-Control-Allow-*`), before
 * authentication, as the browser sends no credentials with it. Only an
 * OPTIONS that carries `Access-Control-Request-Method` is a preflight: any
 * other OPTIONS reaches the view and gets DRF's metadata (with the CORS
 * headers when its origin is allowed). An origin not listed gets no CORS
 * headers, so the browser withholds the response.
 */
export async function installCors(settings: Readonly<Settings>, fastify: FastifyInstance): Promise<void> {
  const base: FastifyCorsOptions = {
    origin: settings.CORS_ALLOW_ALL_ORIGINS ? true : settings.CORS_ALLOWED_ORIGINS,
    credentials: settings.CORS_ALLOW_CREDENTIALS,
    methods: settings.CORS_ALLOW_METHODS,
    allowedHeaders: settings.CORS_ALLOW_HEADERS,
    exposedHeaders: settings.CORS_EXPOSE_HEADERS,
    maxAge: settings.CORS_PREFLIGHT_MAX_AGE,
    strictPreflight: false,
    // django-cors-headers answers a preflight 200 with an empty body.
    optionsSuccessStatus: 200,
  };
  const preflight: FastifyCorsOptions = { ...base, preflight: true };
  const other: FastifyCorsOptions = { ...base, preflight: false };
  // A preflight is answered by the CORS plug-in's own hook, before any route: it needs the request id there.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  await fastify.register(fastifyCors, {
    hideOptionsRoute: true,
    delegator: (req: FastifyRequest, done: (err: Error | null, options: FastifyCorsOptions) => void) => {
      const isPreflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
      done(null, isPreflight ? preflight : other);
    },
  });
}
