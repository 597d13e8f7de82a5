import cluster, { type Worker } from 'node:cluster';
import type { CommandContext } from '../command.js';

/** A worker that dies sooner than this after its start counts as a crash loop. */
const QUICK_EXIT_MS = 5_000;
/** Consecutive quick exits after which the primary gives up. */
const MAX_QUICK_EXITS = 5;
const RESTART_DELAY_MS = 500;
/** How long past its drain timeout a stopping worker may take to exit. */
const KILL_GRACE_MS = 3_000;

/**
 * The primary of `trestle serve --workers N` (node:cluster): forks N
 * workers that each run `serve` on the shared port, restarts a worker that
 * exits on its own, and forwards SIGINT/SIGTERM to every worker, then
 * returns once they have all stopped (a worker still alive a few seconds
 * after its drain timeout is killed). A worker that keeps dying right after
 * its start (a bad config, a port in use) ends the primary with code 1
 * instead of restarting forever.
 */
export async function runPrimary(ctx: CommandContext, workers: number, drainMs: number): Promise<number> {
  let stopping = false;
  let quickExits = 0;
  let failed = false;
  const started = new Map<Worker, number>();
  const listening = new Set<Worker>();
  let announced = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    worker.on('listening', (address) => {
      listening.add(worker);
      if (!announced && listening.size === workers) {
        announced = true;
        const host = address.address?.includes(':') ? `[${address.address}]` : (address.address ?? '127.0.0.1');
        ctx.print(`Trestle listening on http://${host}:${address.port}/ (${workers} workers, Ctrl-C to stop)`);
      }
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const lifetime = Date.now() - (started.get(worker) ?? 0);
    started.delete(worker);
    listening.delete(worker);
    if (stopping || failed) {
      if (started.size === 0) finish();
      return;
    }
    quickExits = lifetime < QUICK_EXIT_MS ? quickExits + 1 : 0;
    if (quickExits >= MAX_QUICK_EXITS) {
      ctx.warn(`Worker ${worker.process.pid} exited (${signal ?? code}) right after starting, ${quickExits} times in a row: giving up.`);
      failed = true;
      for (const w of started.keys()) w.process.kill('SIGTERM');
      if (started.size === 0) finish();
      return;
    }
    ctx.warn(`Worker ${worker.process.pid} exited (${signal ?? code}); starting a new one.`);
    setTimeout(() => {
      if (!stopping && !failed) fork();
    }, RESTART_DELAY_MS);
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    ctx.warn(`Signal ${signal}: stopping ${started.size} worker(s).`);
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
    if (started.size === 0) finish();
    const overdue = setTimeout(() => {
      for (const worker of started.keys()) {
        ctx.warn(`Worker ${worker.process.pid} did not stop in time: killing it.`);
        worker.process.kill('SIGKILL');
      }
    }, drainMs + KILL_GRACE_MS);
    overdue.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (let i = 0; i < workers; i++) fork();
    await done;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    cluster.removeAllListeners('exit');
  }
  return failed ? 1 : 0;
}

/** True inside a worker forked by `runPrimary`. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}
