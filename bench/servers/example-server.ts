/**
 * Server (a) of W7 and W8: the example project as `trestle serve` builds it
 * (see example-app.ts), on the catalogue dataset, with LOG_LEVEL=warn set by
 * the harness (the baselines log nothing either). Prints `READY <port>` once
 * listening.
 */
import { openDatabase } from '../../src/db/database.js';
import { buildExampleApp } from './example-app.js';
import { databaseUrl, serverPort } from './server-env.js';

const database = await openDatabase(databaseUrl());
const app = await buildExampleApp(database);
await app.listen({ host: '127.0.0.1', port: serverPort() });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => database.close()).then(() => process.exit(0)));
