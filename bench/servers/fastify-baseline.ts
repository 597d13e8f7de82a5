/**
 * Baseline (b): a hand-written Fastify app, prepared statements, no
 * framework. `BENCH_DATABASE` is a SQLite file or a postgres:// URL;
 * prints `READY <port>` once listening.
 */
import Fastify from 'fastify';
import { ALLOW, ALLOW_POST, baselineRoutes, NOT_FOUND, type BaselineRequest } from './baseline-handlers.js';
import { openBaselineStore } from './baseline-store.js';
import { serverPort } from './server-env.js';

const store = openBaselineStore();
const routes = baselineRoutes(store);
const app = Fastify({ logger: false });

for (const [key, handler] of routes) {
  const space = key.indexOf(' ');
  const method = key.slice(0, space) as 'GET' | 'POST';
  const allow = method === 'GET' ? ALLOW : ALLOW_POST;
  app.route({
    method,
    url: key.slice(space + 1),
    handler: async (request, reply) => {
      const url = request.url;
      const q = url.indexOf('?');
      const req: BaselineRequest = {
        path: q === -1 ? url : url.slice(0, q),
        query: q === -1 ? '' : url.slice(q + 1),
        host: request.headers.host,
        authorization: request.headers.authorization,
        body: typeof request.body === 'string' ? request.body : request.body === undefined ? undefined : JSON.stringify(request.body),
      };
      const res = await handler(req);
      reply.code(res.status).header('allow', allow).header('content-type', 'application/json');
      if (res.wwwAuthenticate) reply.header('www-authenticate', res.wwwAuthenticate);
      return reply.send(res.body);
    },
  });
}
app.setNotFoundHandler((_request, reply) => reply.code(404).header('content-type', 'application/json').send(NOT_FOUND));

await app.listen({ host: '127.0.0.1', port: serverPort() });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => store.close()).then(() => process.exit(0)));
