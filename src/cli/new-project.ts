// The files `trestle new <name>` writes: a small project with one resource
// (notes), its migration and a test, runnable with `npm start` / `npm test`.

/** What the templates need to know. */
export interface NewProjectOptions {
  /** The npm package name (and directory name). */
  name: string;
  /** How package.json depends on Trestle (`^0.1.0`, `file:../trestle-0.1.0.tgz`, a git URL). */
  trestleSpec: string;
  /** Version ranges of the tools the project uses, taken from Trestle's own package.json. */
  tsx: string;
  typescript: string;
  typesNode: string;
}

/** Relative path → file contents. */
export function newProjectFiles(options: NewProjectOptions): Record<string, string> {
  const packageJson = {
    name: options.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      start: 'trestle migrate && trestle serve',
      dev: 'trestle migrate && trestle dev',
      migrate: 'trestle migrate',
      test: 'node --import tsx --test test/*.test.ts',
      typecheck: 'tsc --noEmit',
    },
    dependencies: {
      trestle: options.trestleSpec,
      tsx: options.tsx,
    },
    devDependencies: {
      '@types/node': options.typesNode,
      typescript: options.typescript,
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    },
    include: ['trestle.config.ts', 'src', 'test'],
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndata/\n',
    'trestle.config.ts': CONFIG,
    'src/migrations.ts': MIGRATIONS,
    'src/notes.ts': NOTES,
    'src/routes.ts': ROUTES,
    'src/commands.ts': COMMANDS,
    'test/notes.test.ts': TEST,
    'README.md': readme(options.name),
  };
}

const CONFIG = `// The project \`trestle\` works on: \`trestle migrate\`, \`trestle serve\`,
// \`trestle createsuperuser\`, \`trestle token <username>\`.
import {
  defineProject,
  BasicAuthentication,
  PageNumberPagination,
  SessionAuthentication,
  TokenAuthentication,
} from 'trestle';
import { addNote } from './src/commands.js';
import { migrations } from './src/migrations.js';
import { routes } from './src/routes.js';

export default defineProject({
  settings: {
    // Sessions (the browsable API's login), Basic, and \`Authorization: Token <key>\`.
    DEFAULT_AUTHENTICATION_CLASSES: [SessionAuthentication, BasicAuthentication, TokenAuthentication],
    DEFAULT_PAGINATION_CLASS: PageNumberPagination,
    PAGE_SIZE: 20,
  },
  routes,
  migrations,
  commands: [addNote],
  databaseUrl: 'sqlite:./data/db.sqlite3',
});
`;

const COMMANDS = `import { CliError, defineCommand } from 'trestle';

/**
 * The project's own commands, listed by \`npx trestle help\`:
 *
 *     npx trestle addnote "Buy milk" --body "Two litres"     # prints the new note's id
 */
export const addNote = defineCommand({
  name: 'addnote',
  summary: 'Add a note from the command line and print its id.',
  usage: 'addnote <title> [--body TEXT]',
  help: ["--body TEXT   the note's text (default: empty)"],
  options: { body: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const title = args.positionals[0]!.trim();
    if (title === '' || title.length > 200) throw new CliError('The title must have 1 to 200 characters.');
    const body = typeof args.values['body'] === 'string' ? args.values['body'] : '';
    const { db } = await ctx.services();
    const note = await db
      .insertInto('notes')
      .values({ title, body, created: new Date().toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    ctx.print(String(note.id));
    return 0;
  },
});
`;

const MIGRATIONS = `import type { Kysely, Migration } from 'kysely';
import { addIdColumn, timestampType } from 'trestle';

/** The project's tables; \`trestle migrate\` applies them after Trestle's own. */
export const migrations: Record<string, Migration> = {
  '0001_notes': {
    async up(db: Kysely<unknown>): Promise<void> {
      await addIdColumn(db, db.schema.createTable('notes'))
        .addColumn('title', 'varchar(200)', (col) => col.notNull())
        .addColumn('body', 'text', (col) => col.notNull().defaultTo(''))
        .addColumn('created', timestampType(db), (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('notes').execute();
    },
  },
};
`;

const NOTES = `import type { ColumnType, Generated, Selectable } from 'kysely';
import {
  ModelViewSet,
  IsAuthenticatedOrReadOnly,
  serializer,
  datetime,
  hyperlinkedIdentity,
  integer,
  string,
  type ApiRequest,
  type Infer,
} from 'trestle';

export interface NoteTable {
  id: Generated<number>;
  title: string;
  body: string;
  /** timestamptz on PostgreSQL (read as a Date), ISO-8601 text on SQLite; written as ISO-8601 text. */
  created: ColumnType<Date | string, string, string>;
}

export interface Tables {
  notes: NoteTable;
}

export type Note = Selectable<NoteTable>;

// The app's tables, declared once: \`req.app.services.get('db')\` is a Kysely<Tables>.
declare module 'trestle' {
  interface AppTypes {
    database: Tables;
  }
}

function db(req: ApiRequest) {
  return req.app.services.get('db');
}

/** What a note accepts and how it renders (also its OpenAPI schema). */
export const NoteSerializer = serializer(
  {
    url: hyperlinkedIdentity({ viewName: 'note-detail' }),
    id: integer({ readOnly: true }),
    title: string({ maxLength: 200 }),
    body: string({ required: false, allowBlank: true }),
    created: datetime({ readOnly: true }),
  },
  { name: 'Note' },
);
type NoteInput = Infer<typeof NoteSerializer>['input'];

/**
 * Notes: anyone may read, signed-in users may write.
 *
 *     GET  /api/notes/              {"count": …, "next": …, "previous": …, "results": [...]}
 *     POST /api/notes/              {"title": "…", "body": "…"}
 *     GET|PUT|PATCH|DELETE /api/notes/1/
 */
export class NoteViewSet extends ModelViewSet<Note, typeof NoteSerializer> {
  override permissionClasses = [IsAuthenticatedOrReadOnly];
  override serializer = NoteSerializer;

  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('notes').selectAll().orderBy('id');
  }

  override async performCreate(req: ApiRequest, data: NoteInput): Promise<Note> {
    return db(req)
      .insertInto('notes')
      .values({ title: data.title, body: data.body ?? '', created: new Date().toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  override async performUpdate(req: ApiRequest, note: Note, data: Partial<NoteInput>): Promise<Note> {
    const changes: { title?: string; body?: string } = {};
    if (data.title !== undefined) changes.title = data.title;
    if (data.body !== undefined) changes.body = data.body;
    if (Object.keys(changes).length === 0) return note;
    return db(req).updateTable('notes').set(changes).where('id', '=', note.id).returningAll().executeTakeFirstOrThrow();
  }

  override async performDestroy(req: ApiRequest, note: Note): Promise<void> {
    await db(req).deleteFrom('notes').where('id', '=', note.id).execute();
  }
}
`;

