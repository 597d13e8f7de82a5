import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { testDatabases, type TestDatabaseUrl } from '../helpers/databases.js';

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;

/** A project with a task table, and `list` as the body of its list view class. */
function projectSource(list: string, settings = '{}'): string {
  return `import { defineProject, path, ListAPIView, RetrieveAPIView, OrderingFilter, SearchFilter, FilterSetBackend, CursorPagination, serializer, string, hyperlinkedIdentity } from '${TRESTLE}';
import type { Kysely } from 'kysely';
const db = (req: any) => req.app.services.get('db');
class TaskCursor extends CursorPagination { override ordering: string | string[] = '-created'; override pageSize = 10; }
class TaskList extends ListAPIView {
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  override paginationClass = TaskCursor;
  override getQueryset(req: any) { return db(req).selectFrom('task').selectAll(); }
  ${list}
}
class TaskDetail extends RetrieveAPIView { override getQueryset(req: any) { return db(req).selectFrom('task').selectAll(); } }
export default defineProject({
  settings: ${settings},
  routes: [path('tasks/', TaskList, { name: 'task-list' }), path('tasks/<int:pk>/', TaskDetail, { name: 'task-detail' })],
  migrations: {
    '0001_task': {
      async up(db: Kysely<any>) {
        await db.schema.createTable('task').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'varchar(100)').addColumn('created', 'varchar(32)').execute();
      },
    },
  },
});
`;
}

const CORRECT = `orderingFields = ['title', 'created']; searchFields = ['title']; filtersetFields = ['title'];
  override serializer = serializer({ url: hyperlinkedIdentity({ viewName: 'task-detail' }), title: string() });`;
const MISSPELT = `orderingFields = ['titel', 'created']; searchFields = ['titel']; filtersetFields = ['title'];
  override serializer = serializer({ url: hyperlinkedIdentity({ viewName: 'task-detial' }), title: string() });`;

const SECURE = `{ SECRET_KEY: 'k7Qp2xV9mZ4rT8wB1nC6yH3jL5sD0fG2aE9uI4oP7qR1tY6wX3zK8vN5bM2cJ0hF', DEBUG: false,
  ALLOWED_HOSTS: ['api.example.com'], SESSION_COOKIE_SECURE: true, CSRF_COOKIE_SECURE: true }`;

const REPORT_LINES = [
  "TaskList at /tasks/ (name 'task-list'): (ordering.E001) 'orderingFields' refers to 'titel', but table 'task' has no column 'titel'.",
  "\tHINT: Did you mean 'title'?",
  "TaskList at /tasks/ (name 'task-list'): (search.E001) 'searchFields' refers to 'titel', but table 'task' has no column 'titel'.",
  "\tHINT: Did you mean 'title'?",
  "TaskList at /tasks/ (name 'task-list'): (serializers.E001) 'serializer' field 'url' links to the view name 'task-detial', which no route has.",
  "\tHINT: Did you mean 'task-detail'?",
];

describe.each(testDatabases())('trestle check on $name', ({ freshUrl }) => {
  let dir: string;
  let database: TestDatabaseUrl;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-check-'));
    database = await freshUrl();
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.cleanup();
  });

  /** `trestle <argv>` in-process, with `env` as its whole environment. */
  function trestle(argv: string[], env: Record<string, string> = {}) {
    return runMain(argv, { cwd: dir, env: { DATABASE_URL: database.url, LOG_LEVEL: 'silent', ...env } });
  }

  function project(list: string, settings?: string, file = 'trestle.config.ts'): void {
    writeFileSync(join(dir, file), projectSource(list, settings));
  }

  it('a correct project: one line on stdout, exit 0', async () => {
    project(CORRECT);
    const migrated = await trestle(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stderr).toBe('');
    const r = await trestle(['check']);
    expect(r).toEqual({ code: 0, stdout: 'System check identified no issues (0 silenced).\n', stderr: '' });
  });

  it('misspelt names: the report on stderr, exit 1; serve and migrate refuse too', async () => {
    project(CORRECT);
    expect((await trestle(['migrate'])).code).toBe(0);
    // A second file: a module, once imported, stays as it was in this process.
    project(MISSPELT, undefined, 'misspelt.config.ts');
    const config = ['--config', 'misspelt.config.ts'];
    const r = await trestle(['check', ...config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      ['SystemCheckError: System check identified some issues:', '', 'ERRORS:', ...REPORT_LINES, '', 'System check identified 3 issues (0 silenced).', ''].join('\n'),
    );

    const served = await trestle(['serve', '--port', '0', ...config]);
    expect(served.code).toBe(1);
    expect(served.stdout).toBe('');
    expect(served.stderr).toBe(['SystemCheckError: System check identified some issues:', '', 'ERRORS:', ...REPORT_LINES, ''].join('\n'));

    const migrating = await trestle(['migrate', ...config]);
    expect(migrating.code).toBe(1);
    expect(migrating.stdout).toBe('');
    expect(migrating.stderr).toBe(['SystemCheckError: System check identified some issues:', '', 'ERRORS:', ...REPORT_LINES, ''].join('\n'));
    const skipped = await trestle(['migrate', '--skip-checks', ...config]);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain('No migrations to apply.');
  });

  it('before the tables exist nothing about them is known: migrate runs', async () => {
    project(MISSPELT.replace("'task-detial'", "'task-detail'"));
    const r = await trestle(['migrate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Applying app.0001_task... OK');
  });

  it('SILENCED_SYSTEM_CHECKS hides messages by id and counts them', async () => {
    project(MISSPELT, "{ SILENCED_SYSTEM_CHECKS: ['ordering.E001', 'search.E001', 'serializers.E001'] }");
    expect((await trestle(['migrate'])).code).toBe(0);
    const r = await trestle(['check']);
    expect(r).toEqual({ code: 0, stdout: 'System check identified no issues (3 silenced).\n', stderr: '' });
  });

  it('a cursor ordering of -creatd is reported with its did-you-mean', async () => {
    writeFileSync(
      join(dir, 'trestle.config.ts'),
      projectSource(CORRECT).replace("override ordering: string | string[] = '-created'", "override ordering: string | string[] = '-creatd'"),
    );
    expect((await trestle(['migrate', '--skip-checks'])).code).toBe(0);
    const r = await trestle(['check', '--tag', 'views']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        'SystemCheckError: System check identified some issues:',
        '',
        'ERRORS:',
        "TaskList at /tasks/ (name 'task-list'): (pagination.E001) 'TaskCursor.ordering' refers to '-creatd', but table 'task' has no column 'creatd'.",
        "\tHINT: Did you mean 'created'?",
        '',
        'System check identified 1 issue (0 silenced).',
        '',
      ].join('\n'),
    );
  });
});

