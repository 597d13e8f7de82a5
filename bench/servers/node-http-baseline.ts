/**
 * Baseline (c): the same work on raw node:http, for the cost of Fastify
 * itself. Prints `READY <port>` once listening.
 */
import { createServer } from 'node:http';
import { ALLOW, ALLOW_POST, baselineRoutes, NOT_FOUND, type BaselineResponse } from './baseline-handlers.js';
import { openBaselineStore } from './baseline-store.js';
import { serverPort } from './server-env.js';

const store = openBaselineStore();
const routes = baselineRoutes(store);

function send(res: import('node:http').ServerResponse, out: BaselineResponse, allow: string | null): void {
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out.body) };
  if (allow) headers['allow'] = allow;
  if (out.wwwAuthenticate) headers['www-authenticate'] = out.wwwAuthenticate;
  res.writeHead(out.status, headers);
  res.end(out.body);
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const method = req.method ?? 'GET';
  const handler = routes.get(`${method} ${path}`);
  if (!handler) return send(res, { status: 404, body: NOT_FOUND }, null);
  const run = (body: Buffer | undefined) =>
    handler({ path, query: q === -1 ? '' : url.slice(q + 1), host: req.headers.host, authorization: req.headers.authorization, body })
      .then((out) => send(res, out, method === 'GET' ? ALLOW : ALLOW_POST))
      .catch(() => send(res, { status: 500, body: JSON.stringify({ detail: 'A server error occurred.' }) }, null));
  if (method === 'GET') return void run(undefined);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => void run(Buffer.concat(chunks)));
});

server.listen(serverPort(), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
});
process.once('SIGTERM', () => server.close(() => void store.close().then(() => process.exit(0))));
