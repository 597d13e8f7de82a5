// Trestle as a dependency: packed with `npm pack`, installed into a project
// outside the repository, used the way the README says. One pack and one
// install for the whole file (see installed.ts).
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, packAndInstall, REPO, runOk, run, startServer, type InstalledPackage, type Server } from './installed.js';

const SECRET_KEY = 'package-test-secret-key-0123456789abcdef';

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
       console.log(JSON.stringify({
         createApp: typeof trestle.createApp,
         apiError: typeof trestle.ApiError,
         main: typeof main,
         url: import.meta.resolve('trestle'),
       }));\n`,
    );
    const result = await runOk(process.execPath, ['check-import.js'], { cwd: pkg.project });
    const seen = JSON.parse(result.stdout) as Record<string, string>;
    expect(seen).toMatchObject({ createApp: 'function', apiError: 'function', main: 'function' });
    expect(seen['url']).toBe(`file://${join(pkg.project, 'node_modules', 'trestle', 'dist', 'index.js')}`);
  });

  it('type-checks a consumer with skipLibCheck: false (published types need only runtime dependencies)', async () => {
    writeFileSync(
      join(pkg.project, 'consumer.ts'),
      `import { createApp, openDatabase, path, APIView, NotFound, type ApiRequest, type OpenDatabaseOptions } from 'trestle';
       class Thing extends APIView {
         async get(req: ApiRequest) {
           if (req.query['missing']) throw new NotFound();
           return { ok: true };
         }
       }
       const options: OpenDatabaseOptions = { pgPool: { max: 2 } };
       export const database = await openDatabase('sqlite::memory:', options);
       export const app = await createApp({ routes: [path('thing/', Thing)] });\n`,
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
  });

  // Installed from the tarball, and linked to this checkout (`npm link`, a
  // `file:` dependency), where src/ sits beside dist/: the CLI must still load
  // the copy the project's `import 'trestle'` loads, or ApiError subclasses
  // fail `instanceof` and every 401/403/404/405 becomes a 500.
  describe.each([
    { layout: 'installed from the tarball', linked: false },
    { layout: 'linked to the checkout', linked: true },
  ])('trestle serve on a project that imports "trestle", $layout', ({ linked }) => {
    let server: Server;
    const env = cleanEnv({ SECRET_KEY });

    beforeAll(async () => {
      const dir = linked ? join(pkg.root, 'linked') : join(pkg.project, 'served');
      mkdirSync(dir, { recursive: true });
      let trestle = join(pkg.project, 'node_modules', '.bin', 'trestle');
      if (linked) {
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'linked', private: true, type: 'module' }));
        mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
        symlinkSync(REPO, join(dir, 'node_modules', 'trestle'));
        symlinkSync('../trestle/bin/trestle.js', join(dir, 'node_modules', '.bin', 'trestle'));
        trestle = join(dir, 'node_modules', '.bin', 'trestle');
      }
      writeFileSync(join(dir, 'trestle.config.ts'), SERVED_PROJECT);
      await runOk(trestle, ['migrate'], { cwd: dir, env });
      server = await startServer(trestle, ['serve', '--port', '0'], { cwd: dir, env });
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('answers 401 with WWW-Authenticate from TokenAuthentication', async () => {
      const res = await fetch(`${server.origin}/private/`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Token');
      expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it('answers 403 when the first scheme (session) has no challenge', async () => {
      const res = await fetch(`${server.origin}/members/`);
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    });

    it('answers 404 for NotFound raised by the project and for an unknown path', async () => {
      for (const url of [`${server.origin}/missing/`, `${server.origin}/no-such-route/`]) {
        const res = await fetch(url);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ detail: 'Not found.' });
      }
    });

    it('answers 405 with Allow for a method the view does not have', async () => {
      const res = await fetch(`${server.origin}/read-only/`, { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(await res.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
    });
  });
});
