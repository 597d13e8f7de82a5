/**
 * A field whose source the row lacks (a misnamed `source`, a column the
 * query did not select) is DRF's KeyError: a logged 500 naming the field,
 * the serializer and the view, never a silent `null`. Fields that are not
 * required keep DRF's handling of a missing key: the default, `null` when
 * null is allowed, else the key is left out.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { createApp, integer, ListAPIView, path, RetrieveAPIView, serializer, string, type ApiRequest, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

interface BookRow {
  id: number;
  title: string;
  note: string | null;
}
type DB = { book: BookRow };

const Misnamed = serializer({ id: integer({ readOnly: true }), title: string({ source: 'titel' }) }, { name: 'Book' });
const Unselected = serializer({ id: integer({ readOnly: true }), title: string(), note: string() }, { name: 'BookWithNote' });
const Optional = serializer(
  {
    id: integer({ readOnly: true }),
    title: string(),
    skipped: string({ required: false }),
    nullable: string({ source: 'note', allowNull: true, required: false }),
    defaulted: string({ source: 'subtitle', default: 'none' }),
    computed: string({ source: 'author.name', readOnly: true }),
  },
  { name: 'BookOptional' },
);

describe.each(testDatabases())('a serializer source missing from the row on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  const errors: { msg: string; err?: { message?: string } }[] = [];

  beforeAll(async () => {
    database = await open();
    const db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('book')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('title', 'varchar(100)', (c) => c.notNull())
      .addColumn('note', 'varchar(100)')
      .execute();
    await db.insertInto('book').values([{ id: 1, title: 'Kindred', note: 'classic' }, { id: 2, title: 'Dawn', note: null }]).execute();

    const base = <S>(s: S, select: 'all' | 'some') =>
      class extends ListAPIView<BookRow> {
        override authenticationClasses = [];
        override permissionClasses = [];
        override paginationClass = null;
        override serializer = s as never;
        override getQueryset(_req: ApiRequest) {
          const q = db.selectFrom('book').orderBy('id');
          return (select === 'all' ? q.selectAll() : q.select(['id', 'title'])) as never;
        }
      };
    class MisnamedList extends base(Misnamed, 'all') {}
    class UnselectedList extends base(Unselected, 'some') {}
    class OptionalList extends base(Optional, 'some') {}
    class SelectedList extends base(Unselected, 'all') {}
    class MisnamedDetail extends RetrieveAPIView<BookRow> {
      override authenticationClasses = [];
      override permissionClasses = [];
      override serializer = Misnamed as never;
      override getQueryset(_req: ApiRequest) {
        return db.selectFrom('book').selectAll() as never;
      }
    }
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        const line = JSON.parse(chunk.toString()) as { level: number; msg: string; err?: { message?: string } };
        if (line.level >= 50) errors.push(line);
        cb();
      },
    });
    app = await createApp({
      // The start-up check would refuse these views (serializers.E002);
      // silenced here to test what a request meets when it is.
      settings: { SILENCED_SYSTEM_CHECKS: ['serializers.E002'] },
      logger: { level: 'error', stream },
      routes: [
        path('misnamed/', MisnamedList),
        path('misnamed/<int:pk>/', MisnamedDetail),
        path('unselected/', UnselectedList),
        path('optional/', OptionalList),
        path('optional-all/', SelectedList),
      ],
    });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    return { status: res.statusCode, type: res.headers['content-type'], body: JSON.parse(res.body) as unknown };
  };
  const lastError = () => errors[errors.length - 1]?.err?.message;

  it('a misnamed source is a logged 500 naming the field, the serializer, the view and the key', async () => {
    errors.length = 0;
    expect(await get('/misnamed/')).toEqual({ status: 500, type: 'application/json', body: { detail: 'A server error occurred.' } });
    expect(errors).toHaveLength(1);
    expect(lastError()).toBe(
      'Got KeyError when attempting to get a value for field `title` on serializer `Book` of view `MisnamedList`.\n' +
        'The serializer field might be named incorrectly and not match any attribute or key on the `dict` instance.\n' +
        "Original exception text was: 'titel'.",
    );
    expect(await get('/misnamed/1/')).toEqual({ status: 500, type: 'application/json', body: { detail: 'A server error occurred.' } });
    expect(lastError()).toContain('field `title` on serializer `Book` of view `MisnamedDetail`');
  });

  it('a required column the query did not select is a 500, not null', async () => {
    errors.length = 0;
    expect(await get('/unselected/')).toEqual({ status: 500, type: 'application/json', body: { detail: 'A server error occurred.' } });
    expect(lastError()).toContain("field `note` on serializer `BookWithNote` of view `UnselectedList`");
    expect(lastError()).toContain("Original exception text was: 'note'.");
  });

  it('a stored NULL of the same column renders null', async () => {
    expect(await get('/optional-all/')).toEqual({
      status: 200,
      type: 'application/json',
      body: [
        { id: 1, title: 'Kindred', note: 'classic' },
        { id: 2, title: 'Dawn', note: null },
      ],
    });
  });

  it('fields that are not required render a missing key as DRF: default, null when allowed, else left out', async () => {
    errors.length = 0;
    expect(await get('/optional/')).toEqual({
      status: 200,
      type: 'application/json',
      body: [
        { id: 1, title: 'Kindred', nullable: null, defaulted: 'none' },
        { id: 2, title: 'Dawn', nullable: null, defaulted: 'none' },
      ],
    });
    expect(errors).toEqual([]);
  });
});
