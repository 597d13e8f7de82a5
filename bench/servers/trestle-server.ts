/**
 * Server (a): the Trestle bench app on its own, one process. Prints
 * `READY <port>` once listening. (`trestle serve --workers N` runs the same
 * app through bench/trestle.config.ts.)
 */
import { openDatabase } from '../../src/db/database.js';
import { buildTrestleApp } from './trestle-app.js';
import { databaseUrl, serverPort } from './server-env.js';

const database = await openDatabase(databaseUrl());
const app = await buildTrestleApp(database);
await app.listen({ host: '127.0.0.1', port: serverPort() });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => database.close()).then(() => process.exit(0)));
