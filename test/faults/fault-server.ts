/**
 * The example service in its own process, for the fault tests: the process
 * surviving is what they test, so it cannot share the test's process.
 *
 * Env: DATABASE_URL, REDIS_URL (optional), DATA_DIR, and the timeouts
 * HEADERS_TIMEOUT, REQUEST_TIMEOUT, IDLE_TIMEOUT (seconds). Run with `--expose-gc`
 * and an IPC channel (`fork`). Sends `{ ready: { port, token } }` once
 * listening; answers `{ cmd: 'memory' }` (after a full GC) and
 * `{ cmd: 'session' }` (a fresh session key of the fault user, or an error).
 *
 * Besides the example's routes it serves two routes the tests lean on:
 *   GET  /faults/slow/   holds a database connection for 0.3 s (pg_sleep)
 *   POST /faults/pair/   {"pair": "<id>"}: two rows in one transaction, 0.05 s apart
 *   GET  /faults/sleep/?s=N   one statement of N seconds (pg_sleep), for the statement timeout
 */
import { sql, type Kysely } from 'kysely';
import {
  KyselyUserStore,
  Response,
  apiView,
  createApp,
  migrate,
  openDatabase,
  path,
  type ApiRequest,
  type TokenStore,
} from '../../src/index.js';
import { sessionStore, newSessionKey, SESSION_USER_KEY } from '../../src/sessions/session.js';
import project, { settings, routes } from '../../example/project.js';

const send = (message: unknown) => process.send?.(message);

async function main(): Promise<void> {
  const url = process.env['DATABASE_URL']!;
  const database = await openDatabase(url, { pgPool: { max: 4, connectionTimeoutMillis: 2_000 } });
  await migrate(database, project.migrations);
  const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  await sql`create table if not exists fault_pair (pair text not null, n integer not null)`.execute(db);
  const authors = await sql<{ n: number }>`select count(*)::int as n from catalogue_author`.execute(db).catch(() => null);
  if (!authors || Number(authors.rows[0]?.n ?? 0) === 0) {
    await db.insertInto('catalogue_author').values({ name: 'Fault Author', country: 'NZ', created: new Date().toISOString() }).execute();
  }
  const users = new KyselyUserStore(database.db);
  const user = (await users.getByUsername('fault')) ?? (await users.createUser({ username: 'fault', password: 'fault-password-1' }));

  const slow = apiView(['GET'], async () => {
    await sql`select pg_sleep(0.3)`.execute(db);
    return { slept: true };
  });
  const pair = apiView(['POST'], async (req: ApiRequest) => {
    const id = String((req.data as Record<string, unknown>)['pair']);
    await db.transaction().execute(async (trx) => {
      await sql`insert into fault_pair (pair, n) values (${id}, 1)`.execute(trx);
      await sql`select pg_sleep(0.05)`.execute(trx);
      await sql`insert into fault_pair (pair, n) values (${id}, 2)`.execute(trx);
    });
    return new Response({ pair: id }, { status: 201 });
  });

  const sleep = apiView(['GET'], async (req: ApiRequest) => {
    await sql`select pg_sleep(${Number(req.query['s'] ?? 1)})`.execute(db);
    return { slept: true };
  });

  const rate = '100000/min';
  const app = await createApp({
    settings: {
      ...settings,
      REDIS_URL: process.env['REDIS_URL'] || null,
      DEFAULT_THROTTLE_RATES: { ...settings.DEFAULT_THROTTLE_RATES, anon: rate, user: rate, burst: rate, sustained: rate },
      HEADERS_TIMEOUT: Number(process.env['HEADERS_TIMEOUT'] ?? 1),
      REQUEST_TIMEOUT: Number(process.env['REQUEST_TIMEOUT'] ?? 2),
      IDLE_TIMEOUT: Number(process.env['IDLE_TIMEOUT'] ?? 4),
      KEEP_ALIVE_TIMEOUT: 2,
      SERVICE_UNAVAILABLE_RETRY_AFTER: 3,
    },
    routes: [...routes, path('faults/slow/', slow), path('faults/pair/', pair), path('faults/sleep/', sleep)],
    database,
    users,
    dataDir: process.env['DATA_DIR']!,
    logger: process.env['FAULT_SERVER_LOG'] ? { level: 'warn' } : false,
  });
  const tokens = app.trestle.services.get('tokens') as TokenStore;
  const { token } = await tokens.getOrCreate(user);

  process.on('message', (message: { cmd?: string }) => {
    if (message.cmd === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      send({ memory: process.memoryUsage() });
    } else if (message.cmd === 'session') {
      const key = newSessionKey();
      sessionStore(app.trestle)
        .save(key, { [SESSION_USER_KEY]: String(user.pk) }, new Date(Date.now() + 3_600_000))
        .then(
          () => send({ session: key }),
          (err: unknown) => send({ session: null, error: String(err) }),
        );
    }
  });
  // The parent going away ends this process too.
  process.on('disconnect', () => process.exit(0));

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  send({ ready: { port: typeof address === 'object' && address ? address.port : 0, token: token.key } });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
