import { sql, type Kysely, type Migration } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { migrate, migrateTo } from '../../src/db/migrate.js';
import {
  addConstraint,
  addField,
  addIndex,
  alterField,
  createModel,
  deleteModel,
  field,
  migration,
  removeConstraint,
  removeField,
  removeIndex,
  renameField,
  stateOf,
} from '../../src/models/index.js';
import { ownTable, testDatabases } from '../helpers/databases.js';

type Db = Kysely<Record<string, Record<string, unknown>>>;

/** Each column as `type null|not null`, read from the database's catalogue. */
async function columns(database: Database, table: string): Promise<Record<string, string>> {
  const found = await ownTable(database, table);
  if (!found) return {};
  return Object.fromEntries(found.columns.map((c) => [c.name, `${c.dataType.toLowerCase()} ${c.isNullable ? 'null' : 'not null'}`]));
}

async function indexes(database: Database, table: string): Promise<string[]> {
  const { rows } =
    database.dialect === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = ${table} and schemaname = current_schema() and indexname not like '%_pkey' and indexname not like '%_key' order by 1`.execute(database.db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and name not like 'sqlite_autoindex%' order by 1`.execute(database.db);
  return rows.map((r) => r.name);
}

const initial = migration({
  operations: [
    createModel('lib_author', {
      id: field.auto(),
      name: field.char({ maxLength: 200 }),
      country: field.char({ maxLength: 100, default: '' }),
      active: field.boolean({ default: true }),
      created: field.datetime({ autoNowAdd: true }),
    }),
    createModel(
      'lib_book',
      {
        id: field.auto(),
        title: field.char({ maxLength: 200 }),
        author: field.foreignKey('lib_author', { onDelete: 'cascade' }),
        year: field.integer(),
        isbn: field.char({ maxLength: 20, unique: true }),
        price: field.decimal({ maxDigits: 8, decimalPlaces: 2, null: true }),
      },
      { indexes: [{ fields: ['year', 'id'] }], constraints: [{ kind: 'check', name: 'lib_book_year_positive', check: 'year >= 0' }] },
    ),
  ],
});

const changes = migration({
  dependencies: ['0001_initial'],
  operations: [
    addField('lib_author', 'bio', field.text({ null: true })),
    addField('lib_author', 'rank', field.integer({ default: 7 })),
    alterField('lib_author', 'name', field.char({ maxLength: 300, null: true })),
    // A check is SQL text: it goes before the column it reads is renamed.
    removeConstraint('lib_book', 'lib_book_year_positive'),
    renameField('lib_book', 'year', 'published'),
    removeField('lib_book', 'price'),
    addIndex('lib_author', { fields: ['name'], name: 'lib_author_name_idx' }),
    removeIndex('lib_book', 'lib_book_year_id_idx'),
    addConstraint('lib_author', { kind: 'check', name: 'lib_author_rank_small', check: 'rank < 100' }),
  ],
});

const dropBooks = migration({ operations: [deleteModel('lib_book')] });

const handWritten: Migration = {
  async up(db) {
    await db.schema.createTable('lib_note').addColumn('id', 'integer', (c) => c.primaryKey()).execute();
  },
  async down(db) {
    await db.schema.dropTable('lib_note').execute();
  },
};

const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_changes': changes,
  '0003_note': handWritten,
  '0004_drop_books': dropBooks,
};

describe('migration state', () => {
  it('replays the operations in memory, and hand-written migrations add nothing to it', () => {
    const state = stateOf(migrations, '0003_note');
    expect(Object.keys(state)).toEqual(['lib_author', 'lib_book']);
    expect(Object.keys(state['lib_author']!.fields)).toEqual(['id', 'name', 'country', 'active', 'created', 'bio', 'rank']);
    expect(Object.keys(state['lib_book']!.fields)).toEqual(['id', 'title', 'author', 'published', 'isbn']);
    expect(state['lib_author']!.fields['name']!.null).toBe(true);
    expect(state['lib_book']!.meta.indexes).toEqual([]);
    expect(Object.keys(stateOf(migrations))).toEqual(['lib_author']);
  });

  it('refuses an operation on a field the state does not have, with one line', () => {
    expect(() => stateOf({ '0001': migration({ operations: [removeField('lib_x', 'a')] }) })).toThrow(
      'No model "lib_x" in the migration state (is its createModel in an earlier migration?).',
    );
  });
});

