/**
 * `npm start`: migrates the example database, seeds it once, and serves the
 * example on http://127.0.0.1:8000/ (HOST / PORT / DATABASE_URL / REDIS_URL / SECRET_KEY
 * override).
 */
import {
  KyselyUserStore,
  migrate,
  openDatabase,
  redactUrl,
  settingsFromEnvironment,
} from '../src/index.js';
import project, { createExampleApp, settings } from './project.js';
import { DEMO_ADMIN, DEMO_USER, seedCatalogue } from './catalogue/seed.js';

const host = process.env['HOST'] ?? '127.0.0.1';
const port = Number(process.env['PORT'] ?? 8000);
const url = process.env['DATABASE_URL'] ?? project.databaseUrl ?? 'sqlite:./data/trestle.sqlite3';

async function main(): Promise<void> {
  console.log(`Database: ${redactUrl(url)}`);
  const database = await openDatabase(url);
  const { applied } = await migrate(database, project.migrations, {
    onProgress: (e) => {
      if (e.phase === 'done') console.log(`  applied ${e.set}.${e.name}`);
    },
  });
  if (applied.length === 0) console.log('  migrations: up to date');
  const users = new KyselyUserStore(database.db);
  // REDIS_URL, SECRET_KEY and NODE_ENV from the environment, as `trestle serve` applies them.
  const app = await createExampleApp({ settings: settingsFromEnvironment(settings, process.env), database, users });
  const { services } = app.trestle;
  const seeded = await seedCatalogue({ database, db: services.get('db'), users }, (line) => console.log(line));
  if (!seeded) console.log('  catalogue: already seeded');

  const demo = await users.getByUsername(DEMO_USER.username);
  const tokens = services.get('tokens');
  const token = demo ? (await tokens.getOrCreate(demo)).token.key : null;

  const shutdown = async (signal: string) => {
    console.log(`\n${signal}: shutting down.`);
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host, port });
  // The port listened on (PORT=0 picks a free one).
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  console.log(`
Trestle example service on ${base}/

  Where to look      ${base}/                  (every link below, as JSON or in a browser)
  Books              ${base}/api/books/        page numbers   (curl ${base}/api/books/?page=2)
  Authors            ${base}/api/authors/      limit/offset   (?limit=10&offset=40&search=le)
  Feed               ${base}/api/feed/         cursor
  Versioned          ${base}/versioned/v2/books/  (v1 is deprecated)
  API docs           ${base}/docs/
  Admin console      ${base}/admin/

  Demo user          ${DEMO_USER.username} / ${DEMO_USER.password}${token ? `   token: ${token}` : ''}
  Staff user         ${DEMO_ADMIN.username} / ${DEMO_ADMIN.password}   (for /admin/)

  curl -H "Authorization: Token ${token ?? '<key>'}" ${base}/auth/token/
  curl -u ${DEMO_USER.username}:${DEMO_USER.password} -X POST -H 'Content-Type: application/json' \\
       -d '{"title": "New book", "author": "${base}/api/authors/1/", "year": 2024, "isbn": "9780000000001"}' ${base}/api/books/
`);
}

main().catch((err: unknown) => {
  console.error(`npm start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
