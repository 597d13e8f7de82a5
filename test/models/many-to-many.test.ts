import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql, type Kysely, type Migration, type Selectable } from 'kysely';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { checkModels } from '../../src/checks/index.js';
import type { Database } from '../../src/db/database.js';
import { migrate, migrateTo } from '../../src/db/migrate.js';
import * as models from '../../src/models/index.js';
import {
  addField,
  createModel,
  deleteModel,
  detectChanges,
  field,
  ManyToManyField,
  migration,
  model,
  relatedObjects,
  removeField,
  renameField,
  stateOf,
  writeMigration,
  type AnyModel,
  type DatabaseOf,
} from '../../src/models/index.js';
import { runMain } from '../helpers/cli.js';
import { testDatabases } from '../helpers/databases.js';

type Db = Kysely<Record<string, Record<string, unknown>>>;

const Tag = model('catalogue_tag', { name: field.char({ maxLength: 50 }) });
const Book = model('catalogue_book', {
  title: field.char({ maxLength: 200 }),
  tags: field.manyToMany(() => Tag, { relatedName: 'books', blank: true }),
  similar: field.manyToMany('self', { blank: true }),
});

/**
 * A table's columns in order, `name: type null|not null`, from the catalogue of this database only (on
 * PostgreSQL the current schema's: other test files' schemas hold tables of the same names).
 */