const ROUTES = `import { DefaultRouter, include, path, authRoutes, obtainAuthToken, type RouteEntry } from 'trestle';
import { NoteViewSet } from './notes.js';

const router = new DefaultRouter();
router.register('notes', NoteViewSet, { basename: 'note' });

export const routes: RouteEntry[] = [
  include('api/', router),
  path('api-token-auth/', obtainAuthToken, { name: 'api-token-auth' }),
  authRoutes(),
];
`;

const TEST = `import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp, KyselyUserStore, type TrestleApp, type UserRecord } from 'trestle';
import { APIClient, testDatabase, type TestDatabase } from 'trestle/test';
import project from '../trestle.config.js';

/** A note as the API renders it. */
interface NoteBody {
  url: string;
  id: number;
  title: string;
  body: string;
  created: string;
}

let database: TestDatabase;
let app: TrestleApp;
let alice: UserRecord;

before(async () => {
  // A fresh database, migrated as \`trestle migrate\` would: SQLite in memory, or a
  // schema of its own (dropped afterwards) when DATABASE_URL names PostgreSQL.
  database = await testDatabase({ project });
  const users = new KyselyUserStore(database.db);
  alice = await users.createUser({ username: 'alice', password: 'correct horse battery staple' });
  app = await createApp({
    settings: project.settings ?? {},
    routes: project.routes ?? [],
    database,
    users,
    logger: false,
  });
});

after(async () => {
  await app.close();
  await database.close();
});

/** A client that sends JSON bodies and is logged in as alice (a session, as the browsable API's login makes). */
async function signedIn(): Promise<APIClient> {
  const client = new APIClient(app, { format: 'json' });
  assert.equal(await client.login({ username: 'alice', password: 'correct horse battery staple' }), true);
  return client;
}

test('anyone lists notes, in pages', async () => {
  const res = await new APIClient(app).get('/api/notes/');
  assert.equal(res.status, 200);
  assert.deepEqual(res.data, { count: 0, next: null, previous: null, results: [] });
});

test('writing needs credentials', async () => {
  const res = await new APIClient(app, { format: 'json' }).post('/api/notes/', { title: 'Hello' });
  assert.equal(res.status, 403);
  assert.deepEqual(res.data, { detail: 'Authentication credentials were not provided.' });
});

test('a signed-in user creates a note and reads it back', async () => {
  const client = await signedIn();
  const created = await client.post<NoteBody>('/api/notes/', { title: 'Hello', body: 'First note.' });
  assert.equal(created.status, 201);
  const note = created.data;
  assert.equal(note.title, 'Hello');
  assert.equal(note.body, 'First note.');
  assert.equal(created.headers['location'], note.url);

  const read = await client.get<NoteBody>(\`/api/notes/\${note.id}/\`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.data, note);
});

test('a missing title is a 400 naming the field', async () => {
  // Token authentication this time: credentials() sets headers for every request.
  const { token } = await app.trestle.services.get('tokens').getOrCreate(alice);
  const client = new APIClient(app, { format: 'json' });
  client.credentials({ Authorization: \`Token \${token.key}\` });
  const res = await client.post('/api/notes/', {});
  assert.equal(res.status, 400);
  assert.deepEqual(res.data, { title: ['This field is required.'] });
});
`;

function readme(name: string): string {
  return `# ${name}

A Trestle API with one resource, \`/api/notes/\`.

\`\`\`sh
npm install
npm start          # migrates ./data/db.sqlite3, serves http://127.0.0.1:8000/
npm run dev        # the same, restarted whenever a file of the project changes
npm test           # the tests in test/
npm run typecheck
\`\`\`

With the server running, in another terminal:

\`\`\`sh
curl http://127.0.0.1:8000/api/notes/
# Asks for the password on a terminal; from a script, pipe it in with --password-stdin:
printf '%s\\n' 'correct horse battery staple' | npx trestle createsuperuser --username admin --email admin@example.com --password-stdin
KEY=$(npx trestle token admin)      # the user's API token, created on first use
curl -H "Authorization: Token $KEY" -H "Content-Type: application/json" \\
     -d '{"title": "Hello"}' http://127.0.0.1:8000/api/notes/
\`\`\`

\`trestle.config.ts\` lists the settings, routes, migrations and commands;
\`src/notes.ts\` is the resource, \`src/migrations.ts\` its table,
\`src/commands.ts\` the project's own \`trestle\` commands:

\`\`\`sh
npx trestle help                       # Trestle's commands, then the project's
npx trestle addnote "Buy milk"         # prints the new note's id
\`\`\`
`;
}
