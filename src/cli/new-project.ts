import { detectChanges } from '../models/autodetector.js';
import { field } from '../models/fields.js';
import { model } from '../models/model.js';
import { EMPTY_STATE } from '../models/state.js';
import { writeMigration } from '../models/writer.js';

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
      // The migrations must hold the models (makemigrations --check exits 1 when they do not), then the tests.
      test: 'trestle makemigrations --check && node --import tsx --test test/*.test.ts',
      makemigrations: 'trestle makemigrations',
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
    'src/notes.ts': NOTES,
    'migrations/0001_initial.ts': initialMigration(),
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
import { Note } from './src/notes.js';
import { routes } from './src/routes.js';

export default defineProject({
  settings: {
    // Sessions (the browsable API's login), Basic, and \`Authorization: Token <key>\`.
    DEFAULT_AUTHENTICATION_CLASSES: [SessionAuthentication, BasicAuthentication, TokenAuthentication],
    DEFAULT_PAGINATION_CLASS: PageNumberPagination,
    PAGE_SIZE: 20,
  },
  routes,
  // \`trestle makemigrations\` compares these with the files of migrationsDir and writes the next one.
  models: [Note],
  migrationsDir: 'migrations',
  commands: [addNote],
  databaseUrl: 'sqlite:./data/db.sqlite3',
});
`;

const COMMANDS = `import { CliError, defineCommand } from 'trestle';
import { Note } from './notes.js';

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
    // insertValues fills what the model fills on save (created, as autoNowAdd).
    const note = await db.insertInto('notes_note').values(Note.insertValues({ title, body })).returning('id').executeTakeFirstOrThrow();
    ctx.print(String(note.id));
    return 0;
  },
});
`;

/** The note model as `src/notes.ts` declares it, for writing the first migration. */
function noteModel() {
  return model(
    'notes_note',
    {
      title: field.char({ maxLength: 200 }),
      body: field.text({ blank: true, default: '' }),
      created: field.datetime({ autoNowAdd: true }),
    },
    { ordering: ['id'] },
  );
}

/** `migrations/0001_initial.ts`, as `trestle makemigrations` writes it for the note model. */
function initialMigration(): string {
  return writeMigration(detectChanges(EMPTY_STATE, [noteModel()]), { dependencies: [] });
}

const NOTES = `import { IsAuthenticatedOrReadOnly, ModelViewSet, field, model, modelSerializer, type DatabaseOf } from 'trestle';

/**
 * A note, declared once: its table and columns (\`trestle makemigrations\`
 * writes the migration from this), its row types, and the rules the
 * serializer derives (200 characters at most, a body that may be blank,
 * a creation time set on insert).
 */
export const Note = model(
  'notes_note',
  {
    title: field.char({ maxLength: 200 }),
    body: field.text({ blank: true, default: '' }),
    created: field.datetime({ autoNowAdd: true }),
  },
  { ordering: ['id'] },
);

// The app's tables, declared once: \`req.app.services.get('db')\` is a Kysely over them.
declare module 'trestle' {
  interface AppTypes {
    database: DatabaseOf<[typeof Note]>;
  }
}

/** What a note accepts and how it renders (also its OpenAPI schema), derived from the model. */
export const NoteSerializer = modelSerializer(Note, {
  hyperlinked: true,
  fields: ['url', 'id', 'title', 'body', 'created'],
});

/**
 * Notes: anyone may read, signed-in users may write.
 *
 *     GET  /api/notes/              {"count": …, "next": …, "previous": …, "results": [...]}
 *     POST /api/notes/              {"title": "…", "body": "…"}
 *     GET|PUT|PATCH|DELETE /api/notes/1/
 */
export class NoteViewSet extends ModelViewSet {
  override model = Note;
  override serializer = NoteSerializer;
  override permissionClasses = [IsAuthenticatedOrReadOnly];
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
  database = await testDatabase({ project: 'trestle.config.ts' });
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

\`trestle.config.ts\` lists the settings, routes, models and commands;
\`src/notes.ts\` is the resource: the \`Note\` model, the serializer derived
from it and its viewset. \`migrations/\` holds what \`npm run makemigrations\`
writes from the models (add a field to \`Note\`, run it, then
\`npm run migrate\`); \`npm test\` fails while a model change has no
migration. \`src/commands.ts\` has the project's own \`trestle\` commands:

\`\`\`sh
npx trestle help                       # Trestle's commands, then the project's
npx trestle addnote "Buy milk"         # prints the new note's id
\`\`\`
`;
}
