// `trestle makemigrations` through main() in-process: models declared in
// trestle.config.ts, files written into migrationsDir, then applied by
// `trestle migrate`, on SQLite and PostgreSQL.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { frameworkMigrations } from '../../src/db/migrations/index.js';
import { testDatabases, type TestDatabaseUrl } from '../helpers/databases.js';
import { runMain } from '../helpers/cli.js';

const FRAMEWORK = frameworkMigrations.map(([n]) => n);
const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;

// Each version of the models is its own config file: an imported module is not loaded twice.
function config(fields: string, extra = ''): string {
  return `import { defineProject, field, model } from '${TRESTLE}';
export const Author = model('catalogue_author', {
${fields}
});
export default defineProject({ models: [Author], migrationsDir: 'migrations'${extra} });
`;
}
const V1 = config(`  name: field.char({ maxLength: 200 }),`);
const V2 = config(`  name: field.char({ maxLength: 200 }),\n  bio: field.text({ null: true }),`);

const INITIAL = `import { createModel, field, migration } from 'trestle';

export default migration({
  operations: [
    createModel('catalogue_author', { id: field.auto(), name: field.char({ maxLength: 200 }) }),
  ],
});
`;
const BIO = `import { addField, field, migration } from 'trestle';

export default migration({
  dependencies: ['0001_initial'],
  operations: [
    addField('catalogue_author', 'bio', field.text({ null: true })),
  ],
});
`;

