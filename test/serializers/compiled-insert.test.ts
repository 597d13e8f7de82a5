/**
 * A model serializer's insert compiled per shape of validated data
 * (src/serializers/compiled-insert.ts): from the second POST of a shape on,
 * its parameters are built by the compiled function instead of the generic
 * way. Each shape is POSTed twice, the first built the generic way and the
 * second compiled, and the two must store and answer the same (a relation
 * as its key, null, a boolean, the empty string Django gives an omitted
 * string, now for `autoNowAdd`); a value of another kind, keys in another
 * order, a transaction's executor and a callable default take the generic
 * way — on SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApp, field, ListCreateAPIView, model, modelSerializer, path, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { createModelTables } from '../helpers/model-tables.js';

const Shelf = model('ci_shelf', { label: field.char({ maxLength: 20 }) });
const Item = model(
  'ci_item',
  {
    name: field.char({ maxLength: 50 }),
    note: field.char({ maxLength: 50, null: true }),
    code: field.char({ maxLength: 10, blank: true }),
    flag: field.boolean({ default: false }),
    shelf: field.foreignKey(() => Shelf, { onDelete: 'cascade' }),
    added: field.datetime({ autoNowAdd: true }),
  },
  { ordering: ['id'] },
);
let stamps = 0;
const Stamped = model('ci_stamped', {
  name: field.char({ maxLength: 20 }),
  stamp: field.char({ maxLength: 20, default: () => `S${stamps++}` }),
});

const ItemSerializer = modelSerializer(Item, { fields: ['id', 'name', 'note', 'code', 'flag', 'shelf', 'added'] });
const StampedSerializer = modelSerializer(Stamped, { fields: ['id', 'name', 'stamp'], readOnlyFields: ['stamp'] });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

class Items extends ListCreateAPIView<Row> {
  override authenticationClasses = [];
  override permissionClasses = [];
  override model = Item;
  override serializer = ItemSerializer as never;
}
class StampedItems extends ListCreateAPIView<Row> {
  override authenticationClasses = [];
  override permissionClasses = [];
  override model = Stamped;
  override serializer = StampedSerializer as never;
}

describe.each(testDatabases())('inserts compiled per shape of data on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let k: Kysely<any>;

  beforeEach(async () => {
    database = await open();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    k = database.db as unknown as Kysely<any>;
    await createModelTables(k, [Shelf, Item, Stamped]);
    await k.insertInto('ci_shelf').values([{ label: 'one' }, { label: 'two' }]).execute();
    app = await createApp({ logger: false, database, routes: [path('items/', Items), path('stamped/', StampedItems)] });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await app.close();
    await database.close();
  });

  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
  /** A stored row without what differs between two inserts of the same data. */
  const stored = async (id: number) => {
    const { id: _id, added, ...rest } = (await k.selectFrom('ci_item').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as Row;
    expect(Date.now() - new Date(added as string).getTime()).toBeLessThan(60_000);
    return rest;
  };

  it('stores and answers the same whether built the generic way or compiled', async () => {
    const generic = vi.spyOn(Item, 'fillInsertValues');
    const bodies: [object, Row][] = [
      [{ name: 'plain', shelf: 1 }, { name: 'plain', note: null, code: '', flag: false, shelf_id: 1 }],
      [{ name: 'full', shelf: 2, note: 'n', code: 'c1', flag: true }, { name: 'full', note: 'n', code: 'c1', flag: true, shelf_id: 2 }],
      [{ name: 'nulls', shelf: 1, note: null, code: '', flag: false }, { name: 'nulls', note: null, code: '', flag: false, shelf_id: 1 }],
      [{ name: 'flagged', shelf: 2, flag: true }, { name: 'flagged', note: null, code: '', flag: true, shelf_id: 2 }],
    ];
    let calls = 0;
    for (const [shape, [body, expected]] of bodies.entries()) {
      const answers = [];
      for (const time of ['generic', 'compiled']) {
        const res = await post('/items/', body);
        expect(res.statusCode, time).toBe(201);
        expect(res.headers['content-type']).toBe('application/json');
        const json = res.json() as Row;
        const row = await stored(json['id'] as number);
        expect({ ...row, flag: Boolean(row['flag']) }, `${JSON.stringify(body)} ${time}`).toEqual(expected);
        const { id: _id, added, ...rest } = json;
        expect(added).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        answers.push(rest);
        calls++;
        // The first POST of a shape goes the generic way (the model's fills), the second not.
        expect(generic, `${JSON.stringify(body)} ${time}`).toHaveBeenCalledTimes(shape + 1);
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[0]).toEqual({ ...expected, shelf: expected['shelf_id'], shelf_id: undefined });
    }
    expect(calls).toBe(8);
  });

  it('hands another kind of value, and every shape past the fourth, to the generic way, with the same result', async () => {
    expect((await post('/items/', { name: 'a', shelf: 1, note: null })).statusCode).toBe(201);
    expect((await post('/items/', { name: 'b', shelf: 1, note: null })).statusCode).toBe(201);
    const generic = vi.spyOn(Item, 'fillInsertValues');
    // The same keys, a string where the compiled insert saw null: the generic way, then compiled for it too.
    for (const name of ['c', 'd']) {
      const res = await post('/items/', { name, shelf: 2, note: 'text' });
      expect(res.statusCode).toBe(201);
      expect(await stored(res.json().id)).toMatchObject({ name, note: 'text', shelf_id: 2 });
    }
    expect(generic).toHaveBeenCalledTimes(1);
    // Two more shapes fill the four; a fifth is built the generic way every time.
    for (const body of [{ name: 'e', shelf: 1, code: 'x' }, { name: 'f', shelf: 1, flag: true }]) expect((await post('/items/', body)).statusCode).toBe(201);
    generic.mockClear();
    for (const name of ['g', 'h']) {
      const res = await post('/items/', { name, shelf: 2, code: 'y', flag: true });
      expect(res.statusCode).toBe(201);
      expect(await stored(res.json().id)).toMatchObject({ name, code: 'y', shelf_id: 2 });
    }
    expect(generic).toHaveBeenCalledTimes(2);
    // Data whose keys come in another order than a compiled shape's (a `create` called with data of its own).
    generic.mockClear();
    const shelf = await k.selectFrom('ci_shelf').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
    const row = await ItemSerializer.create(k, { note: null, shelf, name: 'i' } as never, { request: null });
    expect(generic).toHaveBeenCalledTimes(1);
    expect(await stored(row['id'] as number)).toEqual({ name: 'i', note: null, code: '', flag: expect.anything(), shelf_id: 2 });
    // A related row that does not exist is still refused, compiled shape or not.
    const missing = await post('/items/', { name: 'z', shelf: 99 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ shelf: ['Invalid pk "99" - object does not exist.'] });
  });

  it('writes inside a transaction through the transaction, not the compiled insert', async () => {
    for (const name of ['a', 'b']) expect((await post('/items/', { name, shelf: 1 })).statusCode).toBe(201);
    const before = await k.selectFrom('ci_item').select(k.fn.countAll().as('n')).executeTakeFirstOrThrow();
    await expect(
      k.transaction().execute(async (trx) => {
        const row = await ItemSerializer.create(trx, { name: 'rolled back', shelf: (await trx.selectFrom('ci_shelf').selectAll().where('id', '=', 1).executeTakeFirstOrThrow()) as never }, { request: null });
        expect(row['name']).toBe('rolled back');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await k.selectFrom('ci_item').select(k.fn.countAll().as('n')).executeTakeFirstOrThrow()).toEqual(before);
  });

  it('calls a callable default once per insert (such a shape is not compiled)', async () => {
    stamps = 0;
    const stampsSeen = [];
    for (const name of ['a', 'b', 'c']) {
      const res = await post('/stamped/', { name });
      expect(res.statusCode).toBe(201);
      stampsSeen.push(res.json().stamp);
    }
    expect(stampsSeen).toEqual(['S0', 'S1', 'S2']);
    expect(stamps).toBe(3);
  });
});
