// Trestle as a dependency: packed with `npm pack`, installed into a project
// outside the repository, used the way the README says. One pack and one
// install for the whole file (see installed.ts).
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockFileName, documentationBlocks, sectionBlocks } from './doc-blocks.js';
import { cleanEnv, packAndInstall, REPO, runOk, run, startServer, type InstalledPackage, type RunResult, type Server } from './installed.js';

const SECRET_KEY = 'package-test-secret-key-0123456789abcdef';
/** Each test here starts processes (npm, tsc, servers): give them time on a busy machine. */
const SLOW = 120_000;

let pkg: InstalledPackage;

/** A project whose views answer 401, 403, 404 and 405 through Trestle's ApiError classes. */
const SERVED_PROJECT = `import { defineProject, path, APIView, NotFound, IsAuthenticated, TokenAuthentication, AllowAny } from 'trestle';

class Private extends APIView {
  authenticationClasses = [TokenAuthentication];
  permissionClasses = [IsAuthenticated];
  async get() { return { secret: true }; }
}
class Members extends APIView {
  permissionClasses = [IsAuthenticated];
  async get() { return { members: [] }; }
}
class Missing extends APIView {
  permissionClasses = [AllowAny];
  async get() { throw new NotFound(); }
}
class ReadOnly extends APIView {
  permissionClasses = [AllowAny];
  async get() { return { hello: 'world' }; }
}

export default defineProject({
  databaseUrl: 'sqlite:./data/served.sqlite3',
  routes: [path('private/', Private), path('members/', Members), path('missing/', Missing), path('read-only/', ReadOnly)],
});
`;

beforeAll(async () => {
  pkg = await packAndInstall();
}, 300_000);

afterAll(() => {
  if (pkg) rmSync(pkg.root, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('loads with import in a "type": "module" project and exposes its entry points', async () => {
    writeFileSync(
      join(pkg.project, 'check-import.js'),
      `import * as trestle from 'trestle';
       import { main } from 'trestle/cli';
       import { APIClient, testDatabase } from 'trestle/test';
       console.log(JSON.stringify({
         createApp: typeof trestle.createApp,
         apiError: typeof trestle.ApiError,
         main: typeof main,
         apiClient: typeof APIClient,
         testDatabase: typeof testDatabase,
         url: import.meta.resolve('trestle'),
       }));\n`,
    );
    const result = await runOk(process.execPath, ['check-import.js'], { cwd: pkg.project });
    const seen = JSON.parse(result.stdout) as Record<string, string>;
    expect(seen).toMatchObject({ createApp: 'function', apiError: 'function', main: 'function', apiClient: 'function', testDatabase: 'function' });
    expect(seen['url']).toBe(`file://${join(pkg.project, 'node_modules', 'trestle', 'dist', 'index.js')}`);
  }, SLOW);

  it('type-checks a consumer of trestle and trestle/test with skipLibCheck: false (published types need only runtime dependencies)', async () => {
    writeFileSync(
      join(pkg.project, 'consumer.ts'),
      `import { createApp, openDatabase, path, APIView, NotFound, type ApiRequest, type OpenDatabaseOptions } from 'trestle';
       import { APIClient, testDatabase, type TestDatabase } from 'trestle/test';
       class Thing extends APIView {
         async get(req: ApiRequest) {
           if (req.query['missing']) throw new NotFound();
           return { ok: true };
         }
       }
       const options: OpenDatabaseOptions = { pgPool: { max: 2 } };
       export const database = await openDatabase('sqlite::memory:', options);
       export const app = await createApp({ routes: [path('thing/', Thing)] });
       export const client: APIClient = new APIClient(app, { format: 'json' });
       export const test: TestDatabase = await testDatabase();\n`,
    );
    writeFileSync(
      join(pkg.project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const result = await run(join(pkg.project, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: pkg.project });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, SLOW);

  // Installed from the tarball, and linked to this checkout (`npm link`, a
  // `file:` dependency), where src/ sits beside dist/: the CLI must still load
  // the copy the project's `import 'trestle'` loads, or ApiError subclasses
  // fail `instanceof` and every 401/403/404/405 becomes a 500.
  // A third project is a CommonJS package (no `"type": "module"`, as `npm init` writes it) whose
  // config imports its views from a second file: its TypeScript is loaded as ES modules on the
  // CLI's own loader, so the views import the CLI's copy of Trestle.
  describe.each([
    { layout: 'installed from the tarball', linked: false, commonjs: false },
    { layout: 'linked to the checkout', linked: true, commonjs: false },
    { layout: 'in a CommonJS package, its views in a second file', linked: false, commonjs: true },
  ])('trestle serve on a project that imports "trestle", $layout', ({ linked, commonjs }) => {
    let server: Server;
    const env = cleanEnv({ SECRET_KEY });

    beforeAll(async () => {
      const dir = linked ? join(pkg.root, 'linked') : commonjs ? join(pkg.root, 'commonjs') : join(pkg.project, 'served');
      mkdirSync(dir, { recursive: true });
      let trestle = join(pkg.project, 'node_modules', '.bin', 'trestle');
      if (linked) {
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'linked', private: true, type: 'module' }));
        mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
        symlinkSync(REPO, join(dir, 'node_modules', 'trestle'));
        symlinkSync('../trestle/bin/trestle.js', join(dir, 'node_modules', '.bin', 'trestle'));
        trestle = join(dir, 'node_modules', '.bin', 'trestle');
      }
      if (commonjs) {
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'commonjs', version: '1.0.0', private: true }));
        symlinkSync(join(pkg.project, 'node_modules'), join(dir, 'node_modules'));
        trestle = join(dir, 'node_modules', '.bin', 'trestle');
        const [views, config] = SERVED_PROJECT.split('export default ');
        writeFileSync(join(dir, 'views.ts'), views!.replace(/^class /gm, 'export class '));
        writeFileSync(
          join(dir, 'trestle.config.ts'),
          `import { defineProject, path } from 'trestle';\nimport { Private, Members, Missing, ReadOnly } from './views.js';\n\nexport default ${config}`,
        );
      } else {
        writeFileSync(join(dir, 'trestle.config.ts'), SERVED_PROJECT);
      }
      await runOk(trestle, ['migrate'], { cwd: dir, env });
      server = await startServer(trestle, ['serve', '--port', '0'], { cwd: dir, env });
    }, SLOW);

    afterAll(async () => {
      await server?.stop();
    });

    it('answers 401 with WWW-Authenticate from TokenAuthentication', async () => {
      const res = await fetch(`${server.origin}/private/`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Token');
      expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    }, SLOW);

    it('answers 403 when the first scheme (session) has no challenge', async () => {
      const res = await fetch(`${server.origin}/members/`);
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    }, SLOW);

    it('answers 404 for NotFound raised by the project and for an unknown path', async () => {
      for (const url of [`${server.origin}/missing/`, `${server.origin}/no-such-route/`]) {
        const res = await fetch(url);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ detail: 'Not found.' });
      }
    }, SLOW);

    it('answers 405 with Allow for a method the view does not have', async () => {
      const res = await fetch(`${server.origin}/read-only/`, { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(await res.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
    }, SLOW);
  });
});

