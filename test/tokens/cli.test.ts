import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { TokenStore } from '../../src/index.js';
import { testDatabases, type TestDatabaseUrl } from '../helpers/databases.js';
import { FAST_HASH, TEST_SECRET } from './helpers.js';

const BIN = ['--conditions=trestle-source', resolve('bin/trestle.js')];
const KEY_LINE = /^[0-9a-f]{40}\n$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each(testDatabases())('trestle token on $name', ({ freshUrl }) => {
  let target: TestDatabaseUrl;
  let cwd: string;
  let database: Database;
  let users: KyselyUserStore;

  function trestle(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: target.url, SECRET_KEY: TEST_SECRET, ...env };
    for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
    return new Promise((done) => {
      execFile(process.execPath, [...BIN, ...args], { cwd, env: childEnv }, (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        done({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      });
    });
  }

  beforeAll(async () => {
    target = await freshUrl();
    cwd = mkdtempSync(join(tmpdir(), 'trestle-token-cli-'));
    const migrated = await trestle(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    database = await openDatabase(target.url);
    users = new KyselyUserStore(database.db, { hashParams: FAST_HASH });
    for (const name of ['alice', 'bob', 'carol']) await users.createUser({ username: name, password: `pw-${name}` });
  });
  afterAll(async () => {
    await database.close();
    await target.cleanup();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints a new key for a user without a token, then the same key again', async () => {
    const first = await trestle(['token', 'alice']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(KEY_LINE);
    const again = await trestle(['token', 'alice']);
    expect(again).toEqual(first);
    const found = await new TokenStore(database.db, { secret: TEST_SECRET }).lookup(first.stdout.trim());
    expect(found?.user.username).toBe('alice');
  });

  it('-r and --reset print a new key and the old one stops working', async () => {
    const tokens = new TokenStore(database.db, { secret: TEST_SECRET });
    const before = (await trestle(['token', 'alice'])).stdout.trim();
    const reset = await trestle(['token', 'alice', '-r']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(KEY_LINE);
    const after = reset.stdout.trim();
    expect(after).not.toBe(before);
    expect(await tokens.lookup(before)).toBeNull();
    expect((await tokens.lookup(after))?.user.username).toBe('alice');
    const long = await trestle(['token', '--reset', 'alice']);
    expect(long.stdout.trim()).not.toBe(after);
    expect((await trestle(['token', 'alice'])).stdout).toBe(long.stdout);
  });

  it('an unknown user exits 1 with one clear line on stderr and nothing on stdout', async () => {
    const res = await trestle(['token', 'nobody']);
    expect(res).toEqual({ code: 1, stdout: '', stderr: 'trestle token: No user with username "nobody".\n' });
  });

  it('usage mistakes exit 2', async () => {
    expect((await trestle(['token'])).code).toBe(2);
    expect((await trestle(['token', 'alice', '--all'])).code).toBe(2);
    expect((await trestle(['token', '--all', '-r'])).code).toBe(2);
    const help = await trestle(['token', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: trestle token <username> [-r]');
    expect(help.stdout).toContain('--purge-expired');
  });

  it('--all gives every user without a token one and keeps existing keys', async () => {
    const tokens = new TokenStore(database.db, { secret: TEST_SECRET });
    const aliceKey = (await trestle(['token', 'alice'])).stdout.trim();
    const all = await trestle(['token', '--all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe('Created 2 tokens.\n');
    for (const name of ['alice', 'bob', 'carol']) {
      const user = await users.getByUsername(name);
      expect((await tokens.get(user!))?.key, name).toMatch(/^[0-9a-f]{40}$/);
    }
    expect((await tokens.get((await users.getByUsername('alice'))!))?.key).toBe(aliceKey);
    expect(await trestle(['token', '--all'])).toMatchObject({ code: 0, stdout: 'Every user already has a token.\n' });
  });

  it('under another SECRET_KEY the key is not shown: exit 1, and -r is offered', async () => {
    const res = await trestle(['token', 'bob'], { SECRET_KEY: 'rotated secret' });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      'trestle token: The token of user "bob" exists but its key cannot be shown: it was stored under another SECRET_KEY. Run "trestle token bob -r" to replace it.\n',
    );
  });

  it('--import-drf stores DRF keys as they are, so clients keep working', async () => {
    const dave = await users.createUser({ username: 'dave', password: 'pw' });
    await users.createUser({ username: 'erin', password: 'pw' });
    const drfKey = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
    const file = join(cwd, 'authtoken.csv');
    writeFileSync(
      file,
      `key,username,created\r\n${drfKey},dave,2024-05-01 10:00:00.123+00\r\n` +
        `0123456789012345678901234567890123456789,alice,2024-05-01\r\n` +
        `1111111111111111111111111111111111111111,ghost,2024-05-01\r\n`,
    );
    const res = await trestle(['token', '--import-drf', 'authtoken.csv']);
    expect(res.stdout).toBe('Imported 1 token; 1 user(s) already had one; 1 row(s) skipped.\n');
    expect(res.stderr).toBe('line 4: no user "ghost"; skipped.\n');
    expect(res.code).toBe(1);
    const tokens = new TokenStore(database.db, { secret: TEST_SECRET });
    expect((await tokens.lookup(drfKey))?.user.pk).toBe(dave.pk);
    expect((await trestle(['token', 'dave'])).stdout).toBe(`${drfKey}\n`);
    const missing = await trestle(['token', '--import-drf', 'nope.csv']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^trestle token: Cannot read .*nope\.csv: ENOENT\n$/);
  });

  it('--purge-expired reports how many tokens it deleted', async () => {
    const res = await trestle(['token', '--purge-expired']);
    expect(res).toEqual({ code: 0, stdout: 'Deleted 0 expired tokens.\n', stderr: '' });
  });

  it('without SECRET_KEY a development key is generated once into ./data/secret_key (0600), with a warning', async () => {
    const devCwd = mkdtempSync(join(tmpdir(), 'trestle-token-dev-'));
    const devTarget = await freshUrl();
    try {
      const env = { SECRET_KEY: undefined, DATABASE_URL: devTarget.url };
      const run = (args: string[]) =>
        new Promise<Run>((done) => {
          const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
          delete childEnv['SECRET_KEY'];
          execFile(process.execPath, [...BIN, ...args], { cwd: devCwd, env: childEnv }, (err, stdout, stderr) =>
            done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          );
        });
      expect((await run(['migrate'])).code).toBe(0);
      const db = await openDatabase(devTarget.url);
      await new KyselyUserStore(db.db, { hashParams: FAST_HASH }).createUser({ username: 'zoe', password: 'pw' });
      await db.close();
      const first = await run(['token', 'zoe']);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(KEY_LINE);
      const file = join(devCwd, 'data', 'secret_key');
      expect(first.stderr).toBe(`SECRET_KEY is not set: generated a development key into ${file}. Set SECRET_KEY in production.\n`);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const secret = readFileSync(file, 'utf8');
      const second = await run(['token', 'zoe']);
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toBe(`SECRET_KEY is not set: using the development key in ${file}. Set SECRET_KEY in production.\n`);
      expect(readFileSync(file, 'utf8')).toBe(secret);
    } finally {
      await devTarget.cleanup();
      rmSync(devCwd, { recursive: true, force: true });
    }
  });
});
