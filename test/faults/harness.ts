import { fork, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';

const SERVER_SCRIPT = fileURLToPath(new URL('./fault-server.ts', import.meta.url));

export interface FaultServer {
  readonly port: number;
  /** The fault user's token (`Authorization: Token …`). */
  readonly token: string;
  readonly child: ChildProcess;
  /** Whether the process is still running. */
  alive(): boolean;
  /** `process.memoryUsage()` of the server after a full GC. */
  memory(): Promise<NodeJS.MemoryUsage>;
  /** A fresh session key of the fault user, or `null` while the session store is unreachable. */
  session(): Promise<string | null>;
  /** What the server wrote to stderr so far (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Forks test/faults/fault-server.ts (the example service) and waits until it listens. */
export function startFaultServer(env: Record<string, string>): Promise<FaultServer> {
  return new Promise((resolve, reject) => {
    const child = fork(SERVER_SCRIPT, [], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 20_000) stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`fault server did not start in time: ${stderr}`));
    }, 45_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fault server exited with ${code}: ${stderr}`));
    });
    child.on('message', function onReady(message: { ready?: { port: number; token: string } }) {
      if (!message.ready) return;
      clearTimeout(timer);
      child.off('message', onReady);
      const { port, token } = message.ready;
      const ask = <T>(cmd: string, pick: (m: Record<string, unknown>) => T | undefined): Promise<T> =>
        new Promise((res, rej) => {
          const t = setTimeout(() => rej(new Error(`no answer to ${cmd}`)), 10_000);
          const listener = (m: Record<string, unknown>) => {
            const value = pick(m);
            if (value === undefined) return;
            clearTimeout(t);
            child.off('message', listener);
            res(value);
          };
          child.on('message', listener);
          if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(t);
            return rej(new Error(`fault server is gone (${child.exitCode ?? child.signalCode}): ${stderr}`));
          }
          child.send({ cmd }, (err) => {
            if (!err) return;
            clearTimeout(t);
            rej(err);
          });
        });
      resolve({
        port,
        token,
        child,
        alive: () => child.exitCode === null && child.signalCode === null,
        memory: () => ask('memory', (m) => m['memory'] as NodeJS.MemoryUsage | undefined),
        session: () => ask('session', (m) => ('session' in m ? (m['session'] as string | null) : undefined)),
        stderr: () => stderr,
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null || child.signalCode !== null) return res();
            const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(t);
              res();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on its own connection (no keep-alive reuse races); rejects on network errors. */
export function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, agent: false, headers: { connection: 'close', ...options.headers }, timeout: 15_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls `check` every 200 ms until it returns true or `ms` pass; returns whether it did. */
export async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface LoadResult {
  answers: { label: string; answer: Answer }[];
  /** Requests that got no HTTP answer at all (a dead or hung process). */
  failures: { label: string; error: string }[];
}

export interface RunningLoad {
  /** Answers so far. */
  count(): number;
  /** Stops the workers and returns everything they saw. */
  stop(): Promise<LoadResult>;
}

/**
 * `workers` loops, each sending `next(i)` one after another until stopped,
 * at most `maxRequests` in all or `maxMs` of time, whichever comes first.
 */
export interface LoadRequest {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export function runLoad(
  port: number,
  next: (i: number) => LoadRequest,
  { workers = 4, maxRequests = 3_000, maxMs = 30_000 } = {},
): RunningLoad {
  const result: LoadResult = { answers: [], failures: [] };
  const deadline = Date.now() + maxMs;
  let stopped = false;
  let issued = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped && issued < maxRequests && Date.now() < deadline) {
      const spec = next(issued++);
      try {
        const answer = await send(port, spec.method, spec.path, { headers: spec.headers, body: spec.body });
        result.answers.push({ label: spec.label, answer });
      } catch (err) {
        result.failures.push({ label: spec.label, error: String(err) });
      }
    }
  });
  return {
    count: () => result.answers.length + result.failures.length,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return result;
    },
  };
}

/** Statuses a fault may cause: success, the client's own error, or 503. Never 500. */
export function unexpectedStatuses(result: LoadResult): string[] {
  return result.answers
    .filter(({ answer }) => !(answer.status < 300 || (answer.status >= 400 && answer.status < 500) || answer.status === 503))
    .map(({ label, answer }) => `${label}: ${answer.status} ${answer.body.slice(0, 200)}`);
}
