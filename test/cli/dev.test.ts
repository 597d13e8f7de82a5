// `trestle dev`: the process is what is tested (it supervises a server
// process and restarts it on a file change), so it is spawned, once.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TRESTLE_NODE_ARGS } from '../helpers/cli.js';

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;
/** Each wait is bounded; a busy machine starts a server in seconds, not minutes. */
const WAIT_MS = 120_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-dev-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function until(what: string, test: () => boolean, exited: Promise<unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`timed out waiting for ${what}`));
    }, WAIT_MS);
    const poll = setInterval(() => {
      if (!test()) return;
      clearInterval(poll);
      clearTimeout(deadline);
      resolve();
    }, 50);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(deadline);
      if (test()) resolve();
      else reject(new Error(`trestle dev exited while waiting for ${what}`));
    });
  });
}

describe('trestle dev', () => {
  it('restarts the server on the same port when a project file changes, and says which', async () => {
    mkdirSync(join(dir, 'src'));
    const value = (n: number) => writeFileSync(join(dir, 'src', 'value.mjs'), `export const value = ${n};\n`);
    value(1);
    writeFileSync(
      join(dir, 'trestle.config.mjs'),
      `import { apiView, path } from ${JSON.stringify(TRESTLE)};
       import { value } from './src/value.mjs';
       export default { routes: [path('value/', apiView(['GET'], () => ({ value })))] };\n`,
    );
    const child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'dev', '--port', '0'], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const listening = () => [...out.matchAll(/Trestle listening on (http:\/\/\S+)/g)].map((m) => m[1]!);
    try {
      await until('the first server', () => listening().length === 1, exited);
      const [address] = listening();
      expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(address).not.toBe('http://127.0.0.1:0/');
      const first = await fetch(`${address}value/`);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ value: 1 });

      value(2);
      await until('the restart', () => listening().length === 2, exited);
      expect(err).toContain('Changed: src/value.mjs; restarting.\n');
      expect(listening()[1]).toBe(address);
      const second = await fetch(`${address}value/`);
      expect(second.status).toBe(200);
      expect(second.headers.get('content-type')).toContain('application/json');
      expect(await second.json()).toEqual({ value: 2 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, err).toBe(0);
    expect(err).toContain('Signal SIGTERM: stopping.');
  }, 300_000);
});
