/**
 * Key derivation (scrypt, PBKDF2) for passwords, off the event loop on
 * threads that yield to it. On libuv's thread pool a hash competes with
 * the event loop on equal terms: where the process has one core (a
 * container's CPU limit, a pinned server), one login halved the core the
 * API had and tripled its p99 (docs/performance.md, W4). On Linux these
 * threads lower their own priority (nice 10: the loop gets about nine
 * tenths of a shared core while both want it; an idle core is theirs in
 * full). Elsewhere, or when a thread cannot start, the hash runs on
 * libuv's pool as before.
 */
import { pbkdf2, scrypt, type ScryptOptions } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** The nice value of a hashing thread on Linux (0 = the loop's; 19 = the lowest). */
export const HASH_THREAD_NICE = 10;

/**
 * The thread's code (CommonJS, evaluated: no file to find once bundled).
 * `os.setPriority(n)` without a pid is `setpriority(PRIO_PROCESS, 0, n)`,
 * which Linux applies to the calling thread only; on other systems it
 * would lower the whole process, so it is called on Linux only.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { scryptSync, pbkdf2Sync } = require('node:crypto');
let nice = null;
if (workerData.nice !== null) {
  try { require('node:os').setPriority(workerData.nice); nice = workerData.nice; } catch {}
}
parentPort.postMessage({ ready: true, nice });
parentPort.on('message', (job) => {
  try {
    const key = job.kind === 'scrypt'
      ? scryptSync(job.password, job.salt, job.keylen, job.options)
      : pbkdf2Sync(job.password, job.salt, job.iterations, job.keylen, job.digest);
    parentPort.postMessage({ id: job.id, key });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

type Job =
  | { kind: 'scrypt'; password: string | Buffer; salt: Buffer; keylen: number; options: ScryptOptions }
  | { kind: 'pbkdf2'; password: string | Buffer; salt: Buffer; iterations: number; keylen: number; digest: string };

interface Pending {
  resolve: (key: Buffer) => void;
  reject: (err: Error) => void;
  job: Job;
}

/**
 * How long a hashing thread may sit idle before it is stopped, giving back
 * its isolate and the memory its last hash left in its allocator (about
 * 8 MB after one default-cost scrypt); the next hash starts a thread again
 * (tens of milliseconds, once).
 */
let idleMs = 60_000;

class HashThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** The nice value the thread set, once it has said (null: it could not). */
  nice: number | null | undefined = undefined;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(onGone: (thread: HashThread) => void) {
    this.worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { nice: process.platform === 'linux' ? HASH_THREAD_NICE : null } });
    this.worker.unref();
    this.worker.on('message', (msg: { ready?: true; nice?: number | null; id?: number; key?: Uint8Array; error?: string }) => {
      if (msg.ready) {
        this.nice = msg.nice ?? null;
        return;
      }
      const job = this.pending.get(msg.id!);
      if (!job) return;
      this.pending.delete(msg.id!);
      if (this.pending.size === 0) {
        this.worker.unref();
        this.idleTimer = setTimeout(() => this.stopIfIdle(onGone), idleMs).unref();
      }
      if (msg.error !== undefined) job.reject(new Error(msg.error));
      else job.resolve(Buffer.from(msg.key!.buffer, msg.key!.byteOffset, msg.key!.byteLength));
    });
    // A thread that fails or exits hands its jobs to libuv's pool; the next hash starts another.
    const gone = () => {
      onGone(this);
      for (const { job, resolve, reject } of this.pending.values()) onPool(job).then(resolve, reject);
      this.pending.clear();
    };
    this.worker.on('error', gone);
    this.worker.on('exit', gone);
  }

  /** Stops the thread when it has had no job for `idleMs`: out of the list first, so no job is handed to it. */
  private stopIfIdle(onGone: (thread: HashThread) => void): void {
    this.idleTimer = null;
    if (this.pending.size > 0) return;
    onGone(this);
    void this.worker.terminate();
  }

  run(id: number, job: Job): Promise<Buffer> {
    if (this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, job });
      // Keeps the process alive while a hash is under way (a CLI awaiting `createsuperuser`'s hash).
      this.worker.ref();
      this.worker.postMessage({ id, ...job });
    });
  }
}

let threads: HashThread[] = [];
let nextId = 0;
let unavailable = false;
const derivations = { scrypt: 0, pbkdf2: 0 };

/** The thread with the fewest jobs, started when none is idle and fewer than `max` run; `null` when threads cannot start. */
function threadFor(max: number): HashThread | null {
  if (unavailable) return null;
  let best: HashThread | null = null;
  for (const t of threads) if (best === null || t.pending.size < best.pending.size) best = t;
  if (best !== null && (best.pending.size === 0 || threads.length >= max)) return best;
  try {
    const t = new HashThread((gone) => (threads = threads.filter((x) => x !== gone)));
    threads.push(t);
    return t;
  } catch {
    unavailable = true;
    return best;
  }
}

function onPool(job: Job): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, key: Buffer) => (err ? reject(err) : resolve(key));
    if (job.kind === 'scrypt') scrypt(job.password, job.salt, job.keylen, job.options, done);
    else pbkdf2(job.password, job.salt, job.iterations, job.keylen, job.digest, done);
  });
}

/**
 * At most as many threads as libuv's pool has (`UV_THREADPOOL_SIZE`, 4 by
 * default), where hashes ran before: each thread is an isolate that stays
 * once started, so a machine with many cores does not keep one per core.
 */
const MAX_THREADS = Math.max(1, Number.parseInt(process.env['UV_THREADPOOL_SIZE'] ?? '', 10) || 4);

/**
 * A new thread only when none is idle, up to `MAX_THREADS`; past it jobs
 * share them. How many hashes run at once is the caller's to ration
 * (passwords.ts: `setPasswordHashConcurrency`), so threads follow it.
 */
function derive(job: Job): Promise<Buffer> {
  derivations[job.kind]++;
  const thread = threadFor(MAX_THREADS);
  return thread === null ? onPool(job) : thread.run(nextId++, job);
}

/** scrypt on a hashing thread (libuv's pool where threads cannot run). */
export function scryptKey(password: string | Buffer, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return derive({ kind: 'scrypt', password, salt, keylen, options });
}

/** PBKDF2 on a hashing thread (libuv's pool where threads cannot run). */
export function pbkdf2Key(password: string | Buffer, salt: Buffer, iterations: number, keylen: number, digest: string): Promise<Buffer> {
  return derive({ kind: 'pbkdf2', password, salt, iterations, keylen, digest });
}

/** Sets how long an idle hashing thread is kept (milliseconds; 60 s by default). For tests and tuning. */
export function setHashThreadIdleTimeout(ms: number): void {
  if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`The idle timeout must be a number of milliseconds, not ${ms}.`);
  idleMs = ms;
}

/** The hashing threads (their nice values as they reported them) and the keys derived so far, by function (for monitoring and tests). */
export function hashThreadStats(): { nices: (number | null | undefined)[]; derivations: { scrypt: number; pbkdf2: number } } {
  return { nices: threads.map((t) => t.nice), derivations: { ...derivations } };
}
