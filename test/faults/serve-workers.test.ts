import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { migrate, openDatabase } from '../../src/index.js';
import project from '../../example/project.js';
import { TRESTLE_NODE_ARGS } from '../helpers/cli.js';
import { postgresBinDir, redisServerBin, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './private-servers.js';
import { eventually, type Answer } from './harness.js';

// `trestle serve --workers 2` (node:cluster) on a private PostgreSQL and a
// private Redis, each stopped and started again while the example service
// is under load: the workers live through it as a single process does.
const missing = [postgresBinDir() ? null : 'PostgreSQL binaries (/usr/lib/postgresql/*/bin)', redisServerBin() ? null : 'redis-server']
  .filter((m) => m !== null)
  .join(' and ');
if (missing && process.env['CI']) throw new Error(`The serve --workers fault suite is required when CI is set, but ${missing} are missing.`);
if (missing) console.warn(`Skipping the serve --workers fault suite: ${missing} not installed.`);

const EXAMPLE_CONFIG = join(import.meta.dirname, '../../example/project.ts');

/** A loopback source address of its own, so the anonymous throttle (per address) never answers 429 here. */
const anyClient = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

function send(port: number, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: anyClient(),
        agent: false,
        timeout: 15_000,
        headers: { accept: 'application/json', connection: 'close', ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const books = (port: number) => send(port, 'GET', '/api/books/');
/** A failed login: its count lives in Redis (and it never fails open). */
const badLogin = (port: number) => send(port, 'POST', '/api-token-auth/', JSON.stringify({ username: `nobody-${randomInt(1e9)}`, password: 'wrong' }));

function expect503(answer: Answer): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
}

describe.skipIf(missing !== '')('trestle serve --workers 2 through PostgreSQL and Redis restarts', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let dir: string;
  let child: ChildProcess;
  let port: number;
  let stderr = '';

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'trestle-workers-'));
    const database = await openDatabase(postgres.url);
    try {
      await migrate(database, project.migrations);
    } finally {
      await database.close();
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TRESTLE_CONFIG: EXAMPLE_CONFIG,
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    };
    child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0', '--workers', '2'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-20_000)));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', () => {
        const match = /Trestle listening on http:\/\/\S+:(\d+)\/ \(2 workers/.exec(stdout);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('under load: only 2xx, 4xx and 503 meanwhile, no worker dies, service resumes by itself', async () => {
    const answers: { label: string; answer: Answer }[] = [];
    const failures: string[] = [];
    let stopped = false;
    const deadline = Date.now() + 90_000;
    const loops = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stopped && Date.now() < deadline; i++) {
        const label = (i + w) % 2 === 0 ? 'books' : 'login';
        try {
          answers.push({ label, answer: await (label === 'books' ? books(port) : badLogin(port)) });
        } catch (err) {
          failures.push(`${label}: ${String(err)}`);
        }
      }
    });
    const count = () => answers.length + failures.length;
    try {
      expect(await eventually(async () => count() >= 12, 20_000)).toBe(true);

      // PostgreSQL restarts.
      await postgres.stop();
      expect503(await books(port));
      await postgres.start();
      expect(await eventually(async () => (await books(port)).status === 200, 20_000)).toBe(true);
      let mark = count();
      expect(await eventually(async () => count() >= mark + 12, 20_000)).toBe(true);

      // Redis restarts: failed logins cannot be counted (503); listings pass, their throttle uncounted.
      await redis.stop();
      expect503(await badLogin(port));
      const listing = await books(port);
      expect(listing.status, listing.body).toBe(200);
      await redis.start();
      expect(await eventually(async () => (await badLogin(port)).status === 400, 20_000)).toBe(true);
      mark = count();
      expect(await eventually(async () => count() >= mark + 12, 20_000)).toBe(true);
    } finally {
      stopped = true;
      await Promise.all(loops);
    }

    expect(child.exitCode, stderr).toBeNull();
    expect(stderr).not.toMatch(/Worker \d+ exited/);
    expect(failures, stderr).toEqual([]);
    const unexpected = answers.filter(({ answer }) => !(answer.status < 300 || (answer.status >= 400 && answer.status < 500) || answer.status === 503));
    expect(unexpected.map(({ label, answer }) => `${label}: ${answer.status} ${answer.body.slice(0, 200)}`)).toEqual([]);
    for (const { answer } of answers.filter(({ answer }) => answer.status === 503)) expect503(answer);
    expect(answers.filter(({ label, answer }) => label === 'books' && answer.status === 200).length).toBeGreaterThan(0);
    expect(answers.filter(({ label, answer }) => label === 'login' && answer.status === 400).length).toBeGreaterThan(0);
  }, 180_000);
});
