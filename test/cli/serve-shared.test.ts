import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { KyselyUserStore, migrate, openDatabase } from '../../src/index.js';
import project from '../../example/project.js';
import { TRESTLE_NODE_ARGS } from '../helpers/cli.js';
import { freshPgUrl } from '../helpers/databases.js';
import { pgAvailable, requirePgInCi } from '../helpers/pg.js';
import { REDIS_TEST_URL, redisAvailable, requireRedisInCi } from '../auth/helpers.js';

/**
 * The example service under `trestle serve`, as an operator runs it: two
 * separate processes and one `--workers 2` process on one PostgreSQL and one
 * Redis, configured only through the environment. Its `createApp` hook must
 * not drop that environment: the processes share one throttle budget, the
 * sessions, and the failed-login records.
 */

const EXAMPLE_CONFIG = join(import.meta.dirname, '../../example/project.ts');

interface Served {
  child: ChildProcess;
  address: string;
  stdout(): string;
  stop(): Promise<number | null>;
}

/** `trestle serve` on the example project in its own process; resolves once it listens. */
function serve(cwd: string, env: Record<string, string>, args: string[] = []): Promise<Served> {
  const full: NodeJS.ProcessEnv = { ...process.env, TRESTLE_CONFIG: EXAMPLE_CONFIG, LOG_LEVEL: 'info', ...env };
  const child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0', ...args], { cwd, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise<Served>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /Trestle listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        resolve({
          child,
          address: match[1]!,
          stdout: () => stdout,
          async stop() {
            child.kill('SIGTERM');
            const limit = new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000).unref());
            const outcome = await Promise.race([exited, limit]);
            if (outcome === 'still running') {
              child.kill('SIGKILL');
              return null;
            }
            return outcome;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection from `from` (a loopback address of its own, so its throttle history is its own). */
function send(base: string, path: string, from: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? 'GET', headers: options.headers, localAddress: from, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A loopback address no other test uses (the anonymous throttles count per client address). */
function clientAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
}

function cookie(headers: IncomingHttpHeaders, name: string): string {
  for (const line of headers['set-cookie'] ?? []) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(line);
    if (match) return match[1]!;
  }
  throw new Error(`no ${name} cookie in ${JSON.stringify(headers['set-cookie'])}`);
}

const THROTTLED = /^\{"detail":"Request was throttled\. Expected available in \d+ seconds?\."\}$/;

/** 70 anonymous GETs of /auth/throttled/ (burst: 60/min), spread over `bases` in turn: how many passed and how many were throttled. */
async function burst(bases: string[], from: string): Promise<{ passed: number; throttled: number; last: Reply }> {
  let passed = 0;
  let throttled = 0;
  let last: Reply | null = null;
  for (let i = 0; i < 70; i++) {
    const res = await send(bases[i % bases.length]!, '/auth/throttled/', from, { headers: { accept: 'application/json' } });
    if (res.status === 200) passed++;
    else if (res.status === 429) {
      throttled++;
      last = res;
    } else throw new Error(`unexpected ${res.status}: ${res.body}`);
  }
  return { passed, throttled, last: last! };
}

requirePgInCi();
requireRedisInCi();