async function columnsOf(database: Database, table: string): Promise<Record<string, string> | null> {
  const { rows } =
    database.dialect === 'postgres'
      ? await sql<{ name: string; type: string; nullable: boolean }>`
          select column_name as name, udt_name as type, is_nullable = 'YES' as nullable from information_schema.columns
          where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(database.db)
      : await sql<{ name: string; type: string; nullable: number }>`
          select name, lower(type) as type, "notnull" = 0 and pk = 0 as nullable from pragma_table_info(${table}) order by cid`.execute(database.db);
  if (rows.length === 0) return null;
  return Object.fromEntries(rows.map((c) => [c.name, `${c.type} ${c.nullable ? 'null' : 'not null'}`]));
}

/** A join table as the catalogue describes it: columns, foreign keys, unique sets, plain indexes. */
async function joinTable(database: Database, table: string) {
  const columns = await columnsOf(database, table);
  if (!columns) return null;
  const pg = database.dialect === 'postgres';
  const foreignKeys = pg
    ? (
        await sql<{ column: string; target: string; action: string }>`
          select a.attname as column, r.relname as target, case c.confdeltype when 'c' then 'cascade' else c.confdeltype::text end as action
          from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
          join pg_class r on r.oid = c.confrelid join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
          where c.contype = 'f' and t.relname = ${table} and n.nspname = current_schema() order by 1`.execute(database.db)
      ).rows
    : (
        await sql<{ column: string; target: string; action: string }>`
          select "from" as "column", "table" as target, lower(on_delete) as action from pragma_foreign_key_list(${table}) order by 1`.execute(database.db)
      ).rows;
  const unique = pg
    ? (
        await sql<{ cols: string }>`
          select (select string_agg(a.attname, ',' order by k.i) from unnest(c.conkey) with ordinality k(num, i) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.num) as cols
          from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
          where c.contype = 'u' and t.relname = ${table} and n.nspname = current_schema()`.execute(database.db)
      ).rows
    : (
        await sql<{ cols: string }>`
          select (select group_concat(name, ',') from (select name from pragma_index_info(l.name) order by seqno)) as cols
          from pragma_index_list(${table}) l where l."unique" = 1 and l.origin = 'u'`.execute(database.db)
      ).rows;
  const indexes = pg
    ? (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = ${table} and schemaname = current_schema() and indexdef not like 'CREATE UNIQUE%' order by 1`.execute(database.db)).rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and name not like 'sqlite_autoindex%' and sql not like 'CREATE UNIQUE%' order by 1`.execute(database.db)).rows;
  return { columns, foreignKeys, unique: unique.map((u) => u.cols), indexes: indexes.map((i) => i.name) };
}

describe('manyToMany types', () => {
  it('is no column of its model: not in the row, insert or update types', () => {
    expectTypeOf<typeof Book.$inferSelect>().toEqualTypeOf<{ id: number; title: string }>();
    expectTypeOf<typeof Book.$inferInsert>().toEqualTypeOf<{ title: string; id?: number }>();
    // @ts-expect-error a many-to-many field is not a column of the book table
    const row: typeof Book.$inferSelect = { id: 1, title: 'Dune', tags: [] };
    void row;
    // @ts-expect-error nor a key of the Kysely table type
    const column: keyof (typeof Book)['$table'] = 'tags';
    void column;
  });

  it('DatabaseOf includes the automatic join tables, typed', () => {
    const Hidden = model('catalogue_shelf', { books: field.manyToMany('catalogue_book', { through: 'catalogue_placement', throughFields: ['shelf', 'book'] }) });
    type DB = DatabaseOf<[typeof Book, typeof Tag, typeof Hidden]>;
    // A field with a through model adds no table: the through model is a model of its own.
    expectTypeOf<keyof DB>().toEqualTypeOf<'catalogue_book' | 'catalogue_tag' | 'catalogue_shelf' | 'catalogue_book_tags' | 'catalogue_book_similar'>();
    expectTypeOf<Selectable<DB['catalogue_book_tags']>>().toEqualTypeOf<{ id: number; book_id: number; tag_id: number }>();
    expectTypeOf<Selectable<DB['catalogue_book_similar']>>().toEqualTypeOf<{ id: number; from_book_id: number; to_book_id: number }>();
    const query = (db: Kysely<DB>) =>
      db
        .selectFrom('catalogue_book_tags')
        .innerJoin('catalogue_tag', 'catalogue_tag.id', 'catalogue_book_tags.tag_id')
        .select(['catalogue_book_tags.book_id', 'catalogue_tag.name'])
        .execute();
    expectTypeOf<Awaited<ReturnType<typeof query>>>().toEqualTypeOf<Array<{ book_id: number; name: string }>>();
    // @ts-expect-error the join table has no such column
    const bad = (db: Kysely<DB>) => db.selectFrom('catalogue_book_tags').select('book').execute();
    void bad;
    // A model name set in meta names the columns.
    const Novel = model('catalogue_novel', { tags: field.manyToMany('catalogue_tag') }, { modelName: 'story' });
    expectTypeOf<Selectable<DatabaseOf<[typeof Novel]>['catalogue_novel_tags']>>().toEqualTypeOf<{ id: number; story_id: number; tag_id: number }>();
    expect(Novel.manyToMany()['tags']!.sourceColumn()).toBe('story_id');
    // Other meta options leave the model name to the table's.
    const Essay = model('catalogue_essay', { tags: field.manyToMany(() => Tag) }, { ordering: ['-id'], verboseName: 'essay' });
    expectTypeOf<Selectable<DatabaseOf<[typeof Essay]>['catalogue_essay_tags']>>().toEqualTypeOf<{ id: number; essay_id: number; tag_id: number }>();
  });
});

describe('manyToMany declarations', () => {
  it('has no column; names its join table and columns as Django does', () => {
    expect(Book.columns()).toEqual({ id: 'id', title: 'title' });
    expect(Book.insertValues({ title: 'Dune' })).toEqual({ title: 'Dune' });
    const tags = Book.fields.tags;
    expect(tags).toBeInstanceOf(ManyToManyField);
    expect(tags.kind).toBe('manyToMany');
    expect(tags.hasColumn).toBe(false);
    expect([tags.throughTable('catalogue_book'), tags.sourceColumn('catalogue_book'), tags.targetColumn('catalogue_book')]).toEqual([
      'catalogue_book_tags',
      'book_id',
      'tag_id',
    ]);
    expect([tags.targetTable('catalogue_book'), tags.targetModel(), tags.through, tags.relatedName, tags.autoCreated]).toEqual([
      'catalogue_tag',
      Tag,
      undefined,
      'books',
      true,
    ]);
    const similar = Book.fields.similar;
    expect([similar.throughTable(), similar.sourceColumn(), similar.targetColumn(), similar.targetTable(), similar.targetModel()]).toEqual([
      'catalogue_book_similar',
      'from_book_id',
      'to_book_id',
      'catalogue_book',
      Book,
    ]);
    expect(Book.manyToMany()).toEqual({ tags, similar });
  });

  it('with a through model, reads its foreign keys; one declaration spread into two models is bound to each', () => {
    const Author = model('catalogue_author', { name: field.char({ maxLength: 100 }) });
    const Credit = model('catalogue_credit', {
      book: field.foreignKey('catalogue_essay', { onDelete: 'cascade' }),
      author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
      role: field.char({ maxLength: 20 }),
    });
    const Essay = model('catalogue_essay', { authors: field.manyToMany(() => Author, { through: () => Credit }) });
    const authors = Essay.fields.authors;
    expect([authors.throughTable(), authors.sourceColumn(), authors.targetColumn(), authors.through, authors.autoCreated]).toEqual([
      'catalogue_credit',
      'book_id',
      'author_id',
      Credit,
      false,
    ]);
    const Copy = model('catalogue_poem', { ...Essay.fields });
    expect(Copy.fields.authors).not.toBe(authors);
    expect(Copy.fields.authors.throughTable()).toBe('catalogue_credit');
    const Again = model('catalogue_leaflet', { tags: Book.fields.tags });
    expect([Again.fields.tags.throughTable(), Again.fields.tags.sourceColumn(), Book.fields.tags.throughTable()]).toEqual([
      'catalogue_leaflet_tags',
      'leaflet_id',
      'catalogue_book_tags',
    ]);
  });

  it('refuses what has no column', () => {
    expect(() => model('t_x', { tags: field.manyToMany('t_tag') }, { ordering: ['tags'] })).toThrow(
      'Model t_x: ordering names "tags", a manyToMany field, which has no column.',
    );
    expect(() => model('t_x', { tags: field.manyToMany('t_tag', { throughFields: ['a', 'b'] }) })).toThrow(
      'Model t_x: field "tags" gives throughFields without a through model.',
    );
  });
});

const initial = migration({
  operations: [
    createModel('lib_tag', { id: field.auto(), name: field.char({ maxLength: 50 }) }),
    createModel('lib_book', {
      id: field.auto(),
      title: field.char({ maxLength: 200 }),
      tags: field.manyToMany('lib_tag', { relatedName: 'books' }),
      similar: field.manyToMany('self'),
    }),
  ],
});
const addAuthors = migration({
  operations: [
    createModel('lib_author', { id: field.bigAuto(), name: field.char({ maxLength: 100 }) }),
    addField('lib_book', 'authors', field.manyToMany('lib_author')),
    removeField('lib_book', 'similar'),
    // A column added: SQLite rebuilds the book table under its join tables.
    addField('lib_book', 'pages', field.integer({ default: 0 })),
    renameField('lib_book', 'tags', 'labels'),
  ],
});
const dropBooks = migration({ operations: [deleteModel('lib_book')] });
const history: Record<string, Migration> = { '0001_initial': initial, '0002_authors': addAuthors, '0003_drop_books': dropBooks };

describe.each(testDatabases())('manyToMany tables on $name', ({ open }) => {
  it('createModel creates the join tables; addField/removeField create and drop one; each rolls back', async () => {
    const database = await open();
    const pg = database.dialect === 'postgres';
    const db = database.db as unknown as Db;
    const int = pg ? 'int4' : 'integer';
    try {
      await migrateTo(database, history, { set: 'app', name: '0001_initial' });
      expect(Object.keys((await columnsOf(database, 'lib_book'))!)).toEqual(['id', 'title']);
      expect(await joinTable(database, 'lib_book_tags')).toEqual({
        columns: { id: `${int} not null`, book_id: `${int} not null`, tag_id: `${int} not null` },
        foreignKeys: [
          { column: 'book_id', target: 'lib_book', action: 'cascade' },
          { column: 'tag_id', target: 'lib_tag', action: 'cascade' },
        ],
        unique: ['book_id,tag_id'],
        indexes: ['lib_book_tags_tag_id_idx'],
      });
      expect(await joinTable(database, 'lib_book_similar')).toMatchObject({
        columns: { id: `${int} not null`, from_book_id: `${int} not null`, to_book_id: `${int} not null` },
        foreignKeys: [
          { column: 'from_book_id', target: 'lib_book', action: 'cascade' },
          { column: 'to_book_id', target: 'lib_book', action: 'cascade' },
        ],
        unique: ['from_book_id,to_book_id'],
        indexes: ['lib_book_similar_to_book_id_idx'],
      });

      // Rows: a pair is unique, and deleting either side deletes its pairs.
      await db.insertInto('lib_tag').values([{ name: 'sf' }, { name: 'classic' }]).execute();
      await db.insertInto('lib_book').values([{ title: 'Dune' }, { title: 'Emma' }]).execute();
      await db.insertInto('lib_book_tags').values([{ book_id: 1, tag_id: 1 }, { book_id: 1, tag_id: 2 }, { book_id: 2, tag_id: 2 }]).execute();
      await db.insertInto('lib_book_similar').values({ from_book_id: 1, to_book_id: 2 }).execute();
      await expect(db.insertInto('lib_book_tags').values({ book_id: 1, tag_id: 1 }).execute()).rejects.toThrow();
      await expect(db.insertInto('lib_book_tags').values({ book_id: 9, tag_id: 1 }).execute()).rejects.toThrow();
      await db.deleteFrom('lib_tag').where('name', '=', 'sf').execute();
      expect(await db.selectFrom('lib_book_tags').select(['book_id', 'tag_id']).orderBy('id').execute()).toEqual([
        { book_id: 1, tag_id: 2 },
        { book_id: 2, tag_id: 2 },
      ]);
      await db.deleteFrom('lib_book').where('title', '=', 'Emma').execute();
      expect(await db.selectFrom('lib_book_tags').select(['book_id', 'tag_id']).execute()).toEqual([{ book_id: 1, tag_id: 2 }]);
      expect(await db.selectFrom('lib_book_similar').selectAll().execute()).toEqual([]);

      await migrateTo(database, history, { set: 'app', name: '0002_authors' });
      expect(await joinTable(database, 'lib_book_similar')).toBeNull();
      expect(await joinTable(database, 'lib_book_authors')).toEqual({
        // The target column has the type of the target's key.
        columns: { id: `${int} not null`, book_id: `${int} not null`, author_id: `${pg ? 'int8' : 'bigint'} not null` },
        foreignKeys: [
          { column: 'author_id', target: 'lib_author', action: 'cascade' },
          { column: 'book_id', target: 'lib_book', action: 'cascade' },
        ],
        unique: ['book_id,author_id'],
        indexes: ['lib_book_authors_author_id_idx'],
      });
      // Renaming the field renames its join table; its columns are named after the models and stay.
      expect(await joinTable(database, 'lib_book_tags')).toBeNull();
      expect(Object.keys((await columnsOf(database, 'lib_book_labels'))!)).toEqual(['id', 'book_id', 'tag_id']);
      expect(Object.keys((await columnsOf(database, 'lib_book'))!)).toEqual(['id', 'title', 'pages']);
      // The pairs outlived the rebuild, and deleting a book still deletes its pairs.
      expect(await db.selectFrom('lib_book_labels').select(['book_id', 'tag_id']).execute()).toEqual([{ book_id: 1, tag_id: 2 }]);
      await db.insertInto('lib_book').values({ title: 'Gone' }).execute();
      const gone = await db.selectFrom('lib_book').select('id').where('title', '=', 'Gone').executeTakeFirstOrThrow();
      await db.insertInto('lib_book_labels').values({ book_id: gone['id'], tag_id: 2 }).execute();
      await db.deleteFrom('lib_book').where('title', '=', 'Gone').execute();
      expect(await db.selectFrom('lib_book_labels').select(['book_id', 'tag_id']).execute()).toEqual([{ book_id: 1, tag_id: 2 }]);

      await migrate(database, history);
      expect(await columnsOf(database, 'lib_book')).toBeNull();
      expect(await joinTable(database, 'lib_book_labels')).toBeNull();
      expect(await joinTable(database, 'lib_book_authors')).toBeNull();

      // Back: deleteModel's down creates the table and its join tables again; 0002's down takes back each change.
      await migrateTo(database, history, { set: 'app', name: '0002_authors' });
      expect((await joinTable(database, 'lib_book_authors'))!.unique).toEqual(['book_id,author_id']);
      expect((await joinTable(database, 'lib_book_labels'))!.indexes).toEqual(['lib_book_labels_tag_id_idx']);
      await migrateTo(database, history, { set: 'app', name: '0001_initial' });
      expect(await joinTable(database, 'lib_book_authors')).toBeNull();
      expect(await joinTable(database, 'lib_book_labels')).toBeNull();
      expect((await joinTable(database, 'lib_book_tags'))!.unique).toEqual(['book_id,tag_id']);
      expect(Object.keys((await columnsOf(database, 'lib_book'))!)).toEqual(['id', 'title']);
      expect((await joinTable(database, 'lib_book_similar'))!.foreignKeys).toHaveLength(2);
      await migrateTo(database, history, { set: 'app', name: null });
      for (const table of ['lib_book', 'lib_tag', 'lib_book_tags', 'lib_book_similar']) expect(await columnsOf(database, table)).toBeNull();
    } finally {
      await database.close();
    }
  });

  it('a field with a through model creates no table: the through model is the join table', async () => {
    const database = await open();
    try {
      await migrate(database, {
        '0001_initial': migration({
          operations: [
            createModel('lib_person', { id: field.auto(), name: field.text() }),
            createModel('lib_group', {
              id: field.auto(),
              members: field.manyToMany('lib_person', { through: 'lib_membership', throughFields: ['group', 'person'] }),
            }),
            createModel('lib_membership', {
              id: field.auto(),
              group: field.foreignKey('lib_group', { onDelete: 'cascade' }),
              person: field.foreignKey('lib_person', { onDelete: 'cascade' }),
              since: field.date(),
            }),
          ],
        }),
      });
      expect(await columnsOf(database, 'lib_group_members')).toBeNull();
      expect(Object.keys((await columnsOf(database, 'lib_group'))!)).toEqual(['id']);
      expect(Object.keys((await columnsOf(database, 'lib_membership'))!)).toEqual(['id', 'group_id', 'person_id', 'since']);
    } finally {
      await database.close();
    }
  });
});

/** Evaluates a written migration file with the real operation factories in scope, as importing it would. */
function load(source: string): Migration {
  const body = source.replace(/^import .*\n/, '').replace('export default ', 'return ');
  const names = Object.keys(models);
  return new Function(...names, body)(...names.map((n) => (models as Record<string, unknown>)[n])) as Migration;
}

function makemigrations(past: Record<string, Migration>, current: AnyModel[]): string | null {
  const ops = detectChanges(stateOf(past), current);
  return ops.length === 0 ? null : writeMigration(ops, { dependencies: Object.keys(past).slice(-1) });
}

// A many-to-many field to a model that points back: the join table waits for both.
const Shelf = model('catalogue_shelf', { label: field.char({ maxLength: 20 }), novels: field.manyToMany(() => Novel, { relatedName: 'shelves' }) });
// Two models that name each other by function would each need the other's type first: one names the other by table.
const Novel = model('catalogue_novel', { favourite: field.foreignKey('catalogue_shelf', { onDelete: 'setNull', null: true }) });

describe('manyToMany in the autodetector and the writer', () => {
  it('creates a model with its many-to-many fields once their targets exist, written by table name', () => {
    expect(makemigrations({}, [Book, Tag])).toBe(`import { createModel, field, migration } from 'trestle';

