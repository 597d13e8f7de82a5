/**
 * The harness's side of the load generator: one long-lived process (pinned
 * to core 1 where `taskset` exists) that runs batches of load on request:
 * autocannon, or `wrk` for the runs that ask for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR } from './dataset.js';
import { pinned } from './cpu.js';

export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Who sends the requests: autocannon (the default) or `wrk` (bench/lib/wrk.ts). */
  generator?: 'autocannon' | 'wrk';
}

export interface LoadResult {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

export interface LoadBatch {
  results: LoadResult[];
  cpuSeconds: number | null;
}

export class Loader {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: LoadBatch) => void; reject: (e: Error) => void }>();

  async start(): Promise<void> {
    const [cmd, args] = pinned(1, process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'lib', 'load-process.ts')]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`load process exited (${code})`)));
      child.on('message', (msg: { ready?: boolean; id?: number; results?: LoadResult[]; cpuSeconds?: number | null; error?: string }) => {
        if (msg.ready) return resolve();
        const waiter = this.pending.get(msg.id!);
        if (!waiter) return;
        this.pending.delete(msg.id!);
        if (msg.error) waiter.reject(new Error(msg.error));
        else waiter.resolve({ results: msg.results!, cpuSeconds: msg.cpuSeconds ?? null });
      });
    });
  }

  /** Runs every request at once; resolves when all have finished. */
  async run(runs: LoadRequest[]): Promise<LoadResult[]> {
    return (await this.runBatch(runs)).results;
  }

  /** As `run`, with the CPU seconds the load generator spent on the batch (null without /proc). */
  runBatch(runs: LoadRequest[]): Promise<LoadBatch> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child!.send({ id, runs });
    });
  }

  stop(): void {
    this.child?.removeAllListeners('exit');
    this.child?.kill('SIGTERM');
    this.child = null;
  }
}
