import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Private PostgreSQL and Redis servers for fault tests: started from the
 * installed binaries on their own loopback port, in a temp directory, so a
 * test may stop and restart them without touching the shared servers other
 * tests use.
 */

/** The installed PostgreSQL `bin/` directory (newest version), or `null`. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null;
}

/** The `redis-server` binary, or `null`. */
export function redisServerBin(): string | null {
  for (const candidate of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** A loopback port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl stop -m fast`: active backends get 57P01 (admin_shutdown), as on a service restart. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every process of the cluster: the kernel
   * still accepts connections on its port, but nothing answers (a hung server).
   */
  pause(): Promise<void>;
  /** SIGCONT to the same processes. */
  resume(): Promise<void>;
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>;
}

// PostgreSQL refuses to run as root: as root, run its tools as `postgres`.
const asRoot = process.getuid?.() === 0;

async function pgTool(bin: string, args: string[]): Promise<void> {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  await run(file, argv, { timeout: 30_000 });
}

/** initdb + pg_ctl start on a free port; trust auth, loopback only, small and unsynced (a test database). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'trestle-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c shared_buffers=16MB',
    '-c max_connections=20',
  ].join(' ');
  const ctl = join(bin, 'pg_ctl');
  const start = () => pgTool(ctl, ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '20', 'start']);
  const stop = () => pgTool(ctl, ['-D', data, '-m', 'fast', '-w', '-t', '20', 'stop']);
  try {
    await pgTool(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--no-instructions']);
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let destroyed = false;
  let paused: number[] = [];
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async pause() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // The postmaster first, so that it forks no new backend meanwhile.
      process.kill(postmaster, 'SIGSTOP');
      paused = [postmaster, ...childrenOf(postmaster)];
      for (const pid of paused.slice(1)) process.kill(pid, 'SIGSTOP');
    },
    async resume() {
      for (const pid of paused) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone meanwhile
        }
      }
      paused = [];
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await pgTool(ctl, ['-D', data, '-m', 'immediate', '-w', '-t', '20', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // the process ended while listing
    }
  }
  return children;
}

export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Ends the server (SIGTERM; nothing is saved, so its data is gone). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** `redis-server --port N --save ''` on loopback, no persistence, its own temp directory. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const bin = redisServerBin();
  if (!bin) throw new Error('redis-server not found');
  const dir = mkdtempSync(join(tmpdir(), 'trestle-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        bin,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = proc;
      let out = '';
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not start: ${out}`));
      }, 10_000);
      proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.stderr!.resume();
      proc.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited: ${out}`));
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      proc.kill('SIGTERM');
    });

  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