describe('trestle new', () => {
  let dir: string;
  let files: RunResult;

  beforeAll(async () => {
    files = await runOk('npx', ['trestle', 'new', 'myapi'], { cwd: pkg.project });
    dir = join(pkg.project, 'myapi');
  }, SLOW);

  it('writes config, one resource with its migration, and one test, depending on Trestle as the project does', () => {
    expect(files.stdout).toContain('Created myapi/');
    for (const file of ['package.json', 'tsconfig.json', 'trestle.config.ts', 'src/notes.ts', 'migrations/0001_initial.ts', 'src/routes.ts', 'test/notes.test.ts']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type: string; dependencies: Record<string, string> };
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies['trestle']).toBe(`file:../../${basename(pkg.tarball)}`);
  });

  it('refuses to write over a directory that is not empty', async () => {
    const again = await run(join(pkg.project, 'node_modules', '.bin', 'trestle'), ['new', 'myapi'], { cwd: pkg.project });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`trestle new: ${dir} already exists and is not empty.\n`);
  }, SLOW);

  // The new project finds its dependencies in the enclosing project's
  // node_modules (the one install of this file) instead of installing again.
  it('passes its own npm test and type check', async () => {
    const tested = await run('npm', ['test'], { cwd: dir });
    expect(tested.stdout + tested.stderr).toMatch(/# pass 4\b/);
    expect(tested.code).toBe(0);
    const typed = await run('npm', ['run', 'typecheck'], { cwd: dir });
    expect(typed.stdout + typed.stderr).not.toMatch(/error TS/);
    expect(typed.code).toBe(0);
  }, SLOW);

  it('npm start migrates SQLite and serves the resource', async () => {
    const server = await startServer('npm', ['start', '--', '--port', '0'], { cwd: dir, env: cleanEnv({ SECRET_KEY }) });
    try {
      const res = await fetch(`${server.origin}/api/notes/`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
      expect(existsSync(join(dir, 'data', 'db.sqlite3'))).toBe(true);
      const denied = await fetch(`${server.origin}/api/notes/`, { method: 'POST', body: '{"title": "x"}', headers: { 'content-type': 'application/json' } });
      expect(denied.status).toBe(403);
      expect(await denied.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    } finally {
      await server.stop();
    }
  }, SLOW);
});

describe('README: A first API', () => {
  it('answers 200 to the curl printed under it, with the body shown', async () => {
    const blocks = sectionBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'), 'README.md', 'A first API');
    const [setup, program, start, session] = blocks;
    expect(blocks.map((b) => b.lang)).toEqual(['sh', 'ts', 'sh', 'console']);
    // The install line names the tarball `npm pack` writes; installing it
    // again is skipped: the directory sits inside the project that has it.
    expect(setup!.code).toContain(`npm install ../trestle/${basename(pkg.tarball)}\n`);
    const dir = join(pkg.project, 'first-api');
    mkdirSync(dir);
    await runOk('sh', ['-c', setup!.code.split('\n').filter((l) => !l.startsWith('npm install ')).join('\n')], { cwd: dir });
    writeFileSync(join(dir, 'app.ts'), program!.code);
    expect(start!.code).toBe('npx tsx app.ts\n');
    const server = await startServer('npx', ['tsx', 'app.ts'], { cwd: dir, env: cleanEnv({ PORT: '0' }) });
    try {
      const [command, ...shown] = session!.code.trimEnd().split('\n');
      expect(command).toMatch(/^\$ curl /);
      // Only the port differs: tests listen on a free one.
      const args = command!.slice('$ curl '.length).split(' ').map((a) => a.replace('http://127.0.0.1:8000/', `${server.origin}/`));
      const curl = await runOk('curl', ['--silent', '--show-error', '--write-out', '\n%{http_code}', ...args], { cwd: dir });
      const [body, status] = [curl.stdout.slice(0, curl.stdout.lastIndexOf('\n')), curl.stdout.slice(curl.stdout.lastIndexOf('\n') + 1)];
      expect(status).toBe('200');
      expect(body).toBe(shown.join('\n'));
    } finally {
      await server.stop();
    }
  }, SLOW);
});

// Every ```ts block of README.md and docs/*.md compiles against the packed
// package as a module of its own; ```ts fragment blocks are skipped, and
// ```ts runnable blocks are run and must print the ```text block after them.
describe('documentation code blocks', () => {
  const all = documentationBlocks(REPO);
  const typescript = all.filter((b) => b.lang === 'ts');
  const checked = typescript.filter((b) => !b.flags.includes('fragment'));
  const runnable = typescript.filter((b) => b.flags.includes('runnable'));

  it('use only the known flags', () => {
    const unknown = typescript.filter((b) => b.flags.some((f) => f !== 'fragment' && f !== 'runnable'));
    expect(unknown.map((b) => `${b.file}:${b.line - 1} ${b.flags.join(' ')}`)).toEqual([]);
  });

  it('type-check against the installed package, except fragments', async () => {
    const dir = join(pkg.project, 'docs-check');
    mkdirSync(dir, { recursive: true });
    const byName = new Map(checked.map((b) => [blockFileName(b), b]));
    for (const [name, block] of byName) writeFileSync(join(dir, name), block.code);
    // One program for all blocks, except that a block augmenting the package's
    // types (\`declare module 'trestle'\`) gets a program of its own, as an app would.
    const augmenting = [...byName.keys()].filter((name) => /declare module ['"]trestle['"]/.test(byName.get(name)!.code));
    const programs = [[...byName.keys()].filter((name) => !augmenting.includes(name)), ...augmenting.map((name) => [name])];
    const errors: string[] = [];
    const codes: Array<number | null> = [];
    for (const [i, files] of programs.entries()) {
      writeFileSync(
        join(dir, `tsconfig.${i}.json`),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2023',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            moduleDetection: 'force',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files,
        }),
      );
      const result = await run(join(pkg.project, 'node_modules', '.bin', 'tsc'), ['-p', `tsconfig.${i}.json`, '--pretty', 'false'], { cwd: dir });
      codes.push(result.code);
      // Errors point at the Markdown line: "docs/core.md:58: error TS2304: …".
      for (const line of (result.stdout + result.stderr).split('\n')) {
        const match = /^(\S+\.ts)\((\d+),\d+\): (error.*)$/.exec(line);
        if (!match) continue;
        const block = byName.get(match[1]!);
        errors.push(block ? `${block.file}:${block.line + Number(match[2]) - 1}: ${match[3]}` : line);
      }
    }
    expect(errors).toEqual([]);
    expect(codes.every((code) => code === 0)).toBe(true);
  }, SLOW);

  it('runnable blocks print what the docs show', async () => {
    expect(runnable.length).toBeGreaterThan(0);
    const dir = join(pkg.project, 'docs-check');
    mkdirSync(dir, { recursive: true });
    for (const block of runnable) {
      const output = all[all.indexOf(block) + 1];
      expect(output?.lang, `${block.file}:${block.line - 1}: a runnable block is followed by its output in a text block`).toBe('text');
      const name = `run-${blockFileName(block)}`;
      writeFileSync(join(dir, name), block.code);
      const result = await run(process.execPath, ['--import', 'tsx', name], { cwd: dir, env: cleanEnv({ SECRET_KEY }) });
      expect({ where: `${block.file}:${block.line - 1}`, stdout: result.stdout, stderr: result.stderr, code: result.code }).toEqual({
        where: `${block.file}:${block.line - 1}`,
        stdout: output!.code,
        stderr: '',
        code: 0,
      });
    }
  }, SLOW);
});