export default migration({
  operations: [
    createModel('catalogue_tag', { id: field.auto(), name: field.char({ maxLength: 50 }) }),
    createModel('catalogue_book', {
      id: field.auto(),
      title: field.char({ maxLength: 200 }),
      tags: field.manyToMany('catalogue_tag', { relatedName: 'books', blank: true }),
      similar: field.manyToMany('self', { blank: true }),
    }),
  ],
});
`);
    expect(makemigrations({}, [Shelf, Novel])).toBe(`import { addField, createModel, field, migration } from 'trestle';

export default migration({
  operations: [
    createModel('catalogue_shelf', { id: field.auto(), label: field.char({ maxLength: 20 }) }),
    createModel('catalogue_novel', {
      id: field.auto(),
      favourite: field.foreignKey('catalogue_shelf', { onDelete: 'setNull', null: true }),
    }),
    addField('catalogue_shelf', 'novels', field.manyToMany('catalogue_novel', { relatedName: 'shelves' })),
  ],
});
`);
  });

  it('adds and removes a many-to-many field of an existing model (no default asked), and finds nothing more', () => {
    const past: Record<string, Migration> = { '0001_initial': load(makemigrations({}, [Book, Tag])!) };
    expect(makemigrations(past, [Book, Tag])).toBeNull();
    const Author = model('catalogue_author', { name: field.char({ maxLength: 100 }) });
    const Credit = model('catalogue_credit', {
      book: field.foreignKey('catalogue_book', { onDelete: 'cascade' }),
      author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
    });
    const Book2 = model('catalogue_book', {
      title: field.char({ maxLength: 200 }),
      tags: field.manyToMany(() => Tag, { relatedName: 'books', blank: true, helpText: 'Shelving tags.' }),
      authors: field.manyToMany(() => Author, { through: () => Credit, relatedName: 'books' }),
    });
    const second = makemigrations(past, [Book2, Tag, Author, Credit]);
    expect(second).toBe(`import { addField, alterField, createModel, field, migration, removeField } from 'trestle';