describe.each(testDatabases())('trestle makemigrations on $name', ({ name, freshUrl }) => {
  let dir: string;
  let target: TestDatabaseUrl;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-makemigrations-'));
    target = await freshUrl();
  });
  afterEach(async () => {
    await target.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const trestle = (...argv: string[]) => runMain(argv, { cwd: dir, env: { DATABASE_URL: target.url } });
  const migrationFile = (name: string) => join(dir, 'migrations', `${name}.ts`);
  /** The file as written, then pointed at this checkout's sources (no installed "trestle" package in a temp folder). */
  function readAndLink(name: string): string {
    const source = readFileSync(migrationFile(name), 'utf8');
    writeFileSync(migrationFile(name), source.replace("from 'trestle'", `from '${TRESTLE}'`));
    return source;
  }
  async function columns(table: string): Promise<string[]> {
    const database = await openDatabase(target.url);
    try {
      // PostgreSQL lists every schema's tables: this database is its current schema.
      const schema =
        database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s : undefined;
      const tables = await database.db.introspection.getTables();
      return tables.find((t) => t.name === table && t.schema === schema)?.columns.map((c) => c.name) ?? [];
    } finally {
      await database.close();
    }
  }

  it('writes 0001_initial, which migrate applies; a field added is 0002, applied too; --check tells each state', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), V1);
    writeFileSync(join(dir, 'v2.config.ts'), V2);

    const check0 = await trestle('makemigrations', '--check');
    expect(check0).toEqual({
      code: 1,
      stdout: "Migrations for 'app':\n  migrations/0001_initial.ts\n    - Create model catalogue_author\n",
      stderr: '',
    });
    expect(existsSync(join(dir, 'migrations'))).toBe(false);

    const dry = await trestle('makemigrations', '--dry-run');
    expect(dry).toEqual({ code: 0, stdout: check0.stdout, stderr: '' });
    expect(existsSync(join(dir, 'migrations'))).toBe(false);

    const first = await trestle('makemigrations');
    expect(first).toEqual({ code: 0, stdout: check0.stdout, stderr: '' });
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['0001_initial.ts']);
    expect(readAndLink('0001_initial')).toBe(INITIAL);

    const applied = await trestle('migrate');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('  Applying app.0001_initial... OK\n');
    expect(await columns('catalogue_author')).toEqual(['id', 'name']);

    expect(await trestle('makemigrations')).toEqual({ code: 0, stdout: 'No changes detected\n', stderr: '' });
    expect(await trestle('makemigrations', '--check')).toEqual({ code: 0, stdout: 'No changes detected\n', stderr: '' });

    // The models gain a nullable field.
    const check1 = await trestle('makemigrations', '--check', '--config', 'v2.config.ts');
    expect(check1).toEqual({
      code: 1,
      stdout: "Migrations for 'app':\n  migrations/0002_catalogue_author_bio.ts\n    - Add field bio to catalogue_author\n",
      stderr: '',
    });
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['0001_initial.ts']);

    const second = await trestle('makemigrations', '--config', 'v2.config.ts');
    expect(second).toEqual({ code: 0, stdout: check1.stdout, stderr: '' });
    expect(readAndLink('0002_catalogue_author_bio')).toBe(BIO);

    const sqlUp = await trestle('sqlmigrate', '0002', '--config', 'v2.config.ts');
    const sqlDown = await trestle('sqlmigrate', 'app', '0002_catalogue_author_bio', '--backwards', '--config', 'v2.config.ts');
    const sqlInitial = await trestle('sqlmigrate', '0001', '--config', 'v2.config.ts');
    const SQL = {
      sqlite: {
        initial: 'create table "catalogue_author" ("id" integer not null primary key autoincrement, "name" varchar(200) not null);\n',
        // SQLite rebuilds the table (Django's _remake_table).
        up:
          'create table "new__catalogue_author" ("id" integer not null primary key autoincrement, "name" varchar(200) not null, "bio" text);\n' +
          'insert into "new__catalogue_author" ("id", "name") select "id", "name" from "catalogue_author";\n' +
          'drop table "catalogue_author";\nalter table "new__catalogue_author" rename to "catalogue_author";\n',
        down:
          'create table "new__catalogue_author" ("id" integer not null primary key autoincrement, "name" varchar(200) not null);\n' +
          'insert into "new__catalogue_author" ("id", "name") select "id", "name" from "catalogue_author";\n' +
          'drop table "catalogue_author";\nalter table "new__catalogue_author" rename to "catalogue_author";\n',
      },
      postgres: {
        initial: 'create table "catalogue_author" ("id" serial not null primary key, "name" varchar(200) not null);\n',
        up: 'alter table "catalogue_author" add column "bio" text;\n',
        down: 'alter table "catalogue_author" drop column "bio";\n',
      },
    }[name];
    const bio = '--\n-- Add field bio to catalogue_author\n--\n';
    expect(sqlUp).toEqual({ code: 0, stdout: `BEGIN;\n${bio}${SQL.up}COMMIT;\n`, stderr: '' });
    expect(sqlDown).toEqual({ code: 0, stdout: `BEGIN;\n${bio}${SQL.down}COMMIT;\n`, stderr: '' });
    expect(sqlInitial).toEqual({ code: 0, stdout: `BEGIN;\n--\n-- Create model catalogue_author\n--\n${SQL.initial}COMMIT;\n`, stderr: '' });
    // Printing ran nothing.
    expect(await columns('catalogue_author')).toEqual(['id', 'name']);
    expect(await trestle('showmigrations', 'app', '--config', 'v2.config.ts')).toEqual({
      code: 0,
      stdout: 'app\n [X] 0001_initial\n [ ] 0002_catalogue_author_bio\n',
      stderr: '',
    });

    const list = await trestle('migrate', '--list', '--config', 'v2.config.ts');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('app\n [X] 0001_initial\n [ ] 0002_catalogue_author_bio\n');

    const again = await trestle('migrate', '--config', 'v2.config.ts');
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('  Applying app.0002_catalogue_author_bio... OK\n');
    expect(again.stdout).not.toContain('0001_initial');
    expect(await columns('catalogue_author')).toEqual(['id', 'name', 'bio']);
    expect(await trestle('makemigrations', '--check', '--config', 'v2.config.ts')).toEqual({ code: 0, stdout: 'No changes detected\n', stderr: '' });
    const shown = await trestle('showmigrations', '--config', 'v2.config.ts');
    expect(shown).toEqual({
      code: 0,
      stdout: `trestle\n${FRAMEWORK.map((n) => ` [X] ${n}\n`).join('')}app\n [X] 0001_initial\n [X] 0002_catalogue_author_bio\n`,
      stderr: '',
    });
  });
  it('on a terminal asks for a one-off default and about a rename; migrate refuses while the models are ahead', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), V1);
    expect((await trestle('makemigrations')).code).toBe(0);
    readAndLink('0001_initial');
    expect((await trestle('migrate')).code).toBe(0);
    const database = await openDatabase(target.url);
    try {
      await sql`insert into catalogue_author (name) values ('Ursula')`.execute(database.db);
    } finally {
      await database.close();
    }

    writeFileSync(join(dir, 'strict.config.ts'), config(`  name: field.char({ maxLength: 200 }),\n  age: field.integer(),`));
    expect(await trestle('migrate', '--config', 'strict.config.ts')).toEqual({
      code: 1,
      stdout: '',
      stderr: "trestle migrate: Your models have changes that are not yet reflected in a migration: run 'trestle makemigrations', then 'trestle migrate' again. Nothing was applied.\n",
    });

    const asked = await runMain(['makemigrations', '--config', 'strict.config.ts'], { cwd: dir, env: { DATABASE_URL: target.url }, tty: true, input: '3\n1\nforty\n42\n' });
    expect(asked).toEqual({
      code: 0,
      stdout:
        "It is impossible to add a non-nullable field 'age' to catalogue_author without specifying a default. This is because the database needs something to populate existing rows.\n" +
        'Please select a fix:\n 1) Provide a one-off default now (will be set on all existing rows)\n 2) Quit and give the field a default (or null: true) in the model\n' +
        'Select an option: Please select a valid option: ' +
        "Please enter the default value as JSON (42, \"text\", true, null …).\nType 'exit' to exit this prompt\n>>> " +
        'Invalid JSON: forty\n>>> ' +
        "Migrations for 'app':\n  migrations/0002_catalogue_author_age_alter_catalogue_author_age.ts\n    - Add field age to catalogue_author\n    - Alter field age on catalogue_author\n",
      stderr: '',
    });
    readAndLink('0002_catalogue_author_age_alter_catalogue_author_age');
    const applied = await trestle('migrate', '--config', 'strict.config.ts');
    expect(applied.code).toBe(0);
    const after = await openDatabase(target.url);
    try {
      // The existing row got the one-off value; the column keeps no default.
      expect((await sql<{ name: string; age: number }>`select name, age from catalogue_author`.execute(after.db)).rows).toEqual([{ name: 'Ursula', age: 42 }]);
      await expect(sql`insert into catalogue_author (name) values ('Ged')`.execute(after.db)).rejects.toThrow(/NOT NULL|null value/i);
    } finally {
      await after.close();
    }

    writeFileSync(join(dir, 'renamed.config.ts'), config(`  title: field.char({ maxLength: 200 }),\n  age: field.integer(),`));
    const renamed = await runMain(['makemigrations', '--config', 'renamed.config.ts'], { cwd: dir, env: { DATABASE_URL: target.url }, tty: true, input: 'y\n' });
    expect(renamed).toEqual({
      code: 0,
      stdout:
        'Was catalogue_author.name renamed to catalogue_author.title? [y/N] ' +
        "Migrations for 'app':\n  migrations/0003_rename_name_catalogue_author_title.ts\n    - Rename field name on catalogue_author to title\n",
      stderr: '',
    });
    readAndLink('0003_rename_name_catalogue_author_title');
    // "Quit" writes nothing.
    writeFileSync(join(dir, 'quit.config.ts'), config(`  title: field.char({ maxLength: 200 }),\n  age: field.integer(),\n  rank: field.integer(),`));
    const quit = await runMain(['makemigrations', '--config', 'quit.config.ts'], { cwd: dir, env: { DATABASE_URL: target.url }, tty: true, input: '2\n' });
    expect(quit.code).toBe(1);
    expect(quit.stderr).toBe('trestle makemigrations: catalogue_author.rank needs a default: nothing was written.\n');
    expect(readdirSync(join(dir, 'migrations')).sort()).toEqual(['0001_initial.ts', '0002_catalogue_author_age_alter_catalogue_author_age.ts', '0003_rename_name_catalogue_author_title.ts']);
  });
});

