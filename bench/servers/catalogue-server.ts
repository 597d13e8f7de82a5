/**
 * Baseline (b) of W7 and W8 as a process: the hand-written Fastify catalogue
 * on `BENCH_DATABASE` (a SQLite file or a postgres:// URL). Prints
 * `READY <port>` once listening.
 */
import { buildCatalogueBaseline } from './catalogue-baseline.js';
import { openCatalogueStore } from './catalogue-store.js';
import { serverPort } from './server-env.js';

const store = openCatalogueStore();
const app = buildCatalogueBaseline(store);
await app.listen({ host: '127.0.0.1', port: serverPort() });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => store.close()).then(() => process.exit(0)));
