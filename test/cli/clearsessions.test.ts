import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { DatabaseSessionStore } from '../../src/sessions/database-store.js';
import { runTrestle } from '../helpers/cli.js';
import { testDatabases } from '../helpers/databases.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(testDatabases())('trestle clearsessions on $name', ({ freshUrl }) => {
  it('deletes expired sessions only and says how many', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'trestle-clear-'));
    dirs.push(cwd);
    const { url, cleanup } = await freshUrl();
    try {
      const env = { DATABASE_URL: url };
      const early = await runTrestle(['clearsessions'], { cwd, env });
      expect(early).toMatchObject({ code: 0, stdout: 'The sessions table is not migrated yet: nothing to clear.\n' });
      expect((await runTrestle(['migrate'], { cwd, env })).code).toBe(0);
      const database = await openDatabase(url);
      const store = new DatabaseSessionStore(database.db);
      await store.save('expired-one', { a: 1 }, new Date(Date.now() - 60_000));
      await store.save('expired-two', { a: 2 }, new Date(Date.now() - 1_000));
      await store.save('live', { a: 3 }, new Date(Date.now() + 3_600_000));
      const result = await runTrestle(['clearsessions'], { cwd, env });
      expect(result).toEqual({ code: 0, stdout: 'Deleted 2 expired sessions.\n', stderr: '' });
      const rows = await database.db.selectFrom('trestle_session').select('expire_date').execute();
      expect(rows).toHaveLength(1);
      expect(await store.load('live')).toEqual({ a: 3 });
      const again = await runTrestle(['clearsessions'], { cwd, env });
      expect(again.stdout).toBe('Deleted 0 expired sessions.\n');
      await database.close();
    } finally {
      await cleanup();
    }
  }, 240_000);
});

describe('trestle clearsessions with Redis', () => {
  it('has nothing to clear: Redis expires sessions itself', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'trestle-clear-'));
    dirs.push(cwd);
    const result = await runTrestle(['clearsessions'], { cwd, env: { DATABASE_URL: `sqlite:${join(cwd, 'x.sqlite3')}`, REDIS_URL: 'redis://127.0.0.1:1/0' } });
    expect(result).toEqual({ code: 0, stdout: 'Sessions are kept in Redis (REDIS_URL), which expires them itself: nothing to clear.\n', stderr: '' });
  }, 120_000);
});

describe('data files are private', () => {
  it('a new SQLite database (and its WAL files) is 0600 in a 0700 directory', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'trestle-mode-'));
    dirs.push(cwd);
    const file = join(cwd, 'data', 'app.sqlite3');
    const database = await openDatabase(`sqlite:${file}`);
    await database.db.schema.createTable('t').addColumn('a', 'integer').execute();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect((statSync(f).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(join(cwd, 'data')).mode & 0o777).toString(8)).toBe('700');
    await database.close();
  });
});