describe.skipIf(!pgAvailable() || !redisAvailable())('the example under trestle serve, several processes on one PostgreSQL and Redis', () => {
  let dir: string;
  let env: Record<string, string>;
  const servers: Served[] = [];
  let a: Served;
  let b: Served;
  let workers: Served;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-shared-'));
    const { url } = await freshPgUrl();
    const database = await openDatabase(url);
    try {
      await migrate(database, project.migrations);
      const users = new KyselyUserStore(database.db, { hashParams: { ln: 10, r: 8, p: 1 } });
      await users.createUser({ username: 'alice', password: 's3cret-shared' });
    } finally {
      await database.close();
    }
    env = { DATABASE_URL: url, REDIS_URL: REDIS_TEST_URL, SECRET_KEY: randomBytes(32).toString('hex') };
    const started = await Promise.allSettled([serve(dir, env), serve(dir, env), serve(dir, env, ['--workers', '2'])]);
    // Whatever started is stopped in afterAll, even when another failed to start.
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    [a, b, workers] = servers as [Served, Served, Served];
  }, 240_000);

  afterAll(async () => {
    const codes = await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
    expect(codes).toEqual(servers.map(() => 0));
  }, 60_000);

  it('each process says at start-up that it reached Redis (every worker too)', async () => {
    const reached = (s: Served) => s.stdout().split('\n').filter((l) => l.includes('"msg":"Redis reached at redis://')).length;
    // A worker connects as it starts listening; its line may follow the primary's "listening" line.
    await vi.waitFor(() => expect([reached(a), reached(b), reached(workers)]).toEqual([1, 1, 2]), { timeout: 15_000, interval: 100 });
  }, 30_000);

  it('two serve processes share one throttle budget: 70 requests against 60/min pass 60 times', async () => {
    const { passed, throttled, last } = await burst([a.address, b.address], clientAddress());
    expect({ passed, throttled }).toEqual({ passed: 60, throttled: 10 });
    expect(last.headers['content-type']).toBe('application/json');
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.body).toMatch(THROTTLED);
  }, 60_000);

  it('--workers 2 shares one throttle budget too, and with the other processes', async () => {
    const from = clientAddress();
    const first = await burst([workers.address], from);
    expect({ passed: first.passed, throttled: first.throttled }).toEqual({ passed: 60, throttled: 10 });
    expect(first.last.body).toMatch(THROTTLED);
    // The budget this client spent on the workers is spent on the separate processes as well.
    const elsewhere = await send(a.address, '/auth/throttled/', from, { headers: { accept: 'application/json' } });
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.body).toMatch(THROTTLED);
  }, 60_000);

  it('a session made by one process is honoured by the others', async () => {
    const from = clientAddress();
    const page = await send(a.address, '/api-auth/login/', from, { headers: { accept: 'application/json' } });
    expect(page.status).toBe(200);
    const csrftoken = cookie(page.headers, 'csrftoken');
    const login = await send(a.address, '/api-auth/login/', from, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: `csrftoken=${csrftoken}`, 'x-csrftoken': csrftoken },
      body: JSON.stringify({ username: 'alice', password: 's3cret-shared' }),
    });
    expect(login.status, login.body).toBe(200);
    expect(JSON.parse(login.body)).toMatchObject({ username: 'alice' });
    const sessionid = cookie(login.headers, 'sessionid');
    for (const server of [a, b, workers, workers]) {
      const res = await send(server.address, '/auth/session/', from, { headers: { accept: 'application/json', cookie: `sessionid=${sessionid}` } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.body)).toEqual({ username: 'alice', scheme: 'SessionAuthentication' });
    }
    const stranger = await send(b.address, '/auth/session/', from, { headers: { accept: 'application/json', cookie: 'sessionid=nosuchsession' } });
    expect(stranger.status).toBe(403);
    expect(JSON.parse(stranger.body)).toEqual({ detail: 'Authentication credentials were not provided.' });
  }, 60_000);

  it('failed logins are recorded in Redis, where every process reads them', async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 1 });
    try {
      const loginKeys = async () => new Set((await redis.keys('*')).filter((k) => /login/i.test(k)));
      const before = await loginKeys();
      const from = clientAddress();
      for (const server of [a, b]) {
        const res = await send(server.address, '/api-token-auth/', from, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify({ username: `nobody-${randomBytes(4).toString('hex')}`, password: 'wrong' }),
        });
        expect(res.status).toBe(400);
        expect(JSON.parse(res.body)).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] });
      }
      const added = [...(await loginKeys())].filter((k) => !before.has(k));
      expect(added.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});

describe("a project's createApp hook that ignores the settings it receives", () => {
  const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-hook-'));
    // The hook builds the app from the module's own settings, as the example once did.
    writeFileSync(
      join(dir, 'trestle.config.ts'),
      `import { createApp, defineProject, path, HealthView } from '${TRESTLE}';
const settings = {};
const routes = [path('health/', HealthView)];
export default defineProject({ settings, routes, createApp: ({ database, users }) => createApp({ settings, routes, database, users, logger: false }) });\n`,
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** `trestle <argv>` in-process with `env` as its whole environment. */
  async function trestle(argv: string[], env: Record<string, string>): Promise<{ code: number; out: () => string; err: () => string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await main(argv, { stdin: new PassThrough(), stdout, stderr }, dir, { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`, LOG_LEVEL: 'silent', ...env });
    return { code, out: () => out, err: () => err };
  }

  it('NODE_ENV=production still means DEBUG false: no SECRET_KEY stops start-up', async () => {
    expect((await trestle(['migrate'], {})).code).toBe(0);
    const served = await trestle(['serve', '--port', '0'], { NODE_ENV: 'production' });
    expect(served.code).toBe(1);
    expect(served.err()).toMatch(/^trestle serve: SECRET_KEY is not set and DEBUG is false \(the default when NODE_ENV=production\)/);
  });

  it('SECRET_KEY from the environment reaches the app: production gets past the key, to the host check', async () => {
    expect((await trestle(['migrate'], {})).code).toBe(0);
    const served = await trestle(['serve', '--port', '0'], { NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('hex') });
    expect(served.code).toBe(1);
    expect(served.err()).toMatch(/^trestle serve: ALLOWED_HOSTS is the development default /);
  });

  describe('REDIS_URL', () => {
    requireRedisInCi();
    it.skipIf(!redisAvailable())('reaches the app: the health route reports Redis', async () => {
      expect((await trestle(['migrate'], {})).code).toBe(0);
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      const done = main(['serve', '--port', '0'], { stdin: new PassThrough(), stdout, stderr }, dir, {
        DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`,
        LOG_LEVEL: 'silent',
        REDIS_URL: REDIS_TEST_URL,
      });
      await vi.waitFor(() => expect(out).toMatch(/Trestle listening on http:\/\/\S+/), { timeout: 20_000, interval: 50 });
      const address = /Trestle listening on (http:\/\/\S+)/.exec(out)![1]!;
      const res = await fetch(`${address}health/`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', database: 'ok', redis: 'ok' });
      process.emit('SIGTERM', 'SIGTERM');
      expect(await done).toBe(0);
    }, 30_000);
  });
});
