import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Command, CommandContext } from '../command.js';
import type { SettingsInput } from '../../settings.js';
import { UsageError } from '../command.js';
import { listMigrations } from '../../db/migrate.js';
import { KyselyUserStore } from '../../users/kysely-user-store.js';
import { isClusterWorker, runPrimary } from './serve-cluster.js';

/** Seconds a stopping server waits for requests in flight before closing their connections. */
const DEFAULT_DRAIN_SECONDS = 10;

/**
 * `trestle serve`: builds the project's app and listens until SIGINT/SIGTERM,
 * then drains (at most `--drain-timeout` seconds) and closes the server and
 * the database. The app comes from the project's `createApp` when it has
 * one, else from Trestle's `createApp` with the project's settings, routes,
 * database and user store. `HOST`, `PORT`, `REDIS_URL` and `SECRET_KEY` in
 * the environment are read here (`DATABASE_URL` by every command).
 */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the HTTP server.',
  usage: 'serve [--host 127.0.0.1] [--port 8000] [--workers 1] [--drain-timeout 10]',
  help: [
    '--host H            address to listen on (default $HOST, else 127.0.0.1)',
    '--port N            port to listen on (default $PORT, else 8000; 0 = any free port)',
    '--workers N         processes sharing the port (node:cluster; default 1). Crashed workers are',
    '                    restarted; SIGTERM/SIGINT stop them all. With N > 1 use PostgreSQL and Redis',
    '                    for anything shared (throttles, sessions).',
    `--drain-timeout S   seconds to finish requests in flight after SIGTERM (default ${DEFAULT_DRAIN_SECONDS})`,
    'Environment: HOST, PORT, DATABASE_URL, REDIS_URL, SECRET_KEY (see docs/deployment.md).',
  ],
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    workers: { type: 'string', default: '1' },
    'drain-timeout': { type: 'string', default: String(DEFAULT_DRAIN_SECONDS) },
  },
  async run(ctx, args) {
    const host = stringOption(args.values['host']) ?? (ctx.env['HOST'] || '127.0.0.1');
    const port = parsePort(stringOption(args.values['port']) ?? (ctx.env['PORT'] || '8000'));
    const workers = parseWorkers(String(args.values['workers']));
    const drainMs = parseDrain(String(args.values['drain-timeout'])) * 1000;
    if (workers > 1 && !isClusterWorker()) return runPrimary(ctx, workers, drainMs);
    const app = await buildApp(ctx);
    const stopped = waitForSignal();
    try {
      await app.listen({ host, port });
      const address = app.server.address();
      const shown = typeof address === 'object' && address ? `http://${formatHost(address.address)}:${address.port}/` : String(address);
      // Under --workers the primary announces the address once for all workers.
      if (!isClusterWorker()) ctx.print(`Trestle listening on ${shown} (Ctrl-C to stop)`);
      ctx.warn(`Signal ${await stopped.signal}: shutting down.`);
    } finally {
      stopped.dispose();
      await closeWithin(app, drainMs, ctx);
      // A worker's channel to the primary would keep it alive once the server is closed.
      if (isClusterWorker()) process.disconnect?.();
    }
    return 0;
  },
};

/** Closes the app; requests still running after `drainMs` lose their connections. */
async function closeWithin(app: FastifyInstance, drainMs: number, ctx: CommandContext): Promise<void> {
  const timer = setTimeout(() => {
    ctx.warn(`Requests still running after ${drainMs / 1000} s: closing their connections.`);
    app.server.closeAllConnections();
  }, drainMs);
  timer.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The project's settings with the operator's environment on top: `REDIS_URL`
 * and `SECRET_KEY`, when set, win over the config file, as `DATABASE_URL`
 * wins over its `databaseUrl`; `NODE_ENV=production` means DEBUG false
 * unless the project sets DEBUG.
 */
export function settingsFromEnvironment(settings: SettingsInput, env: NodeJS.ProcessEnv): SettingsInput {
  const out: SettingsInput = { ...settings };
  if (env['REDIS_URL']) out.REDIS_URL = env['REDIS_URL'];
  if (env['SECRET_KEY']) out.SECRET_KEY = env['SECRET_KEY'];
  if (out.DEBUG === undefined && env['NODE_ENV'] === 'production') out.DEBUG = false;
  return out;
}

async function buildApp(ctx: CommandContext): Promise<FastifyInstance> {
  const project = (await ctx.project()).config;
  const database = await ctx.database();
  const pending = (await listMigrations(database, project.migrations ?? {})).filter((m) => !m.applied);
  if (pending.length > 0) {
    ctx.warn(`You have ${pending.length} unapplied migration(s); run "trestle migrate".`);
  }
  // Like Django's runserver: unapplied migrations are a warning, not a refusal.
  const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
  const settings = settingsFromEnvironment(project.settings ?? {}, ctx.env);
  const routes = project.routes ?? [];
  if (project.createApp) return project.createApp({ settings, routes, database, users });
  // Loaded on demand so the other commands do not pay for Fastify's start-up.
  const { createApp, defaultLogger } = await import('../../app.js');
  return createApp({
    logger: defaultLogger(ctx.env['LOG_LEVEL'] || 'info'),
    settings,
    routes,
    database,
    users,
    // The same development key file as `trestle token` uses.
    dataDir: join(ctx.cwd, 'data'),
  });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`Invalid port "${value}": expected 0-65535.`);
  return port;
}

function parseDrain(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 3600) throw new UsageError(`Invalid drain timeout "${value}": expected 0-3600 seconds.`);
  return n;
}

function parseWorkers(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 256) throw new UsageError(`Invalid worker count "${value}": expected 1-256.`);
  return n;
}

function formatHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

function waitForSignal(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let handler: (signal: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    handler = resolve;
  });
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return {
    signal,
    dispose() {
      process.removeListener('SIGINT', handler);
      process.removeListener('SIGTERM', handler);
    },
  };
}