describe('trestle makemigrations without a database', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-makemigrations-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const trestle = (...argv: string[]) => runMain(argv, { cwd: dir });

  it('--name names the file; a rename is asked for in one line and answered with --rename', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), config(`  name: field.char({ maxLength: 200 }),`));
    const first = await trestle('makemigrations', '--name', 'authors');
    expect(first).toEqual({ code: 0, stdout: "Migrations for 'app':\n  migrations/0001_authors.ts\n    - Create model catalogue_author\n", stderr: '' });
    readAndLinkIn(dir, '0001_authors');

    writeFileSync(join(dir, 'renamed.config.ts'), config(`  title: field.char({ maxLength: 200 }),`));
    const asked = await trestle('makemigrations', '--config', 'renamed.config.ts');
    expect(asked).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'trestle makemigrations: Was catalogue_author.name renamed to catalogue_author.title? Answer with --rename catalogue_author.name=title, ' +
        'or keep both fields in one run of makemigrations and remove the old one in the next.\n',
    });
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['0001_authors.ts']);

    const answered = await trestle('makemigrations', '--config', 'renamed.config.ts', '--rename', 'catalogue_author.name=title');
    expect(answered).toEqual({
      code: 0,
      stdout: "Migrations for 'app':\n  migrations/0002_rename_name_catalogue_author_title.ts\n    - Rename field name on catalogue_author to title\n",
      stderr: '',
    });
    expect(readFileSync(join(dir, 'migrations', '0002_rename_name_catalogue_author_title.ts'), 'utf8')).toContain(
      "  dependencies: ['0001_authors'],\n  operations: [\n    renameField('catalogue_author', 'name', 'title'),\n  ],\n",
    );
  });

  it('a non-null field without a default is refused in one line; nothing is written', async () => {
    mkdirSync(join(dir, 'migrations'));
    writeFileSync(join(dir, 'trestle.config.ts'), config(`  name: field.char({ maxLength: 200 }),`));
    expect((await trestle('makemigrations')).code).toBe(0);
    readAndLinkIn(dir, '0001_initial');
    writeFileSync(join(dir, 'strict.config.ts'), config(`  name: field.char({ maxLength: 200 }),\n  age: field.integer(),`));
    const refused = await trestle('makemigrations', '--config', 'strict.config.ts');
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'trestle makemigrations: catalogue_author.age is added without null: true and without a default, so existing rows have no value: ' +
        'give the field a default (or null: true) and run makemigrations again.\n',
    });
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['0001_initial.ts']);
  });

  it('usage mistakes exit 2; a project without migrationsDir exits 1', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), config(`  name: field.char({ maxLength: 200 }),`));
    expect(await trestle('makemigrations', '--rename', 'name=title')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'trestle makemigrations: --rename "name=title" must be table.old=new.\n',
    });
    expect(await trestle('makemigrations', '--name', 'two words')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'trestle makemigrations: --name "two words" is not a valid migration name: use letters, digits and "_".\n',
    });
    expect(await trestle('sqlmigrate', '0009')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'trestle sqlmigrate: Cannot find a migration matching "0009" from app "app".\n',
    });
    expect(await trestle('showmigrations', 'nope')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'trestle showmigrations: No app with label "nope": the apps are "trestle" and "app".\n',
    });
    writeFileSync(join(dir, 'nodir.config.ts'), config(`  name: field.char({ maxLength: 200 }),`).replace(", migrationsDir: 'migrations'", ''));
    const noDir = await trestle('makemigrations', '--config', 'nodir.config.ts');
    expect(noDir).toEqual({
      code: 1,
      stdout: '',
      stderr: `trestle makemigrations: ${join(dir, 'nodir.config.ts')} names no migrations folder: add migrationsDir: 'migrations' to trestle.config.ts.\n`,
    });
    // A project that declares no models and no folder (the example, a project before its first model) has nothing to detect.
    writeFileSync(join(dir, 'nomodels.config.ts'), `export default {};\n`);
    expect(await trestle('makemigrations', '--check', '--config', 'nomodels.config.ts')).toEqual({ code: 0, stdout: 'No changes detected\n', stderr: '' });
  });
});

function readAndLinkIn(dir: string, name: string): void {
  const file = join(dir, 'migrations', `${name}.ts`);
  writeFileSync(file, readFileSync(file, 'utf8').replace("from 'trestle'", `from '${TRESTLE}'`));
}
