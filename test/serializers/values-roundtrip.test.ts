/**
 * Values round-trip unchanged through HTTP on SQLite and PostgreSQL: a
 * calendar date whatever the process's time zone (east and west of UTC), a
 * timestamp to the millisecond, a decimal quantized as DRF does, a boolean
 * filtered with django-filter's values (typed and shorthand), a JSON column.
 * A GET then a PUT of what it gave stores the very same values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import {
  addIdColumn,
  boolean,
  booleanDefault,
  booleanType,
  createApp,
  date,
  datetime,
  decimal,
  FilterSetBackend,
  filterSet,
  integer,
  json,
  jsonType,
  ListAPIView,
  path,
  RetrieveUpdateAPIView,
  serializer,
  string,
  timestampType,
  toDbBoolean,
  type ApiRequest,
  type Infer,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown> & { id: number };

const Item = serializer({
  id: integer({ readOnly: true }),
  name: string(),
  day: date(),
  at: datetime(),
  price: decimal({ maxDigits: 8, decimalPlaces: 1 }),
  done: boolean(),
  meta: json({ column: true }),
});
type ItemInput = Infer<typeof Item>['input'];

async function createItems(db: AnyDb): Promise<void> {
  await addIdColumn(db, db.schema.createTable('item'))
    .addColumn('name', 'varchar(50)', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('at', timestampType(db), (c) => c.notNull())
    .addColumn('price', 'numeric(10, 2)', (c) => c.notNull())
    .addColumn('done', booleanType(db), (c) => c.notNull().defaultTo(booleanDefault(db, false)))
    .addColumn('meta', jsonType(db), (c) => c.notNull())
    .execute();
  const rows = [
    { name: 'one', day: '2024-05-01', at: '2024-05-01T23:30:00.123Z', price: '3.19', done: true, meta: { a: [1, 'x'], b: null } },
    { name: 'two', day: '2024-01-01', at: '2024-01-01T00:00:00.000Z', price: '999999.99', done: false, meta: 'just text' },
    { name: 'three', day: '1999-12-31', at: '1999-12-31T23:59:59.999Z', price: '0.25', done: true, meta: [] },
  ];
  for (const r of rows) {
    await db
      .insertInto('item')
      .values({ ...r, done: toDbBoolean(r.done), meta: JSON.stringify(r.meta) })
      .execute();
  }
}

function views(db: AnyDb) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const select = () => db.selectFrom('item').selectAll().orderBy('id') as unknown as SelectQueryBuilder<any, any, Row>;
  class Items extends ListAPIView<Row, typeof Item> {
    override authenticationClasses = [];
    override paginationClass = null;
    override serializer = Item;
    override filterBackends = [FilterSetBackend];
    filterset = filterSet({ done: { type: 'boolean', lookups: ['exact', 'isnull'] } });
    override getQueryset() {
      return select();
    }
  }
  class ItemsShorthand extends Items {
    override filterset = undefined as never;
    filtersetFields = ['done', 'name'];
  }
  class ItemDetail extends RetrieveUpdateAPIView<Row, typeof Item> {
    override authenticationClasses = [];
    override serializer = Item;
    override getQueryset() {
      return select();
    }
    override async performUpdate(_req: ApiRequest, item: Row, data: Partial<ItemInput>): Promise<Row> {
      const { done, at, ...rest } = data;
      await db
        .updateTable('item')
        .set({ ...rest, ...(done === undefined ? {} : { done: toDbBoolean(done) }), ...(at === undefined ? {} : { at: at.toISOString() }) })
        .where('id', '=', item.id)
        .execute();
      return select().where('id', '=', item.id).executeTakeFirstOrThrow();
    }
  }
  return [path('items/', Items), path('shorthand/', ItemsShorthand), path('items/<int:pk>/', ItemDetail)];
}

const EXPECTED = [
  { id: 1, name: 'one', day: '2024-05-01', at: '2024-05-01T23:30:00.123000Z', price: '3.2', done: true, meta: { a: [1, 'x'], b: null } },
  { id: 2, name: 'two', day: '2024-01-01', at: '2024-01-01T00:00:00Z', price: '1000000.0', done: false, meta: 'just text' },
  // DRF's default rounding is the decimal context's, ROUND_HALF_EVEN.
  { id: 3, name: 'three', day: '1999-12-31', at: '1999-12-31T23:59:59.999000Z', price: '0.2', done: true, meta: [] },
];

const zones = ['Europe/Berlin', 'America/Los_Angeles'];
const cases = testDatabases().flatMap((database) => zones.map((zone) => ({ ...database, zone })));

describe.each(cases)('values on $name with TZ=$zone', ({ open, zone }) => {
  let database: Database;
  let app: TrestleApp;
  const savedZone = process.env['TZ'];
  beforeAll(async () => {
    // Node applies a changed TZ at once: node-postgres would build local-midnight dates in this zone.
    process.env['TZ'] = zone;
    database = await open();
    await createItems(database.db as unknown as AnyDb);
    app = await createApp({ logger: false, database, routes: views(database.db as unknown as AnyDb) });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    if (savedZone === undefined) delete process.env['TZ'];
    else process.env['TZ'] = savedZone;
  });

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { host: 'localhost' } });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as unknown };
  };
  const put = async (url: string, payload: unknown) => {
    const res = await app.inject({ method: 'PUT', url, headers: { host: 'localhost', 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as unknown };
  };
  const ids = (body: unknown) => (body as Row[]).map((r) => r.id);

  it('renders dates as calendar dates, timestamps with microseconds and Z, decimals quantized, JSON as JSON', async () => {
    expect(new Date(2024, 4, 1).getTimezoneOffset()).not.toBe(0);
    expect(await get('/items/')).toEqual({ status: 200, type: 'application/json', body: EXPECTED });
  });

  it('a GET then a PUT of the same body changes nothing, however often', async () => {
    for (const id of [1, 2, 3]) {
      const first = await get(`/items/${id}/`);
      expect(first).toEqual({ status: 200, type: 'application/json', body: EXPECTED[id - 1] });
      for (let round = 0; round < 3; round++) {
        const { id: _id, ...body } = (await get(`/items/${id}/`)).body as Row;
        const again = await put(`/items/${id}/`, body);
        expect(again).toEqual({ status: 200, type: 'application/json', body: first.body });
      }
    }
    const stored = await database.db.selectFrom('item' as never).select(sql<string>`cast(day as text)`.as('day')).orderBy(sql`id`).execute();
    expect(stored.map((r) => (r as { day: string }).day)).toEqual(['2024-05-01', '2024-01-01', '1999-12-31']);
  });

  it('decimal input is checked with DRF’s messages before it is quantized', async () => {
    const base = { name: 'one', day: '2024-05-01', at: '2024-05-01T23:30:00.123Z', done: true, meta: {} };
    expect(await put('/items/1/', { ...base, price: '3.19' })).toEqual({
      status: 400,
      type: 'application/json',
      body: { price: ['Ensure that there are no more than 1 decimal places.'] },
    });
    expect(await put('/items/1/', { ...base, price: '123456789' })).toEqual({
      status: 400,
      type: 'application/json',
      body: { price: ['Ensure that there are no more than 8 digits in total.'] },
    });
    expect(await put('/items/1/', { ...base, price: '12345678' })).toEqual({
      status: 400,
      type: 'application/json',
      body: { price: ['Ensure that there are no more than 7 digits before the decimal point.'] },
    });
    const ok = await put('/items/1/', { ...base, price: 4 });
    expect(ok).toMatchObject({ status: 200, body: { price: '4.0', meta: {} } });
  });

  it('a boolean filter takes django-filter’s values, typed and shorthand; any other value is no filter', async () => {
    for (const prefix of ['/items/', '/shorthand/']) {
      for (const [value, expected] of [
        ['true', [1, 3]],
        ['True', [1, 3]],
        ['TRUE', [1, 3]],
        ['1', [1, 3]],
        ['false', [2]],
        ['False', [2]],
        ['0', [2]],
        ['yes', [1, 2, 3]],
        ['2', [1, 2, 3]],
      ] as const) {
        const res = await get(`${prefix}?done=${value}`);
        expect([res.status, res.type, ids(res.body)]).toEqual([200, 'application/json', expected]);
      }
    }
    expect(ids((await get('/items/?done__isnull=false')).body)).toEqual([1, 2, 3]);
    // The shorthand keeps comparing text for a field the serializer does not declare boolean.
    expect(ids((await get('/shorthand/?name=two')).body)).toEqual([2]);
  });
});

describe('decimal and datetime options through HTTP', () => {
  const Prices = serializer({
    even: decimal({ maxDigits: 6, decimalPlaces: 1 }),
    up: decimal({ maxDigits: 6, decimalPlaces: 1, rounding: 'ROUND_HALF_UP' }),
    down: decimal({ maxDigits: 6, decimalPlaces: 1, rounding: 'ROUND_DOWN' }),
    number: decimal({ maxDigits: 6, decimalPlaces: 2, coerceToString: false }),
    normal: decimal({ maxDigits: 6, decimalPlaces: 3, normalizeOutput: true }),
    free: decimal({ maxDigits: null, decimalPlaces: null }),
    at: datetime(),
  });
  const rows = [
    { id: 1, even: '0.25', up: '0.25', down: '0.29', number: '12.5', normal: '1.500', free: '1e3', at: '2024-05-01 10:00:00.123456+02' },
    { id: 2, even: '0.35', up: '-0.25', down: '-0.29', number: 3, normal: '2', free: '0.10', at: '2024-05-01T08:00:00Z' },
    { id: 3, even: -2.55, up: '2.449', down: '7', number: '0.005', normal: '0.0001', free: -0.5, at: new Date(Date.UTC(2024, 4, 1, 8, 0, 0, 7)) },
  ];
  class PriceList extends ListAPIView<(typeof rows)[number], typeof Prices> {
    override authenticationClasses = [];
    override paginationClass = null;
    override serializer = Prices;
    override getQueryset() {
      return rows;
    }
  }

  it('round with the field’s mode on exact digits, render numbers when asked, keep a text’s microseconds', async () => {
    const app = await createApp({ logger: false, routes: [path('prices/', PriceList)] });
    try {
      const res = await app.inject({ method: 'GET', url: '/prices/', headers: { host: 'localhost' } });
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/json']);
      expect(JSON.parse(res.body)).toEqual([
        { even: '0.2', up: '0.3', down: '0.2', number: 12.5, normal: '1.5', free: '1000', at: '2024-05-01T08:00:00.123456Z' },
        { even: '0.4', up: '-0.3', down: '-0.2', number: 3, normal: '2', free: '0.10', at: '2024-05-01T08:00:00Z' },
        { even: '-2.6', up: '2.4', down: '7.0', number: 0, normal: '0', free: '-0.5', at: '2024-05-01T08:00:00.007000Z' },
      ]);
      // A JSON number, not a string, where coerceToString is false.
      expect(res.body).toContain('"number":12.5');
    } finally {
      await app.close();
    }
  });
});

describe('datetime text stored in UTC through HTTP', () => {
  const Stamp = serializer({ at: datetime() });
  const rows = [
    { id: 1, at: '2024-05-01T08:00:00.000Z' },
    { id: 2, at: '2024-05-01T08:00:00.5Z' },
    { id: 3, at: '2024-02-29T23:59:59.120Z' },
    { id: 4, at: '2024-05-01T08:00:00.000001Z' },
    { id: 5, at: '0999-12-31T00:00:00Z' },
    // Not a real day: read as JavaScript reads it, as before.
    { id: 6, at: '2023-02-29T00:00:00Z' },
    { id: 7, at: '2024-05-01T24:00:00Z' },
  ];
  class StampList extends ListAPIView<(typeof rows)[number], typeof Stamp> {
    override authenticationClasses = [];
    override paginationClass = null;
    override serializer = Stamp;
    override getQueryset() {
      return rows;
    }
  }

  it('renders as Python’s isoformat: microseconds only when there are some, Z for UTC', async () => {
    const app = await createApp({ logger: false, routes: [path('stamps/', StampList)] });
    try {
      const res = await app.inject({ method: 'GET', url: '/stamps/', headers: { host: 'localhost' } });
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/json']);
      expect(JSON.parse(res.body)).toEqual([
        { at: '2024-05-01T08:00:00Z' },
        { at: '2024-05-01T08:00:00.500000Z' },
        { at: '2024-02-29T23:59:59.120000Z' },
        { at: '2024-05-01T08:00:00.000001Z' },
        { at: '0999-12-31T00:00:00Z' },
        { at: '2023-03-01T00:00:00Z' },
        { at: '2024-05-02T00:00:00Z' },
      ]);
    } finally {
      await app.close();
    }
  });
});
