import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { columnType, field, model, type DatabaseOf } from '../../src/models/index.js';

const Author = model(
  'lib_author',
  {
    name: field.char({ maxLength: 200 }),
    country: field.char({ maxLength: 100, default: '' }),
    bio: field.text({ null: true }),
    created: field.datetime({ autoNowAdd: true }),
  },
  { ordering: ['-created', 'id'], indexes: [{ fields: ['created', 'id'] }] },
);

const Book = model('lib_book', {
  title: field.char({ maxLength: 200 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
  editor: field.foreignKey(Author, { onDelete: 'setNull', null: true }),
  status: field.char({ maxLength: 1, choices: [['d', 'Draft'], ['p', 'Published']], default: 'd' }),
  price: field.decimal({ maxDigits: 8, decimalPlaces: 2 }),
  ref: field.uuid({ default: () => '6f1c2a9e-0000-4000-8000-000000000000' }),
  published: field.boolean({ default: false }),
});

const Code = model('lib_code', { code: field.slug({ primaryKey: true }), label: field.text() });

describe('model types', () => {
  it('row types are inferred: nullable as T | null, foreign keys as <name>_id, choices as their values', () => {
    expectTypeOf<typeof Author.$inferSelect>().toEqualTypeOf<{
      id: number;
      name: string;
      country: string;
      bio: string | null;
      created: Date | string;
    }>();
    expectTypeOf<typeof Book.$inferSelect>().toEqualTypeOf<{
      id: number;
      title: string;
      author_id: number;
      editor_id: number | null;
      status: 'd' | 'p';
      price: string | number;
      ref: string;
      published: boolean;
    }>();
    // A declared primary key replaces the automatic id.
    expectTypeOf<typeof Code.$inferSelect>().toEqualTypeOf<{ code: string; label: string }>();
  });

  it('inserts may omit database defaults, automatic keys and nullable columns; insertValues also callable defaults', () => {
    type AuthorInsert = Insertable<(typeof Author)['$table']>;
    expectTypeOf<{ name: string }>().toExtend<AuthorInsert>();
    expectTypeOf<{ country: string }>().not.toExtend<AuthorInsert>();
    type BookInsert = Insertable<(typeof Book)['$table']>;
    // The uuid's default is a function: the database cannot fill it, so a plain insert must give it …
    expectTypeOf<{ title: string; author_id: number; price: string }>().not.toExtend<BookInsert>();
    // … while insertValues() calls the default.
    expectTypeOf<{ title: string; author_id: number; price: string }>().toExtend<typeof Book.$inferInsert>();
    expectTypeOf<{ title: string; author_id: number; price: string; status: 'x' }>().not.toExtend<typeof Book.$inferInsert>();
    expectTypeOf<{ title: string }>().toExtend<typeof Book.$inferUpdate>();
    expectTypeOf<typeof Book.$inferUpdate>().toEqualTypeOf<Updateable<(typeof Book)['$table']>>();
  });

  it('DatabaseOf gives the Kysely database type, keyed by table name', () => {
    type DB = DatabaseOf<[typeof Author, typeof Book]>;
    expectTypeOf<keyof DB>().toEqualTypeOf<'lib_author' | 'lib_book'>();
    expectTypeOf<Selectable<DB['lib_book']>>().toEqualTypeOf<typeof Book.$inferSelect>();
    const query = (db: Kysely<DB>) =>
      db
        .selectFrom('lib_book')
        .innerJoin('lib_author', 'lib_author.id', 'lib_book.author_id')
        .select(['lib_book.title', 'lib_author.bio'])
        .executeTakeFirstOrThrow();
    expectTypeOf<Awaited<ReturnType<typeof query>>>().toEqualTypeOf<{ title: string; bio: string | null }>();
  });
});

describe('model declarations', () => {
  it('adds an automatic id first, and names relation columns <name>_id', () => {
    expect(Object.keys(Book.fields)).toEqual(['id', 'title', 'author', 'editor', 'status', 'price', 'ref', 'published']);
    expect(Book.primaryKey).toBe('id');
    expect(Code.primaryKey).toBe('code');
    expect(Book.columns()).toMatchObject({ author: 'author_id', editor: 'editor_id', title: 'title' });
    expect(Object.isFrozen(Book.fields)).toBe(true);
  });

  it('insertValues calls callable defaults and leaves constant ones to the database', () => {
    expect(Book.insertValues({ title: 'T', author_id: 1, price: '1.00' })).toEqual({
      title: 'T',
      author_id: 1,
      price: '1.00',
      ref: '6f1c2a9e-0000-4000-8000-000000000000',
    });
  });

  it('rejects a bad declaration with one clear line', () => {
    expect(() => model('t', { a: field.char({ maxLength: 0 }) })).toThrow('Model t: field "a" needs a positive integer maxLength.');
    expect(() => model('t', { a: field.decimal({ maxDigits: 2, decimalPlaces: 3 }) })).toThrow(
      'Model t: field "a" needs integers maxDigits >= decimalPlaces >= 0.',
    );
    expect(() => model('t', { a: field.foreignKey('x', { onDelete: 'setNull' }) })).toThrow(
      `Model t: field "a" has onDelete 'setNull' but is not null: true.`,
    );
    expect(() => model('t', { a: field.text() }, { ordering: ['-b'] })).toThrow('Model t: ordering names "b", which is not a field.');
    expect(() => model('t', { a: field.text({ primaryKey: true }), b: field.text({ primaryKey: true }) })).toThrow(
      'Model t must have exactly one primary key, found a, b.',
    );
    expect(() => model('bad name', { a: field.text() })).toThrow('Model table name "bad name" must be letters, digits and underscores.');
  });
});

describe('column types', () => {
  const cases: Array<[string, ReturnType<typeof field.text> | ReturnType<typeof field.auto>, string, string]> = [
    ['auto', field.auto(), 'serial', 'integer'],
    ['bigAuto', field.bigAuto(), 'bigserial', 'integer'],
    ['char', field.char({ maxLength: 20 }), 'varchar(20)', 'varchar(20)'],
    ['email', field.email(), 'varchar(254)', 'varchar(254)'],
    ['url', field.url(), 'varchar(200)', 'varchar(200)'],
    ['slug', field.slug(), 'varchar(50)', 'varchar(50)'],
    ['text', field.text(), 'text', 'text'],
    ['integer', field.integer(), 'integer', 'integer'],
    ['bigInteger', field.bigInteger(), 'bigint', 'bigint'],
    ['float', field.float(), 'double precision', 'real'],
    ['decimal', field.decimal({ maxDigits: 10, decimalPlaces: 2 }), 'numeric(10, 2)', 'decimal'],
    ['boolean', field.boolean(), 'boolean', 'integer'],
    ['date', field.date(), 'date', 'date'],
    ['datetime', field.datetime(), 'timestamptz', 'varchar(32)'],
    ['time', field.time(), 'time', 'time'],
    ['uuid', field.uuid(), 'uuid', 'char(32)'],
    ['json', field.json(), 'jsonb', 'text'],
    ['foreignKey', field.foreignKey('x', { onDelete: 'cascade' }), 'integer', 'integer'],
  ];
  it.each(cases)('%s is %s on PostgreSQL and %s on SQLite', (_kind, f, pg, sqlite) => {
    expect([columnType(f, 'postgres'), columnType(f, 'sqlite')]).toEqual([pg, sqlite]);
  });
  it('a foreign key to a big automatic key is a bigint', () => {
    expect(columnType(field.foreignKey('x', { onDelete: 'cascade' }), 'postgres', field.bigAuto())).toBe('bigint');
  });
});
