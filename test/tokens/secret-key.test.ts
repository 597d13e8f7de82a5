import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSecretKey } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'trestle-secret-'));
  dirs.push(d);
  return d;
}

describe('resolveSecretKey', () => {
  it('prefers the setting, then $SECRET_KEY, and then touches no file', () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const warn = (m: string) => void warnings.push(m);
    expect(resolveSecretKey({ SECRET_KEY: 'from-settings' }, join(dir, 'data'), { env: { SECRET_KEY: 'from-env' }, warn })).toBe('from-settings');
    expect(resolveSecretKey({ SECRET_KEY: null }, join(dir, 'data'), { env: { SECRET_KEY: 'from-env' }, warn })).toBe('from-env');
    expect(warnings).toEqual([]);
    expect(() => statSync(join(dir, 'data'))).toThrow();
  });

  it('generates a development key once, mode 0600, and returns it on later calls', () => {
    const data = join(tempDir(), 'data');
    const warnings: string[] = [];
    const first = resolveSecretKey({}, data, { env: {}, warn: (m) => void warnings.push(m) });
    const second = resolveSecretKey({}, data, { env: {}, warn: (m) => void warnings.push(m) });
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(second).toBe(first);
    expect(statSync(join(data, 'secret_key')).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^SECRET_KEY is not set: generated a development key into .*secret_key\. Set SECRET_KEY in production\.$/);
  });

  it('tightens a key file readable by others and refuses an empty one', () => {
    const data = join(tempDir(), 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'secret_key'), 'copied-around\n');
    chmodSync(join(data, 'secret_key'), 0o644);
    expect(resolveSecretKey({}, data, { env: {}, warn: () => {} })).toBe('copied-around');
    expect(statSync(join(data, 'secret_key')).mode & 0o777).toBe(0o600);
    writeFileSync(join(data, 'secret_key'), '  \n');
    expect(() => resolveSecretKey({}, data, { env: {}, warn: () => {} })).toThrow(/secret_key is empty: delete it or set SECRET_KEY\./);
  });

  it('processes that start together all end up with one key, written whole', async () => {
    const data = join(tempDir(), 'data');
    const module = pathToFileURL(join(import.meta.dirname, '../../src/secret-key.ts')).href;
    const script = `const { resolveSecretKey } = await import(${JSON.stringify(module)}); process.stdout.write(resolveSecretKey({}, ${JSON.stringify(data)}, { env: {}, warn: () => {} }));`;
    const env = { ...process.env };
    delete env['SECRET_KEY'];
    const run = () =>
      new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { env, cwd: import.meta.dirname }, (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        );
      });
    const keys = await Promise.all([run(), run(), run(), run()]);
    expect(keys[0]).toMatch(/^[\w-]{43}$/);
    expect(new Set(keys).size).toBe(1);
    expect(readdirSync(data)).toEqual(['secret_key']);
    expect(statSync(join(data, 'secret_key')).mode & 0o777).toBe(0o600);
  }, 120_000);

  it('trestle token under NODE_ENV=production without SECRET_KEY refuses, and writes no key file', async () => {
    const dir = tempDir();
    const stderr = new PassThrough();
    let err = '';
    stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr };
    const env = { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}` };
    expect(await main(['migrate'], io, dir, env)).toBe(0);
    expect(await main(['token', '--all'], io, dir, { ...env, NODE_ENV: 'production' })).toBe(1);
    expect(err).toBe(
      'trestle token: SECRET_KEY is not set and DEBUG is false (the default when NODE_ENV=production): set the SECRET_KEY environment variable to the key the server uses.\n',
    );
    expect(() => statSync(join(dir, 'data', 'secret_key'))).toThrow();
  });
});