describe('trestle check --deploy', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-check-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function trestle(argv: string[], env: Record<string, string> = {}) {
    return runMain(argv, { cwd: dir, env: { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`, LOG_LEVEL: 'silent', ...env } });
  }

  const W009 =
    "?: (security.W009) Your SECRET_KEY has less than 50 characters or less than 5 unique characters, or it is not set (the development key in data/secret_key is used). Please generate a long and random SECRET_KEY, otherwise many of Trestle's security-critical features (tokens, sessions, cursors) will be vulnerable to attack.";
  const W012 =
    '?: (security.W012) SESSION_COOKIE_SECURE is not set to True. Using a secure-only session cookie makes it more difficult for network traffic sniffers to hijack user sessions.';
  const W016 =
    '?: (security.W016) You have not set CSRF_COOKIE_SECURE to True. Using a secure-only CSRF cookie makes it more difficult for network traffic sniffers to steal the CSRF token.';
  const W018 = '?: (security.W018) You should not have DEBUG set to True in deployment.';

  it('flags an insecure configuration as warnings (exit 0), failing at --fail-level WARNING', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), projectSource(CORRECT, '{ DEBUG: true }'));
    const r = await trestle(['check', '--deploy']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(['System check identified some issues:', '', 'WARNINGS:', W009, W012, W016, W018, '', 'System check identified 4 issues (0 silenced).', ''].join('\n'));
    const strict = await trestle(['check', '--deploy', '--fail-level', 'WARNING']);
    expect(strict.code).toBe(1);
    expect(strict.stderr.startsWith('SystemCheckError: System check identified some issues:\n\nWARNINGS:\n')).toBe(true);
    // Without --deploy the same project has nothing to say.
    expect(await trestle(['check'])).toEqual({ code: 0, stdout: 'System check identified no issues (0 silenced).\n', stderr: '' });
  });

  it('a short SECRET_KEY from the environment and an empty ALLOWED_HOSTS', async () => {
    writeFileSync(
      join(dir, 'trestle.config.ts'),
      projectSource(CORRECT, "{ DEBUG: false, ALLOWED_HOSTS: [], SESSION_COOKIE_SECURE: true, CSRF_COOKIE_SECURE: true, SILENCED_SYSTEM_CHECKS: ['security.W018'] }"),
    );
    const r = await trestle(['check', '--deploy'], { SECRET_KEY: 'short-but-set' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      [
        'System check identified some issues:',
        '',
        'WARNINGS:',
        "?: (security.W009) Your SECRET_KEY has less than 50 characters or less than 5 unique characters. Please generate a long and random SECRET_KEY, otherwise many of Trestle's security-critical features (tokens, sessions, cursors) will be vulnerable to attack.",
        '?: (security.W020) ALLOWED_HOSTS must not be empty in deployment.',
        '',
        'System check identified 2 issues (0 silenced).',
        '',
      ].join('\n'),
    );
  });

  it('a deployment-ready configuration has no issue', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), projectSource(CORRECT, SECURE));
    expect(await trestle(['check', '--deploy'])).toEqual({ code: 0, stdout: 'System check identified no issues (0 silenced).\n', stderr: '' });
  });

  it('--help, a bad fail level and an unknown tag', async () => {
    const help = await trestle(['check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: trestle check \[--deploy\] \[--tag T \.\.\.\] \[--fail-level ERROR\] \[--list-tags\]\n/);
    expect(help.stdout).toContain('--deploy ');
    expect(await trestle(['check', '--fail-level', 'LOUD'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'trestle check: Invalid fail level "LOUD": use CRITICAL, ERROR, WARNING, INFO or DEBUG.\n',
    });
    expect(await trestle(['check', '--tag', 'models'])).toEqual({ code: 2, stdout: '', stderr: 'trestle check: There is no system check with the "models" tag.\n' });
    expect(await trestle(['check', '--list-tags', '--deploy'])).toEqual({ code: 0, stdout: 'database\nsecurity\nurls\nviews\n', stderr: '' });
  });
});
