import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Command, CommandContext } from '../command.js';
import type { SettingsInput } from '../../settings.js';
import { CliError, UsageError } from '../command.js';
import type { TrestleApp } from '../../app.js';
import { listMigrations } from '../../db/migrate.js';
import { KyselyUserStore } from '../../users/kysely-user-store.js';
import { isClusterWorker, runPrimary } from './serve-cluster.js';
import { settingsFromEnvironment, withOperatorEnvironment } from '../../environment.js';

export { settingsFromEnvironment };

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
  if (project.createApp) {
    // The operator's environment reaches the app whatever settings the hook passes to createApp.
    const hook = project.createApp;
    const app = await withOperatorEnvironment(ctx.env, () => hook({ settings, routes, database, users }));
    const mismatch = operatorSettingsMismatch(app, settings);
    if (mismatch !== null) {
      await app.close();
      throw new CliError(mismatch);
    }
    return app;
  }
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

/**
 * A hook's app built by another copy of Trestle's modules (a project loaded
 * through a separate module loader) does not see the operator's
 * environment: refused with one line rather than run on the wrong Redis or key.
 */
function operatorSettingsMismatch(app: FastifyInstance, expected: SettingsInput): string | null {
  const actual = (app as Partial<TrestleApp>).trestle?.settings;
  if (!actual) return null;
  for (const name of ['REDIS_URL', 'SECRET_KEY'] as const) {
    if (expected[name] && actual[name] !== expected[name]) {
      return `The project's createApp built an app whose ${name} is not the one from the environment: build it with the settings it receives.`;
    }
  }
  return null;
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
