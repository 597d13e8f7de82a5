import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trestleSpecFor } from '../../src/cli/commands/new.js';
import { runMain, TRESTLE_NODE_ARGS } from '../helpers/cli.js';

const REPO = resolve(import.meta.dirname, '../..');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-new-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], cwd: string) => runMain(argv, { cwd });

function manifest(project: string): { dependencies: Record<string, string> } {
  return JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
}

function write(file: string, value: unknown): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

describe('trestle new: the dependency on Trestle installs', () => {
  it('from a source checkout (npm run trestle -- new): a file: path to the checkout', async () => {
    const result = await run(['new', 'myapi'], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Created myapi/ (');
    const spec = manifest(join(dir, 'myapi')).dependencies['trestle']!;
    expect(spec).toBe(`file:${relative(join(dir, 'myapi'), REPO)}`);
    expect(resolve(join(dir, 'myapi'), spec.slice('file:'.length))).toBe(REPO);
  });

  it('from npx --package ./trestle-0.1.0.tgz: the tarball npx was given, re-based to the new project', () => {
    // What npm 7+ leaves in ~/.npm/_npx/<hash>/ for a local tarball.
    const cache = join(dir, 'home', '.npm', '_npx', 'efa61aa3e942cf83');
    const work = join(dir, 'work');
    write(join(work, 'trestle-0.1.0.tgz'), '');
    write(join(cache, 'package.json'), {
      dependencies: { trestle: `file:${relative(cache, join(work, 'trestle-0.1.0.tgz'))}` },
      _npx: { packages: ['./trestle-0.1.0.tgz'] },
    });
    const root = join(cache, 'node_modules', 'trestle');
    write(join(root, 'package.json'), { name: 'trestle', version: '0.1.0' });
    expect(trestleSpecFor(work, join(work, 'myapi'), { root, version: '0.1.0' })).toBe('file:../trestle-0.1.0.tgz');
  });

  it('from a dependency of another package: what the lockfile resolved; from a registry: ^version', () => {
    const owner = join(dir, 'tool');
    const root = join(owner, 'node_modules', 'trestle');
    write(join(root, 'package.json'), { name: 'trestle', version: '0.1.0' });
    write(join(owner, 'package.json'), { name: 'tool', dependencies: { other: '1' } });
    const lock = (resolved: string) =>
      write(join(owner, 'package-lock.json'), { packages: { 'node_modules/trestle': { version: '0.1.0', resolved } } });
    lock('file:../vendor/trestle-0.1.0.tgz');
    expect(trestleSpecFor(join(dir, 'empty'), join(dir, 'empty', 'api'), { root, version: '0.1.0' })).toBe(
      'file:../../vendor/trestle-0.1.0.tgz',
    );
    lock('https://registry.npmjs.org/trestle/-/trestle-0.1.0.tgz');
    expect(trestleSpecFor(join(dir, 'empty'), join(dir, 'empty', 'api'), { root, version: '0.1.0' })).toBe('^0.1.0');
  });

  it('the project around the working directory wins, its tarball path re-based', () => {
    write(join(dir, 'shop', 'package.json'), { name: 'shop', dependencies: { trestle: 'file:../trestle-0.1.0.tgz' } });
    const spec = trestleSpecFor(join(dir, 'shop'), join(dir, 'shop', 'api'), { root: REPO, version: '0.1.0' });
    expect(spec).toBe('file:../../trestle-0.1.0.tgz');
  });
});

/** `sh -c script` in `cwd`, where `npx trestle …` runs this checkout's CLI. */
function shell(script: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  const npx = `npx() { [ "$1" = trestle ] || exit 97; shift; ${[process.execPath, ...TRESTLE_NODE_ARGS].map((a) => `'${a}'`).join(' ')} "$@"; }`;
  const result = spawnSync('sh', ['-ec', `${npx}\n${script}`], { cwd, encoding: 'utf8', env: cleanEnv(), timeout: 240_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'TRESTLE_CONFIG', 'REDIS_URL', 'SECRET_KEY', 'NODE_ENV']) delete env[name];
  return env;
}

describe('trestle new: the generated README works as written', () => {
  it('createsuperuser, token, the token-authenticated POST, and the project command', async () => {
    expect((await run(['new', 'myapi'], dir)).code).toBe(0);
    const project = join(dir, 'myapi');
    // The project's `npm install`, for this checkout: Trestle in its node_modules.
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(REPO, join(project, 'node_modules', 'trestle'));
    expect(shell('npx trestle migrate', project)).toMatchObject({ status: 0 });

    const server = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0'], {
      cwd: project,
      env: { ...cleanEnv(), LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => server.once('exit', done));
    try {
      let out = '';
      server.stdout.setEncoding('utf8');
      const origin = await new Promise<string>((done, fail) => {
        server.stdout.on('data', (d: string) => {
          out += d;
          const match = /Trestle listening on (http:\/\/\S+)\//.exec(out);
          if (match) done(match[1]!);
        });
        void exited.then((code) => fail(new Error(`serve exited (${code}): ${out}`)));
      });

      const readme = readFileSync(join(project, 'README.md'), 'utf8');
      const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(blocks).toHaveLength(3);
      const script = blocks[1]!.replaceAll('http://127.0.0.1:8000', origin);
      expect(script).toContain('createsuperuser');
      expect(script).toContain('Authorization: Token $KEY');
      const result = shell(script, project);
      // stderr has curl's progress meter (no terminal here) and the development key notice only.
      expect(result.stderr).not.toMatch(/trestle \w+:|command not found|rror/);
      expect(result.status, result.stderr).toBe(0);
      // curl prints bodies without a newline: the list, createsuperuser's line, the created note.
      const match = /^(\{.*\})Superuser created successfully\.\n(\{.*\})$/.exec(result.stdout);
      expect(match, result.stdout).not.toBeNull();
      expect(JSON.parse(match![1]!)).toEqual({ count: 0, next: null, previous: null, results: [] });
      const note = JSON.parse(match![2]!) as Record<string, unknown>;
      expect(note).toMatchObject({ id: 1, title: 'Hello', body: '', url: `${origin}/api/notes/1/` });

      // The third block: the project's own command, listed by help, writes note 2.
      const commands = shell(blocks[2]!, project);
      expect(commands.stderr).toBe('');
      expect(commands.status).toBe(0);
      expect(commands.stdout).toMatch(/Project commands \(trestle\.config\.ts\):\n  addnote +Add a note from the command line and print its id\.\n/);
      expect(commands.stdout.endsWith('\n2\n')).toBe(true);
      const read = await fetch(`${origin}/api/notes/2/`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id: 2, title: 'Buy milk', body: '' });
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  }, 300_000); // eight processes; slow on a busy machine
});

describe('trestle createsuperuser without a terminal', () => {
  it('names --password-stdin whatever it would have asked', async () => {
    expect((await run(['migrate', '--database-url', `sqlite:${join(dir, 'db.sqlite3')}`], dir)).code).toBe(0);
    for (const argv of [[], ['--username', 'admin', '--email', 'a@example.com']]) {
      const again = await run(['createsuperuser', ...argv, '--database-url', `sqlite:${join(dir, 'db.sqlite3')}`], dir);
      expect(again.code).toBe(1);
      expect(again.stdout).toBe('');
      expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(again.stderr).toContain('--password-stdin');
    }
  });
});
