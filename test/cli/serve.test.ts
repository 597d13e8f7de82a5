import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { TRESTLE_NODE_ARGS } from '../helpers/cli.js';
import { REDIS_TEST_URL, redisAvailable, requireRedisInCi } from '../auth/helpers.js';

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;

let dir: string;
let url: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-serve-'));
  url = `sqlite:${join(dir, 'app.sqlite3')}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  lines: () => string;
  errors: () => string;
  /** The first "listening" address, once the server is up. */
  address: Promise<string>;
  /** Sends SIGTERM (seen by the in-process command) and returns its exit code. */
  stop(): Promise<number>;
  done: Promise<number>;
}

/** `trestle <argv>` in-process (`main()`), with `env` as its whole environment. */
function run(argv: string[], env: Record<string, string>): Running {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = main(argv, { stdin: new PassThrough(), stdout, stderr }, dir, { DATABASE_URL: url, LOG_LEVEL: 'silent', ...env });
  const address = new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /Trestle listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearInterval(poll);
        resolve(match[1]!);
      }
    }, 20);
    void done.then((code) => {
      clearInterval(poll);
      reject(new Error(`serve ended (${code}) before listening: ${err}`));
    });
  });
  address.catch(() => {});
  return {
    lines: () => out,
    errors: () => err,
    address,
    done,
    async stop() {
      process.emit('SIGTERM', 'SIGTERM');
      return done;
    },
  };
}

async function migrate(): Promise<void> {
  const r = run(['migrate'], {});
  expect(await r.done, r.errors()).toBe(0);
}

function project(source: string): void {
  writeFileSync(join(dir, 'trestle.config.ts'), source);
}

describe('trestle serve reads its environment', () => {
  it('HOST and PORT choose the address', async () => {
    await migrate();
    const server = run(['serve'], { HOST: '0.0.0.0', PORT: '0' });
    const address = await server.address;
    expect(address).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
    expect(address).not.toContain(':8000/');
    const res = await fetch(address.replace('0.0.0.0', '127.0.0.1') + 'nothing/');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({ detail: 'Not found.' });
    expect(await server.stop()).toBe(0);
  });

  describe('REDIS_URL', () => {
    requireRedisInCi();
    it.skipIf(!redisAvailable())('reaches the app: the health route reports Redis', async () => {
      await migrate();
      project(`import { defineProject, path, HealthView } from '${TRESTLE}';
export default defineProject({ routes: [path('health/', HealthView)] });\n`);
      const server = run(['serve', '--port', '0'], { REDIS_URL: REDIS_TEST_URL });
      const address = await server.address;
      const res = await fetch(`${address}health/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ status: 'ok', database: 'ok', redis: 'ok' });
      expect(await server.stop()).toBe(0);
    });
  });

  it('the health route answers 503 naming Redis when REDIS_URL points nowhere', async () => {
    await migrate();
    project(`import { defineProject, path, HealthView } from '${TRESTLE}';
class QuickHealth extends HealthView { override timeoutMs = 500; }
export default defineProject({ routes: [path('health/', QuickHealth)] });\n`);
    const server = run(['serve', '--port', '0'], { REDIS_URL: 'redis://127.0.0.1:1/0' });
    const address = await server.address;
    const res = await fetch(`${address}health/`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', database: 'ok', redis: 'unavailable' });
    expect(await server.stop()).toBe(0);
  });
});

describe('bad configuration stops start-up with one clear line', () => {
  const oneLine = (text: string) => {
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  it('NODE_ENV=production without SECRET_KEY', async () => {
    await migrate();
    const server = run(['serve', '--port', '0'], { NODE_ENV: 'production' });
    expect(await server.done).toBe(1);
    expect(oneLine(server.errors())).toBe(
      'trestle serve: SECRET_KEY is not set and DEBUG is false (the default when NODE_ENV=production): set the SECRET_KEY environment variable to a long random string, the same for every process.',
    );
  });

  it('NODE_ENV=production with SECRET_KEY but the development ALLOWED_HOSTS', async () => {
    await migrate();
    const server = run(['serve', '--port', '0'], { NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('hex') });
    expect(await server.done).toBe(1);
    expect(oneLine(server.errors())).toMatch(/^trestle serve: ALLOWED_HOSTS is the development default .*: set ALLOWED_HOSTS to the host names this app serves/);
  });

  it('an unknown setting', async () => {
    await migrate();
    project(`import { defineProject } from '${TRESTLE}';
export default defineProject({ settings: { PAGE_SIZ: 10 } as never });\n`);
    const server = run(['serve', '--port', '0'], {});
    expect(await server.done).toBe(1);
    expect(oneLine(server.errors())).toBe('trestle serve: Unknown setting "PAGE_SIZ". Did you mean "PAGE_SIZE"?');
  });

  it('a cursor ordering that names no column', async () => {
    await migrate();
    project(`import { defineProject, path, ListAPIView, CursorPagination } from '${TRESTLE}';
class Bad extends CursorPagination { override ordering = [] as string[]; }
class Items extends ListAPIView { override paginationClass = Bad; override getQueryset() { return []; } }
export default defineProject({ settings: { PAGE_SIZE: 5 }, routes: [path('items/', Items)] });\n`);
    const server = run(['serve', '--port', '0'], {});
    expect(await server.done).toBe(1);
    expect(oneLine(server.errors())).toBe('trestle serve: Bad.ordering must name at least one column.');
  });

  it('a DATABASE_URL that cannot be used', async () => {
    const server = run(['serve', '--port', '0'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(await server.done).toBe(1);
    expect(oneLine(server.errors())).toBe('trestle serve: Cannot connect to database postgres://nobody@127.0.0.1:1/none: ECONNREFUSED');
  });
});

describe('trestle serve --workers 2', () => {
  it('stops every worker and exits 0 within 10 s of SIGTERM', async () => {
    await migrate();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url };
    delete env['TRESTLE_CONFIG'];
    const child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0', '--workers', '2'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /Trestle listening on (http:\/\/\S+) \(2 workers/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
    });
    const res = await fetch(`${address}nothing/`);
    expect(res.status).toBe(404);
    child.kill('SIGTERM');
    const limit = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref());
    const outcome = await Promise.race([exited, limit]);
    if (outcome === 'still running') child.kill('SIGKILL');
    expect(outcome, stderr).toBe(0);
    expect(stderr).toContain('Signal SIGTERM: stopping 2 worker(s).');
  }, 120_000);
});
