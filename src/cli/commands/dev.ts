import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, CommandContext } from '../command.js';
import { UsageError } from '../command.js';

/** Folders never watched: dependencies, data (SQLite writes), build output, VCS. */
const IGNORED_DIRS = new Set(['node_modules', 'data', 'dist', 'build', 'coverage']);
/** Files whose change restarts the server. */
const WATCHED_FILE = /\.(?:[cm]?[jt]s|json)$|^\.env(?:\..*)?$/;
/** Changes closer together than this restart once. */
const SETTLE_MS = 150;

/**
 * `trestle dev`: `trestle serve` restarted whenever a file of the project
 * changes, as Django's `runserver` (or `nest start --watch`). The server runs
 * in a child process; the port stays the same across restarts (with
 * `--port 0` one free port is chosen once), and each restart says which
 * files changed. A server that fails to start (a syntax error) is reported
 * and started again at the next change. SIGINT/SIGTERM stop both.
 */
export const devCommand: Command = {
  name: 'dev',
  summary: 'Run the HTTP server for development: restarted when a project file changes.',
  usage: 'dev [--host 127.0.0.1] [--port 8000]',
  help: [
    '--host H   address to listen on (default $HOST, else 127.0.0.1)',
    '--port N   port to listen on (default $PORT, else 8000; 0 = a free port, kept across restarts)',
    'Watches the project directory (not node_modules/, data/, dist/, build/, coverage/ nor dot',
    'folders) for .ts/.js/.mts/.mjs/.cts/.cjs/.json/.env files. Not for production: use serve.',
  ],
  options: { host: { type: 'string' }, port: { type: 'string' } },
  async run(ctx, args) {
    const host = typeof args.values['host'] === 'string' ? args.values['host'] : ctx.env['HOST'] || '127.0.0.1';
    const portText = typeof args.values['port'] === 'string' ? args.values['port'] : ctx.env['PORT'] || '8000';
    if (!/^\d+$/.test(portText) || Number(portText) > 65_535) throw new UsageError(`Invalid port "${portText}": expected 0-65535.`);
    const port = portText === '0' ? await freePort(host) : Number(portText);
    const project = await ctx.project();
    const root = project.path ? dirname(project.path) : ctx.cwd;
    return supervise(ctx, root, serveArgs(ctx, host, port));
  },
};

/** `node … bin/trestle.js serve …` for this copy of Trestle, with the command's global options. */
function serveArgs(ctx: CommandContext, host: string, port: number): string[] {
  const here = fileURLToPath(import.meta.url);
  const bin = join(dirname(here), '..', '..', '..', 'bin', 'trestle.js');
  // Running from the TypeScript sources (a checkout): the child must too.
  const conditions = here.endsWith('.ts') ? ['--conditions=trestle-source'] : [];
  const globals = [
    ...(ctx.globals.config ? ['--config', ctx.globals.config] : []),
    ...(ctx.globals.databaseUrl ? ['--database-url', ctx.globals.databaseUrl] : []),
  ];
  return [...conditions, bin, 'serve', '--host', host, '--port', String(port), '--drain-timeout', '1', ...globals];
}

async function supervise(ctx: CommandContext, root: string, argv: string[]): Promise<number> {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  const changed = new Set<string>();

  const start = () => {
    const proc = spawn(process.execPath, argv, { cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.pipe(ctx.io.stdout, { end: false });
    proc.stderr!.pipe(ctx.io.stderr, { end: false });
    child = proc;
    exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => {
        if (child === proc) {
          child = null;
          if (!stopping) ctx.warn(`The server stopped (${signal ?? `exit code ${code}`}); waiting for a change to start it again.`);
        }
        resolve();
      }),
    );
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  const restart = async () => {
    timer = null;
    const files = [...changed].sort();
    changed.clear();
    ctx.warn(`Changed: ${files.join(', ')}; restarting.`);
    await stop();
    if (!stopping) start();
  };
  const onChange = (file: string) => {
    if (stopping) return;
    changed.add(file);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void restart(), SETTLE_MS);
  };

  const watchers = watchProject(root, onChange);
  ctx.warn(`Watching ${root} for changes.`);
  start();
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  stopping = true;
  if (timer) clearTimeout(timer);
  for (const w of watchers) w.close();
  ctx.warn(`Signal ${signal}: stopping.`);
  await stop();
  return 0;
}

/**
 * Watches the project's own files: the top folder (not recursively) and each
 * sub-folder that is not ignored (recursively), so node_modules is never
 * walked. `onChange` gets the path relative to `root`.
 */
function watchProject(root: string, onChange: (file: string) => void): FSWatcher[] {
  const report = (base: string) => (_event: string, name: string | Buffer | null) => {
    if (!name) return;
    const file = relative(root, join(base, name.toString()));
    const parts = file.split(sep);
    if (parts.some((p) => p.startsWith('.') && !/^\.env/.test(p)) || IGNORED_DIRS.has(parts[0]!)) return;
    if (WATCHED_FILE.test(parts.at(-1)!)) onChange(file.split(sep).join('/'));
  };
  const watchers = [watch(root, report(root))];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || IGNORED_DIRS.has(entry.name)) continue;
    const dir = join(root, entry.name);
    if (existsSync(dir)) watchers.push(watch(dir, { recursive: true }, report(dir)));
  }
  return watchers;
}

/** A port free on `host` now, so every restart listens on the same one. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
