import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { frameworkMigrations } from '../../src/db/migrations/index.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { runTrestle, TRESTLE_NODE_ARGS } from '../helpers/cli.js';

const PROJECT_MODULE = pathToFileURL(join(import.meta.dirname, '../../src/project.ts')).href;

let dir: string;
let url: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-cli-'));
  url = `sqlite:${join(dir, 'db', 'app.sqlite3')}`;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const trestle = (args: string[], input?: string) =>
  runTrestle(args, { cwd: dir, env: { DATABASE_URL: url }, ...(input !== undefined ? { input } : {}) });

function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('trestle migrate', () => {
  it('applies once, then says there is nothing to do', async () => {
    const first = await trestle(['migrate']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Applying trestle.0001_users... OK');
    const second = await trestle(['migrate']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No migrations to apply.');
    expect(second.stdout).not.toContain('Applying');
  });

  it('--list shows applied and pending migrations, including the project\'s from trestle.config.ts', async () => {
    writeFileSync(
      join(dir, 'trestle.config.ts'),
      `import { defineProject } from ${JSON.stringify(PROJECT_MODULE)};
       import type { Kysely } from 'kysely';
       export default defineProject({
         migrations: {
           '0001_notes': { async up(db: Kysely<unknown>) { await db.schema.createTable('note').addColumn('id', 'integer').execute(); } },
         },
       });\n`,
    );
    const before = await trestle(['migrate', '--list']);
    expect(before.code, before.stderr).toBe(0);
    const framework = (mark: string) => frameworkMigrations.map(([name]) => ` [${mark}] ${name}\n`).join('');
    expect(before.stdout).toBe(`trestle\n${framework(' ')}app\n [ ] 0001_notes\n`);
    const run = await trestle(['migrate']);
    expect(run.stdout).toContain('Applying app.0001_notes... OK');
    const after = await trestle(['migrate', '--list']);
    expect(after.stdout).toBe(`trestle\n${framework('X')}app\n [X] 0001_notes\n`);
  });

  it('finds the project through --config and TRESTLE_CONFIG, and takes its databaseUrl', async () => {
    const projectUrl = `sqlite:${join(dir, 'from-config.sqlite3')}`;
    writeFileSync(join(dir, 'custom.mjs'), `export default { databaseUrl: ${JSON.stringify(projectUrl)}, migrations: {} };\n`);
    const viaFlag = await runTrestle(['migrate', '--config', 'custom.mjs'], { cwd: dir });
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(viaFlag.stdout).toContain(`Database: ${projectUrl}`);
    const viaEnv = await runTrestle(['migrate'], { cwd: dir, env: { TRESTLE_CONFIG: join(dir, 'custom.mjs') } });
    expect(viaEnv.stdout).toContain('No migrations to apply.');
    const missing = await runTrestle(['migrate', '--config', 'nope.mjs'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toMatch(/Config file not found: .*nope\.mjs/);
  });

  it('fails with the URL redacted when the database cannot be reached', async () => {
    const result = await runTrestle(['migrate', '--database-url', 'postgres://bob:hunter2@127.0.0.1:1/app'], { cwd: dir });
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toBe(
      'trestle migrate: Cannot connect to database postgres://bob:***@127.0.0.1:1/app: ECONNREFUSED',
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it('rejects an unsupported URL scheme in one line', async () => {
    const result = await runTrestle(['migrate'], { cwd: dir, env: { DATABASE_URL: 'mysql://root:pw@h/db' } });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^trestle migrate: Unsupported database URL mysql:\/\/root:\*\*\*@h\/db/);
  });
});

describe('trestle createsuperuser and changepassword', () => {
  beforeEach(async () => {
    expect((await trestle(['migrate'])).code).toBe(0);
  });

  async function withStore<T>(fn: (users: KyselyUserStore) => Promise<T>): Promise<T> {
    const database = await openDatabase(url);
    try {
      return await fn(new KyselyUserStore(database.db));
    } finally {
      await database.close();
    }
  }

  it('creates a superuser from --password-stdin without printing the password', async () => {
    const result = await trestle(['createsuperuser', '--username', 'admin', '--email', 'admin@example.com', '--password-stdin'], 'Tr0ub4dor&3\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Superuser created successfully.\n');
    expect(result.stdout + result.stderr).not.toContain('Tr0ub4dor');
    const user = await withStore((users) => users.authenticate('admin', 'Tr0ub4dor&3'));
    expect(user).toMatchObject({ username: 'admin', email: 'admin@example.com', isStaff: true, isSuperuser: true });
  });

  it('refuses a duplicate username with one clear line', async () => {
    await trestle(['createsuperuser', '--username', 'admin', '--email', '', '--password-stdin'], 'Tr0ub4dor&3\n');
    const again = await trestle(['createsuperuser', '--username', 'admin', '--email', '', '--password-stdin'], 'Tr0ub4dor&4\n');
    expect(again.code).not.toBe(0);
    expect(oneLine(again.stderr)).toBe('trestle createsuperuser: A user with username "admin" already exists.');
  });

  it('asks for --password-stdin when there is no terminal', async () => {
    const result = await trestle(['createsuperuser', '--username', 'admin', '--email', 'a@b.c']);
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toContain('--password-stdin');
  });

  it('--no-input takes the password from TRESTLE_SUPERUSER_PASSWORD', async () => {
    const result = await runTrestle(['createsuperuser', '--no-input', '--username', 'ops'], {
      cwd: dir,
      env: { DATABASE_URL: url, TRESTLE_SUPERUSER_PASSWORD: 'from-env-Tr0ub4dor' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await withStore((users) => users.authenticate('ops', 'from-env-Tr0ub4dor'))).not.toBeNull();
  });

  it('tells the user to migrate first', async () => {
    const fresh = `sqlite:${join(dir, 'fresh.sqlite3')}`;
    const result = await runTrestle(['createsuperuser', '--username', 'a', '--password-stdin'], { cwd: dir, input: 'x', env: { DATABASE_URL: fresh } });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toContain('run "trestle migrate" first');
  });

  it('changes a password from stdin, and fails for an unknown user', async () => {
    await trestle(['createsuperuser', '--username', 'admin', '--email', '', '--password-stdin'], 'old-Tr0ub4dor&3\n');
    const changed = await trestle(['changepassword', 'admin', '--password-stdin'], 'new-Tr0ub4dor&3\n');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toBe('Password changed successfully for user "admin".\n');
    expect(await withStore((users) => users.authenticate('admin', 'new-Tr0ub4dor&3'))).not.toBeNull();
    expect(await withStore((users) => users.authenticate('admin', 'old-Tr0ub4dor&3'))).toBeNull();

    const unknown = await trestle(['changepassword', 'ghost', '--password-stdin'], 'x\n');
    expect(unknown.code).not.toBe(0);
    expect(oneLine(unknown.stderr)).toBe('trestle changepassword: No user with username "ghost".');

    const missingArg = await trestle(['changepassword']);
    expect(missingArg.code).toBe(2);
    expect(oneLine(missingArg.stderr)).toMatch(/Missing argument/);
  });
});

describe('trestle help', () => {
  it.each(['migrate', 'createsuperuser', 'changepassword', 'serve', 'help'])('%s --help prints usage', async (name) => {
    const result = await trestle([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: trestle ${name}`);
    expect(result.stderr).toBe('');
  });

  it('--help and help list every command', async () => {
    for (const args of [['--help'], ['help']]) {
      const result = await trestle(args);
      expect(result.code).toBe(0);
      for (const name of ['migrate', 'createsuperuser', 'changepassword', 'serve']) expect(result.stdout).toContain(name);
    }
  });

  it('unknown commands and options are usage errors (exit 2, one line)', async () => {
    const unknown = await trestle(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stderr)).toBe('trestle: Unknown command "frobnicate". Run "trestle help" for the list.');
    const badOption = await trestle(['migrate', '--nope']);
    expect(badOption.code).toBe(2);
    expect(oneLine(badOption.stderr)).toContain("Unknown option '--nope'");
    const none = await trestle([]);
    expect(none.code).toBe(2);
    oneLine(none.stderr);
  });
});

describe('trestle serve', () => {
  it('serves the project until SIGTERM, then exits 0', async () => {
    expect((await trestle(['migrate'])).code).toBe(0);
    const child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0'], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: string) => {
        stdout += d;
        const match = /Trestle listening on (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stdout}`)));
    });
    const response = await fetch(`${address}no-such-route/`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('rejects a bad port', async () => {
    const result = await trestle(['serve', '--port', 'http']);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toContain('Invalid port "http"');
  });
});