export default migration({
  dependencies: ['0001_initial'],
  operations: [
    createModel('catalogue_author', { id: field.auto(), name: field.char({ maxLength: 100 }) }),
    createModel('catalogue_credit', {
      id: field.auto(),
      book: field.foreignKey('catalogue_book', { onDelete: 'cascade' }),
      author: field.foreignKey('catalogue_author', { onDelete: 'cascade' }),
    }),
    addField('catalogue_book', 'authors', field.manyToMany('catalogue_author', { through: 'catalogue_credit', relatedName: 'books' })),
    removeField('catalogue_book', 'similar'),
    alterField('catalogue_book', 'tags', field.manyToMany('catalogue_tag', { relatedName: 'books', blank: true, helpText: 'Shelving tags.' })),
  ],
});
`);
    past['0002_authors'] = load(second!);
    expect(makemigrations(past, [Book2, Tag, Author, Credit])).toBeNull();
  });
});

describe.each(testDatabases())('generated many-to-many migrations on $name', ({ open }) => {
  it('apply: the join table comes after both models, an alterField of a label changes nothing, and all of it rolls back', async () => {
    const database = await open();
    const db = database.db as unknown as Db;
    try {
      const past: Record<string, Migration> = { '0001_initial': load(makemigrations({}, [Shelf, Novel])!) };
      const Shelf2 = model('catalogue_shelf', { label: field.char({ maxLength: 20 }), novels: field.manyToMany(() => Novel, { relatedName: 'shelves', verboseName: 'novels kept' }) });
      past['0002_label'] = load(makemigrations(past, [Shelf2, Novel])!);
      await migrate(database, past);
      expect(await joinTable(database, 'catalogue_shelf_novels')).toMatchObject({ unique: ['shelf_id,novel_id'], indexes: ['catalogue_shelf_novels_novel_id_idx'] });
      await db.insertInto('catalogue_shelf').values({ label: 'top' }).execute();
      await db.insertInto('catalogue_novel').values({ favourite_id: 1 }).execute();
      await db.insertInto('catalogue_shelf_novels').values({ shelf_id: 1, novel_id: 1 }).execute();
      expect(makemigrations(past, [Shelf2, Novel])).toBeNull();
      await migrateTo(database, past, { set: 'app', name: null });
      expect(await columnsOf(database, 'catalogue_shelf_novels')).toBeNull();
      expect(await columnsOf(database, 'catalogue_shelf')).toBeNull();
    } finally {
      await database.close();
    }
  });
});

describe('reverse relations', () => {
  const Person = model('club_person', { name: field.text() });
  const Club = model('club_club', {
    owner: field.foreignKey(() => Person, { onDelete: 'protect', relatedName: 'owned_clubs' }),
    members: field.manyToMany(() => Person, { relatedName: 'clubs' }),
    friends: field.manyToMany('club_person', { relatedName: '+' }),
  });
  const Card = model('club_card', { person: field.oneToOne(() => Person, { onDelete: 'cascade' }), club: field.foreignKey(() => Club, { onDelete: 'setNull', null: true }) });

  it('relatedObjects lists the relations pointing at a model, with Django default names and what a delete does', () => {
    expect(relatedObjects(Person, [Person, Club, Card])).toEqual([
      { model: Club, field: 'owner', kind: 'foreignKey', name: 'owned_clubs', hidden: false, onDelete: 'protect', multiple: true, column: 'owner_id' },
      {
        model: Club,
        field: 'members',
        kind: 'manyToMany',
        name: 'clubs',
        hidden: false,
        onDelete: 'cascade',
        multiple: true,
        column: 'person_id',
        through: { table: 'club_club_members', column: 'club_id' },
      },
      {
        model: Club,
        field: 'friends',
        kind: 'manyToMany',
        name: '+',
        hidden: true,
        onDelete: 'cascade',
        multiple: true,
        column: 'person_id',
        through: { table: 'club_club_friends', column: 'club_id' },
      },
      { model: Card, field: 'person', kind: 'oneToOne', name: 'card', hidden: false, onDelete: 'cascade', multiple: false, column: 'person_id' },
    ]);
    expect(relatedObjects(Club, [Person, Club, Card]).map((r) => [r.name, r.onDelete])).toEqual([['card_set', 'setNull']]);
    expect(relatedObjects(Book, [Book, Tag]).map((r) => `${r.model.tableName}.${r.field} ${r.name}`)).toEqual(['catalogue_book.similar book_set']);
    expect(relatedObjects(Tag, [Book, Tag]).map((r) => `${r.model.tableName}.${r.field} ${r.name} ${r.through?.table}`)).toEqual(['catalogue_book.tags books catalogue_book_tags']);
  });

  it('checkModels: one reverse accessor given twice, or named as a field of the target, is an error', () => {
    expect(checkModels([Person, Club, Card]).map(String)).toEqual([]);
    const Team = model('club_team', { players: field.manyToMany(() => Person, { relatedName: 'clubs' }) });
    const Named = model('club_named', { name: field.text(), fans: field.manyToMany('club_person', { relatedName: 'name' }) });
    expect(checkModels([Person, Club, Card, Team, Named]).map(String)).toEqual([
      "club_team.players: (fields.E304) Reverse accessor 'Person.clubs' for 'club_team.players' clashes with reverse accessor for 'club_club.members'.\n" +
        "\tHINT: Add or change a relatedName argument to the definition for 'club_team.players' or 'club_club.members'.",
      "club_named.fans: (fields.E302) Reverse accessor 'Person.name' for 'club_named.fans' clashes with field name 'club_person.name'.\n" +
        "\tHINT: Rename field 'club_person.name', or add/change a relatedName argument to the definition for field 'club_named.fans'.",
    ]);
  });
});

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;
const PROJECT = (relatedName: string) => `import { defineProject, field, migration, createModel, model } from '${TRESTLE}';
const Tag = model('shop_tag', { name: field.char({ maxLength: 20 }) });
const Item = model('shop_item', { tags: field.manyToMany(() => Tag, { relatedName: 'items' }) });
const Offer = model('shop_offer', { tags: field.manyToMany(() => Tag, { relatedName: '${relatedName}' }) });
export default defineProject({
  models: [Tag, Item, Offer],
  migrations: {
    '0001_initial': migration({ operations: [
      createModel('shop_tag', { id: field.auto(), name: field.char({ maxLength: 20 }) }),
      createModel('shop_item', {
        id: field.auto(),
        tags: field.manyToMany('shop_tag', { relatedName: 'items' }),
      }),
      createModel('shop_offer', {
        id: field.auto(),
        tags: field.manyToMany('shop_tag', { relatedName: '${relatedName}' }),
      }),
    ] }),
  },
});
`;

describe.each(testDatabases())('trestle check and sqlmigrate with many-to-many fields on $name', ({ name, freshUrl }) => {
  it('check reports a reverse accessor declared twice; sqlmigrate shows the join tables', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-m2m-'));
    const target = await freshUrl();
    const trestle = (...argv: string[]) => runMain(argv, { cwd: dir, env: { DATABASE_URL: target.url, LOG_LEVEL: 'silent' } });
    try {
      writeFileSync(join(dir, 'clash.config.ts'), PROJECT('items'));
      writeFileSync(join(dir, 'trestle.config.ts'), PROJECT('offers'));
      expect(await trestle('check', '--list-tags', '--config', 'clash.config.ts')).toEqual({ code: 0, stdout: 'database\nmodels\nurls\nviews\n', stderr: '' });
      expect(await trestle('check', '--config', 'clash.config.ts')).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          'SystemCheckError: System check identified some issues:',
          '',
          'ERRORS:',
          "shop_offer.tags: (fields.E304) Reverse accessor 'Tag.items' for 'shop_offer.tags' clashes with reverse accessor for 'shop_item.tags'.",
          "\tHINT: Add or change a relatedName argument to the definition for 'shop_offer.tags' or 'shop_item.tags'.",
          '',
          'System check identified 1 issue (0 silenced).',
          '',
        ].join('\n'),
      });
      expect(await trestle('check', '--tag', 'models')).toEqual({ code: 0, stdout: 'System check identified no issues (0 silenced).\n', stderr: '' });

      const sqlUp = await trestle('sqlmigrate', '0001');
      expect(sqlUp.code, sqlUp.stderr).toBe(0);
      const key = name === 'postgres' ? 'serial not null primary key' : 'integer not null primary key autoincrement';
      const fk = name === 'postgres' ? ' deferrable initially deferred' : '';
      expect(sqlUp.stdout).toContain(
        [
          '-- Create model shop_item',
          '--',
          `create table "shop_item" ("id" ${key});`,
          `create table "shop_item_tags" ("id" ${key}, ` +
            `"item_id" integer not null references "shop_item" ("id") on delete cascade${fk}, ` +
            `"tag_id" integer not null references "shop_tag" ("id") on delete cascade${fk}, ` +
            'constraint "shop_item_tags_item_id_tag_id_uniq" unique ("item_id", "tag_id"));',
          'create index "shop_item_tags_tag_id_idx" on "shop_item_tags" ("tag_id");',
          '--',
        ].join('\n'),
      );
      const sqlDown = await trestle('sqlmigrate', '0001', '--backwards');
      expect(sqlDown.stdout).toContain(['-- Create model shop_offer', '--', 'drop table "shop_offer_tags";', 'drop table "shop_offer";'].join('\n'));
    } finally {
      await target.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
