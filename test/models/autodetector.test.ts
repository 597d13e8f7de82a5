import type { Migration } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import * as models from '../../src/models/index.js';
import { ChangeQuestion, detectChanges, field, model, stateOf, writeMigration, type AnyModel } from '../../src/models/index.js';
import { ownTable, testDatabases } from '../helpers/databases.js';

/** Evaluates a written migration file with the real operation factories in scope, as importing it would. */
function load(source: string): Migration {
  const body = source.replace(/^import .*\n/, '').replace('export default ', 'return ');
  const names = Object.keys(models);
  return new Function(...names, body)(...names.map((n) => (models as Record<string, unknown>)[n])) as Migration;
}

const Author = model('app_author', {
  name: field.char({ maxLength: 200 }),
  email: field.email({ unique: true }),
  created: field.datetime({ autoNowAdd: true }),
});
const Book = model(
  'app_book',
  {
    title: field.char({ maxLength: 200 }),
    author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
    kind: field.char({ maxLength: 1, choices: [['n', 'Novel'], ['p', 'Poetry']], default: 'n' }),
    parent: field.foreignKey('self', { onDelete: 'setNull', null: true }),
  },
  { indexes: [{ fields: ['title', 'id'], name: 'app_book_title_id' }], constraints: [models.checkConstraint('app_book_title_set', "title <> ''")] },
);

function makemigrations(history: Record<string, Migration>, current: AnyModel[], options?: models.DetectOptions): string | null {
  const ops = detectChanges(stateOf(history), current, options);
  return ops.length === 0 ? null : writeMigration(ops, { dependencies: Object.keys(history).slice(-1) });
}

describe('autodetector and writer', () => {
  it('writes a readable first migration, creating models in dependency order', () => {
    const source = makemigrations({}, [Book, Author]);
    expect(source).toBe(
      `import { createModel, field, migration } from 'trestle';

export default migration({
  operations: [
    createModel('app_author', {
      id: field.auto(),
      name: field.char({ maxLength: 200 }),
      email: field.email({ unique: true }),
      created: field.datetime({ autoNowAdd: true }),
    }),
    createModel('app_book', {
      id: field.auto(),
      title: field.char({ maxLength: 200 }),
      author: field.foreignKey('app_author', { onDelete: 'cascade', relatedName: 'books' }),
      kind: field.char({ maxLength: 1, choices: [['n', 'Novel'], ['p', 'Poetry']], default: 'n' }),
      parent: field.foreignKey('self', { onDelete: 'setNull', null: true }),
    }, {
      indexes: [{ fields: ['title', 'id'], name: 'app_book_title_id' }],
      constraints: [{ kind: 'check', name: 'app_book_title_set', check: 'title <> \\'\\'' }],
    }),
  ],
});
`,
    );
  });

  it('run twice, the second finds no changes', () => {
    const first = load(makemigrations({}, [Author, Book])!);
    expect(makemigrations({ '0001_initial': first }, [Author, Book])).toBeNull();
  });

  it('detects added, removed and altered fields, indexes and constraints, and a deleted model', () => {
    const history = { '0001_initial': load(makemigrations({}, [Author, Book])!) };
    const Author2 = model('app_author', {
      name: field.char({ maxLength: 300 }),
      created: field.datetime({ autoNowAdd: true }),
      bio: field.text({ null: true }),
    }, { indexes: [{ fields: ['name'], name: 'app_author_name' }] });
    expect(makemigrations(history, [Author2])).toBe(
      `import { addField, addIndex, alterField, deleteModel, field, migration, removeField } from 'trestle';

export default migration({
  dependencies: ['0001_initial'],
  operations: [
    addField('app_author', 'bio', field.text({ null: true })),
    removeField('app_author', 'email'),
    alterField('app_author', 'name', field.char({ maxLength: 300 })),
    addIndex('app_author', { fields: ['name'], name: 'app_author_name' }),
    deleteModel('app_book'),
  ],
});
`,
    );
  });

  it('never guesses a rename: it asks, and --rename answers', () => {
    const history = { '0001_initial': load(makemigrations({}, [Author])!) };
    const Renamed = model('app_author', {
      fullName: field.char({ maxLength: 200 }),
      email: field.email({ unique: true }),
      created: field.datetime({ autoNowAdd: true }),
    });
    expect(() => makemigrations(history, [Renamed])).toThrow(
      new ChangeQuestion(
        'rename',
        'app_author',
        'fullName',
        'Was app_author.name renamed to app_author.fullName? Answer with --rename app_author.name=fullName, or keep both fields in one run of makemigrations and remove the old one in the next.',
        ['name'],
      ),
    );
    expect(makemigrations(history, [Renamed], { renames: { 'app_author.name': 'fullName' } })).toContain(
      "renameField('app_author', 'name', 'fullName'),",
    );
  });

  it('a new non-null field without a default is refused with how to give one', () => {
    const history = { '0001_initial': load(makemigrations({}, [Author])!) };
    const More = model('app_author', { ...Author.fields, age: field.integer() });
    expect(() => makemigrations(history, [More])).toThrow(
      'app_author.age is added without null: true and without a default, so existing rows have no value: give the field a default (or null: true) and run makemigrations again.',
    );
  });
});

describe.each(testDatabases())('generated migrations on $name', ({ open }) => {
  it('the written migrations apply, and the state they build matches the models', async () => {
    const database = await open();
    try {
      const history: Record<string, Migration> = { '0001_initial': load(makemigrations({}, [Author, Book])!) };
      const Book2 = model('app_book', { ...Book.fields, pages: field.integer({ default: 0 }) }, { ...Book.meta, constraints: [] });
      history['0002_pages'] = load(makemigrations(history, [Author, Book2])!);
      const result = await migrate(database, history);
      expect(result.applied.filter((a) => a.set === 'app').map((a) => a.name)).toEqual(['0001_initial', '0002_pages']);
      expect((await ownTable(database, 'app_book'))!.columns.map((c) => c.name)).toEqual(['id', 'title', 'author_id', 'kind', 'parent_id', 'pages']);
      expect(makemigrations(history, [Author, Book2])).toBeNull();
    } finally {
      await database.close();
    }
  });
});
