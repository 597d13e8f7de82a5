import type { FastifyInstance } from 'fastify';
import type { Command, CommandContext } from '../command.js';
import { UsageError } from '../command.js';
import { listMigrations } from '../../db/migrate.js';
import { KyselyUserStore } from '../../users/kysely-user-store.js';
import { isClusterWorker, runPrimary } from './serve-cluster.js';

/**
 * `trestle serve`: builds the project's app and listens until SIGINT/SIGTERM,
 * then closes the server and the database. The app comes from the project's
 * `createApp` when it has one, else from Trestle's `createApp` with the
 * project's settings and routes and the `database`, `db` and `users` services.
 */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the HTTP server.',
  usage: 'serve [--host 127.0.0.1] [--port 8000] [--workers 1]',
  help: [
    '--host H      address to listen on (default 127.0.0.1)',
    '--port N      port to listen on (default 8000; 0 = any free port)',
    '--workers N   processes sharing the port (node:cluster; default 1). Crashed workers are',
    '              restarted; SIGTERM/SIGINT stop them all. With N > 1 use PostgreSQL and Redis',
    '              for anything shared (throttles, sessions).',
  ],
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8000' },
    workers: { type: 'string', default: '1' },
  },
  async run(ctx, args) {
    const host = String(args.values['host']);
    const port = parsePort(String(args.values['port']));
    const workers = parseWorkers(String(args.values['workers']));
    if (workers > 1 && !isClusterWorker()) return runPrimary(ctx, workers);
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
      await app.close();
    }
    return 0;
  },
};

async function buildApp(ctx: CommandContext): Promise<FastifyInstance> {
  const project = (await ctx.project()).config;
  const database = await ctx.database();
  const pending = (await listMigrations(database, project.migrations ?? {})).filter((m) => !m.applied);
  if (pending.length > 0) {
    ctx.warn(`You have ${pending.length} unapplied migration(s); run "trestle migrate".`);
  }
  // Like Django's runserver: unapplied migrations are a warning, not a refusal.
  const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
  const settings = project.settings ?? {};
  const routes = project.routes ?? [];
  if (project.createApp) return project.createApp({ settings, routes, database, users });
  // Loaded on demand so the other commands do not pay for Fastify's start-up.
  const { createApp } = await import('../../app.js');
  return createApp({
    settings,
    routes,
    database,
    users,
  });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`Invalid port "${value}": expected 0-65535.`);
  return port;
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
