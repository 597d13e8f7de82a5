import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AllowAny,
  APIView,
  BasicAuthentication,
  IsAdminUser,
  IsAuthenticated,
  IsAuthenticatedOrReadOnly,
  and,
  createApp,
  not,
  or,
  path,
  type Permission,
} from '../../src/index.js';
import { SchemaView } from '../../src/schema/schema-view.js';
import type { OpenAPIDocument } from '../../src/schema/types.js';
import { runTrestle, type CliResult } from '../helpers/cli.js';

const REPO = resolve(import.meta.dirname, '../..');

/** A permission that answers only asynchronously: the generator cannot know, so credentials stay required. */
class AsyncAllow implements Permission {
  async hasPermission(): Promise<boolean> {
    return true;
  }
}

function view(permissions: Array<new (...args: never[]) => Permission>) {
  return class extends APIView {
    override authenticationClasses = [BasicAuthentication];
    override permissionClasses = permissions as APIView['permissionClasses'];
    get() {
      return {};
    }
    post() {
      return {};
    }
  };
}

describe('security: operations that admit anonymous users list {}', () => {
  let doc: OpenAPIDocument;
  beforeAll(async () => {
    const app = await createApp({
      logger: false,
      routes: [
        path('openapi.json', new SchemaView()),
        path('any/', view([AllowAny])),
        path('read-only/', view([IsAuthenticatedOrReadOnly])),
        path('anonymous-only/', view([not(IsAuthenticated)])),
        path('staff-or-read-only/', view([or(IsAdminUser, IsAuthenticatedOrReadOnly)])),
        path('both/', view([and(AllowAny, IsAuthenticatedOrReadOnly)])),
        path('signed-in/', view([IsAuthenticated])),
        path('not-any/', view([not(AllowAny)])),
        path('async/', view([AsyncAllow])),
        path('not-async/', view([not(AsyncAllow)])),
      ],
    });
    const res = await app.inject({ url: '/openapi.json' });
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    doc = res.json() as OpenAPIDocument;
  });

  const open = [{ basicAuth: [] }, {}];
  const closed = [{ basicAuth: [] }];
  it.each([
    ['/any/', open, open],
    ['/read-only/', open, closed],
    ['/anonymous-only/', open, open],
    ['/staff-or-read-only/', open, closed],
    ['/both/', open, closed],
    ['/signed-in/', closed, closed],
    ['/not-any/', closed, closed],
    ['/async/', closed, closed],
    ['/not-async/', closed, closed],
  ])('%s', (route, get, post) => {
    expect(doc.paths[route]!.get!.security).toEqual(get);
    expect(doc.paths[route]!.post!.security).toEqual(post);
  });
});

describe('trestle openapi on the example project', () => {
  let dir: string;
  let result: CliResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-openapi-'));
    // The example project with PAGE_SIZE and no DEFAULT_PAGINATION_CLASS, so that it starts with DRF's W001 warning.
    const config = join(dir, 'trestle.config.ts');
    writeFileSync(config, `import project from ${JSON.stringify(join(REPO, 'trestle.config.ts'))};
export default { ...project, settings: { ...project.settings, PAGE_SIZE: 20 } };
`);
    // A real process: the app's logger writes to the process's file descriptors.
    result = await runTrestle(['openapi', '--config', config], { cwd: REPO, env: { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`, LOG_LEVEL: 'info' } });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the document alone to stdout, and the start-up warning to stderr', () => {
    expect(result.code, result.stderr).toBe(0);
    // PAGE_SIZE without DEFAULT_PAGINATION_CLASS (DRF's W001), logged while the app is made.
    expect(result.stderr).toContain('PAGE_SIZE');
    expect(result.stdout).not.toContain('PAGE_SIZE');
    const doc = JSON.parse(result.stdout) as OpenAPIDocument;
    expect(doc.openapi).toBe('3.1.0');
    const schemes = [{ cookieAuth: [] }, { basicAuth: [] }, { tokenAuth: [] }];
    expect(doc.paths['/auth/anonymous-only/']!.get!.security).toEqual([...schemes, {}]);
    expect(doc.paths['/auth/staff-or-read-only/']!.get!.security).toEqual([...schemes, {}]);
    expect(doc.paths['/auth/staff-or-read-only/']!.post!.security).toEqual(schemes);
  });
});
