/**
 * One server under test in its own child process: started, waited for
 * (`READY <port>` or Trestle's "listening on" line), sampled for RSS
 * (the process and its direct children, so cluster workers count), stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { pinned } from './cpu.js';

export interface ServerSpec {
  /** Shown in the table: `trestle`, `fastify`, `node:http`, `trestle x2`. */
  label: string;
  /** Node arguments after `node` (script and its args), given the port to listen on. */
  args: (port: number) => string[];
  env: Record<string, string>;
  /** Core to pin to, or `null` for none. */
  core: number | null;
}

export interface RunningServer {
  readonly port: number;
  readonly pid: number;
  /** RSS in bytes of the process tree right now. */
  rss(): number;
  /** User + system CPU seconds the process tree has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/** utime + stime of one process, in seconds (0 when it is gone or this is not Linux). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

function isNode(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node';
  } catch {
    return false;
  }
}

/** Direct children that are Node processes (cluster workers), not helpers such as tsx's esbuild service. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // Not Linux, or the process is gone.
  }
  return out.filter(isNode);
}

export async function startServer(spec: ServerSpec, timeoutMs = 60_000): Promise<RunningServer> {
  const port = await freePort();
  const [cmd, args] = pinned(spec.core, process.execPath, spec.args(port));
  const child: ChildProcess = spawn(cmd, args, {
    env: { ...process.env, ...spec.env, BENCH_PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.label} did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/READY \d+|listening on http/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${spec.label} exited with ${code}:\n${output}`));
    });
  });
  await ready;
  child.removeAllListeners('exit');
  const pid = child.pid!;
  return {
    port,
    pid,
    rss: () => [pid, ...childrenOf(pid)].reduce((sum, p) => sum + rssOf(p), 0),
    cpuSeconds: () => [pid, ...childrenOf(pid)].reduce((sum, p) => sum + cpuOf(p), 0),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