describe.each(testDatabases())('migration operations on $name', ({ open }) => {
  it('every operation applies, shows in the catalogue, keeps the rows, and rolls back', async () => {
    const database = await open();
    const pg = database.dialect === 'postgres';
    const db = database.db as unknown as Db;
    try {
      await migrateTo(database, migrations, { set: 'app', name: '0001_initial' });
      expect(await columns(database, 'lib_author')).toEqual(
        pg
          ? { id: 'int4 not null', name: 'varchar not null', country: 'varchar not null', active: 'bool not null', created: 'timestamptz not null' }
          : { id: 'integer not null', name: 'varchar(200) not null', country: 'varchar(100) not null', active: 'integer not null', created: 'varchar(32) not null' },
      );
      expect(await columns(database, 'lib_book')).toMatchObject(
        pg ? { author_id: 'int4 not null', price: 'numeric null' } : { author_id: 'integer not null', price: 'decimal null' },
      );
      expect(await indexes(database, 'lib_book')).toEqual(['lib_book_author_id_idx', 'lib_book_year_id_idx']);

      // Defaults are the database's: an insert may omit them.
      await db.insertInto('lib_author').values({ name: 'Le Guin' }).execute();
      await db.insertInto('lib_book').values({ title: 'Earthsea', author_id: 1, year: 1968, isbn: '1' }).execute();
      const author = await db.selectFrom('lib_author').selectAll().executeTakeFirstOrThrow();
      expect(author).toMatchObject({ country: '', active: pg ? true : 1 });
      const created = author['created'];
      expect(pg ? created instanceof Date : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(String(created))).toBe(true);
      // The check constraint and the unique column hold.
      await expect(db.insertInto('lib_book').values({ title: 'X', author_id: 1, year: -1, isbn: '2' }).execute()).rejects.toThrow();
      await expect(db.insertInto('lib_book').values({ title: 'X', author_id: 1, year: 1, isbn: '1' }).execute()).rejects.toThrow();

      await migrateTo(database, migrations, { set: 'app', name: '0003_note' });
      expect(await columns(database, 'lib_author')).toMatchObject(
        pg
          ? { name: 'varchar null', bio: 'text null', rank: 'int4 not null' }
          : { name: 'varchar(300) null', bio: 'text null', rank: 'integer not null' },
      );
      expect(Object.keys(await columns(database, 'lib_book')).sort()).toEqual(['author_id', 'id', 'isbn', 'published', 'title']);
      expect(await indexes(database, 'lib_author')).toEqual(['lib_author_name_idx']);
      expect(await indexes(database, 'lib_book')).toEqual(['lib_book_author_id_idx']);
      // Rows survive the rebuilds (SQLite) and the referencing book was not cascaded away.
      expect(await db.selectFrom('lib_author').select(['name', 'rank', 'bio']).execute()).toEqual([{ name: 'Le Guin', rank: 7, bio: null }]);
      expect(await db.selectFrom('lib_book').select(['title', 'published', 'author_id']).execute()).toEqual([
        { title: 'Earthsea', published: 1968, author_id: 1 },
      ]);
      await expect(db.updateTable('lib_author').set({ rank: 100 }).execute()).rejects.toThrow();
      await db.insertInto('lib_book').values({ title: 'Y', author_id: 1, published: -5, isbn: '3' }).execute();
      // The foreign key still cascades after its target was rebuilt.
      await db.insertInto('lib_author').values({ name: 'Gone' }).execute();
      await db.insertInto('lib_book').values({ title: 'Z', author_id: 2, published: 1, isbn: '4' }).execute();
      await db.deleteFrom('lib_author').where('name', '=', 'Gone').execute();
      expect((await db.selectFrom('lib_book').select('title').orderBy('title').execute()).map((r) => r['title'])).toEqual(['Earthsea', 'Y']);
      await db.deleteFrom('lib_book').where('title', '=', 'Y').execute();

      await migrate(database, migrations);
      expect(await columns(database, 'lib_book')).toEqual({});
      expect(Object.keys(await columns(database, 'lib_note'))).toEqual(['id']);

      // Back to 0001: every change undone, the rows kept.
      await migrateTo(database, migrations, { set: 'app', name: '0001_initial' });
      expect(await columns(database, 'lib_author')).toEqual(
        pg
          ? { id: 'int4 not null', name: 'varchar not null', country: 'varchar not null', active: 'bool not null', created: 'timestamptz not null' }
          : { id: 'integer not null', name: 'varchar(200) not null', country: 'varchar(100) not null', active: 'integer not null', created: 'varchar(32) not null' },
      );
      expect(Object.keys(await columns(database, 'lib_book')).sort()).toEqual(['author_id', 'id', 'isbn', 'price', 'title', 'year']);
      expect(await indexes(database, 'lib_book')).toEqual(['lib_book_author_id_idx', 'lib_book_year_id_idx']);
      expect(await indexes(database, 'lib_author')).toEqual([]);
      expect(await db.selectFrom('lib_author').select('name').execute()).toEqual([{ name: 'Le Guin' }]);

      await migrateTo(database, migrations, { set: 'app', name: null });
      expect(await columns(database, 'lib_author')).toEqual({});
    } finally {
      await database.close();
    }
  });

  it('a run that leaves a foreign key pointing nowhere is rolled back whole', async () => {
    const database = await open();
    try {
      const orphan: Migration = {
        async up(db) {
          await sql`insert into lib_book (title, author_id, year, isbn) values ('Orphan', 99, 1, 'o')`.execute(db);
        },
      };
      await expect(migrate(database, { '0001_initial': initial, '0002_orphan': orphan })).rejects.toThrow(
        database.dialect === 'postgres' ? /violates foreign key constraint/ : 'Foreign key violation: lib_book row 1 points at a missing lib_author row.',
      );
      expect(await columns(database, 'lib_book')).toEqual({});
      // Enforcement is back on after the run.
      await migrate(database, { '0001_initial': initial });
      await expect(sql`insert into lib_book (title, author_id, year, isbn) values ('Orphan', 99, 1, 'o')`.execute(database.db)).rejects.toThrow();
    } finally {
      await database.close();
    }
  });
});
