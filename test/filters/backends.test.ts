import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { generateOpenAPI, searchSmartSplit, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { BASE, get, listView, serve, walk } from '../pagination/helpers.js';
import { arrayKind, catalogueView, createTables, Feed, Pages, queryKind, type DB, type SourceKind } from './fixtures.js';

const ids = (body: unknown): number[] => {
  const list = Array.isArray(body) ? body : ((body as Record<string, unknown>)['results'] as unknown[]);
  return (list as { id: number }[]).map((b) => b.id);
};

const kinds: { name: string; make: () => Promise<SourceKind>; close?: (k: SourceKind) => Promise<void> }[] = [
  { name: 'array', make: async () => arrayKind() },
  ...testDatabases().map((t) => ({
    name: t.name,
    make: async () => {
      const database = await t.open();
      await createTables(database.db as unknown as Kysely<DB>);
      return queryKind(t.name, database);
    },
    close: (k: SourceKind) => k.database!.close(),
  })),
];

describe('searchSmartSplit', () => {
  it('splits on commas and whitespace and keeps quoted phrases, as DRF', () => {
    expect(searchSmartSplit(`a,b "c d" 'e,f' ,g, "x \\"y\\"" "`)).toEqual(['a', 'b', 'c d', 'e,f', 'g', 'x "y"', '']);
    expect(searchSmartSplit(' , ')).toEqual([]);
  });
});

describe.each(kinds)('filter backends over $name', ({ name, make, close }) => {
  let kind: SourceKind;
  const apps: TrestleApp[] = [];
  beforeAll(async () => {
    kind = await make();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    if (close) await close(kind);
  });

  async function app(extra: Record<string, unknown> = {}, pagination: unknown = null) {
    const s = await serve(listView(() => kind.books(), pagination as never, catalogueView(kind, extra)), { SECRET_KEY: 'filters-test' });
    apps.push(s.app);
    return s.app;
  }
  const list = async (url: string, extra: Record<string, unknown> = {}) => {
    const res = await get(await app(extra), url);
    return res;
  };

  describe('SearchFilter', () => {
    it('matches any search field, case-insensitively; every term must match', async () => {
      const a = await app();
      expect(await get(a, '/items/?search=ATLAS')).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
      expect(ids((await get(a, '/items/?search=ATLAS')).body)).toEqual([7, 8]);
      expect(ids((await get(a, '/items/?search=le%20guin')).body)).toEqual([1, 2]);
      expect(ids((await get(a, '/items/?search=left,darkness')).body)).toEqual([2]);
    });

    it('searches the related author name the source joins', async () => {
      expect(ids((await list('/items/?search=mitchell')).body)).toEqual([8]);
      expect(ids((await list('/items/?search=crouch%20percent')).body)).toEqual([6]);
    });

    it('a quoted phrase is one term, as DRF splits terms', async () => {
      const a = await app();
      expect(ids((await get(a, '/items/?search=%22left%20hand%22')).body)).toEqual([2]);
      expect(ids((await get(a, '/items/?search=%22hand%20left%22')).body)).toEqual([]);
    });

    it('the = prefix matches the whole value only', async () => {
      const a = await app();
      expect(ids((await get(a, '/items/?search=978-0-06-051275-9')).body)).toEqual([1]);
      expect(ids((await get(a, '/items/?search=978-0-06')).body)).toEqual([]);
    });

    it('the ^ prefix matches the start only', async () => {
      const a = await app({ searchFields: [`^${kind.col.title}`] });
      expect(ids((await get(a, '/items/?search=atlas')).body)).toEqual([7]);
    });

    it('% and _ in a term match literally, never as wildcards', async () => {
      const a = await app();
      expect(ids((await get(a, '/items/?search=100%25')).body)).toEqual([3]);
      expect(ids((await get(a, '/items/?search=%25')).body)).toEqual([3]);
      expect(ids((await get(a, '/items/?search=snake_case')).body)).toEqual([4]);
      expect(ids((await get(a, '/items/?search=_')).body)).toEqual([4]);
      expect(ids((await get(a, '/items/?search=%5C')).body)).toEqual([]);
    });

    it('an empty or blank search filters nothing', async () => {
      const a = await app();
      expect(ids((await get(a, '/items/?search=')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(ids((await get(a, '/items/?search=%20,%20')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('a NUL is dropped, as DRF 3.14 drops it, never a database error', async () => {
      const a = await app();
      const res = await get(a, '/items/?search=at%00las');
      expect(res).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
      expect(ids(res.body)).toEqual([7, 8]);
      expect(ids((await get(a, '/items/?search=%00')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('1,000 terms, or more than maxTerms, are a 400 before any query', async () => {
      const a = await app();
      const many = await get(a, `/items/?search=${Array.from({ length: 1000 }, (_, i) => `t${i}`).join(',')}`);
      expect(many).toMatchObject({ status: 400, body: { search: ['Ensure this field has no more than 500 characters.'] } });
      const eleven = await get(a, `/items/?search=${'a '.repeat(11)}`);
      expect(eleven).toMatchObject({ status: 400, body: { search: ['Ensure this field has no more than 10 terms.'] } });
      expect(ids((await get(a, `/items/?search=${'a '.repeat(10)}`)).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });

  it.runIf(name === 'postgres')('@ is full-text search and $ a case-insensitive regular expression on PostgreSQL', async () => {
    const a = await app({ searchFields: [`@${kind.col.title}`, `$${kind.col.isbn}`] });
    expect(ids((await get(a, '/items/?search=%22left%20darkness%22')).body)).toEqual([2]);
    expect(ids((await get(a, '/items/?search=^(111|222)$')).body)).toEqual([4, 5]);
    expect(await get(a, '/items/?search=(')).toMatchObject({ status: 400, body: { search: ['Invalid regular expression.'] } });
  });

  it.runIf(name !== 'postgres')('@ falls back to "every word contained" off PostgreSQL', async () => {
    const a = await app({ searchFields: [`@${kind.col.title}`] });
    expect(ids((await get(a, '/items/?search=%22darkness%20left%22')).body)).toEqual([2]);
  });

  describe('OrderingFilter', () => {
    it('orders by a comma list, - for descending', async () => {
      const a = await app();
      const res = await get(a, '/items/?ordering=-year,id');
      expect(res).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
      expect(ids(res.body)).toEqual([3, 8, 5, 6, 1, 2, 7, 4]);
      expect(ids((await get(a, '/items/?ordering=year,-id')).body)).toEqual([4, 7, 2, 1, 6, 5, 8, 3]);
    });

    it('orders by a related field under its client-facing name', async () => {
      expect(ids((await list('/items/?ordering=author,-year')).body)).toEqual([5, 4, 7, 3, 6, 8, 1, 2]);
    });

    it('unknown or disallowed fields are dropped; none left means the view ordering', async () => {
      const a = await app();
      expect(ids((await get(a, '/items/?ordering=isbn,-year,id')).body)).toEqual([3, 8, 5, 6, 1, 2, 7, 4]);
      expect(ids((await get(a, '/items/?ordering=password')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(ids((await get(a, '/items/?ordering=-id%00')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(ids((await get(a, '/items/?ordering=')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(ids((await get(a, '/items/?ordering=--id')).body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('without orderingFields a client cannot choose: the default ordering stands', async () => {
      const res = await list('/items/?ordering=-id', { orderingFields: undefined, ordering: [`-${kind.col.year}`, kind.col.id] });
      expect(ids(res.body)).toEqual([3, 8, 5, 6, 1, 2, 7, 4]);
    });
  });

  describe('FilterSetBackend', () => {
    it('exact, in, gt/gte/lt/lte, range, isnull, icontains and date-time bounds', async () => {
      const a = await app();
      const cases: [string, number[]][] = [
        ['year=1974', [1]],
        ['year=1974.0', [1]],
        ['author=1', [1, 2]],
        ['author__in=1,3', [1, 2, 4, 5]],
        ['year__gte=2000&year__lt=2010', [5, 6, 8]],
        ['year__gt=2001&year__lte=2016', [3, 8]],
        ['year__range=1950,1970', [2, 7]],
        ['note__isnull=false', [2, 4]],
        ['note__isnull=True', [1, 3, 5, 6, 7, 8]],
        ['isbn=111', [4]],
        ['isbn__icontains=-0-', [1, 2]],
        ['isbn__icontains=%25', []],
        ['created__gte=2024-01-05', [5, 6, 7, 8]],
        ['created__gte=2024-01-05T02:00:00%2B02:00&created__lt=2024-01-07', [5, 6]],
        ['published__lt=2024-01-03', [1, 2]],
        ['year=&author=', [1, 2, 3, 4, 5, 6, 7, 8]],
        ['unknown=1&year__foo=2', [1, 2, 3, 4, 5, 6, 7, 8]],
        ['note__isnull=maybe', [1, 2, 3, 4, 5, 6, 7, 8]],
      ];
      for (const [query, expected] of cases) {
        const res = await get(a, `/items/?${query}`);
        expect({ query, status: res.status, body: res.status === 200 ? ids(res.body) : res.body }).toEqual({ query, status: 200, body: expected });
      }
    });

    it('combines with search and ordering', async () => {
      const res = await list('/items/?author__in=1,2&search=the&ordering=-year');
      expect(ids(res.body)).toEqual([1, 2]);
    });

    it("an invalid value is a 400 naming every bad parameter, with Django's messages", async () => {
      const a = await app();
      const res = await get(a, '/items/?year=abc&author__in=1,b&created__gte=2024-13-01&isbn=a%00&year__range=1&year__gte=99999999999&year__lte=1e3');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual({
        author__in: ['Enter a whole number.'],
        year: ['Enter a whole number.'],
        year__gte: ['Ensure this value is less than or equal to 2147483647.'],
        year__lte: ['Enter a whole number.'],
        year__range: ['Range query expects two values.'],
        isbn: ['Null characters are not allowed.'],
        created__gte: ['Enter a valid date/time.'],
      });
      expect(await get(a, `/items/?author__in=${Array.from({ length: 101 }, (_, i) => i).join(',')}`)).toMatchObject({
        status: 400,
        body: { author__in: ['Ensure this field has no more than 100 elements.'] },
      });
    });
  });

  describe('pagination keeps filter, search and ordering parameters', () => {
    it('page-number next/previous carry them', async () => {
      const a = await app({}, Pages);
      const p1 = await get(a, '/items/?search=a&ordering=-year,id&year__gte=1900');
      expect(p1.status).toBe(200);
      expect(ids(p1.body)).toEqual([3, 8, 5]);
      expect(p1.body!['next']).toBe(`${BASE}/items/?ordering=-year%2Cid&page=2&search=a&year__gte=1900`);
      const p2 = await get(a, String(p1.body!['next']).replace(BASE, ''));
      expect(ids(p2.body)).toEqual([6, 1, 2]);
      expect(p2.body!['previous']).toBe(`${BASE}/items/?ordering=-year%2Cid&search=a&year__gte=1900`);
    });
  });

  describe('CursorPagination takes its ordering from the OrderingFilter', () => {
    it('?ordering=year walks every item once, ties broken by id, forward and back', async () => {
      const a = await app({}, Feed);
      const { forward, backward } = await walk(a, '/items/?ordering=year');
      expect(forward).toEqual([4, 7, 2, 1, 5, 6, 8, 3]);
      expect(backward).toEqual(forward);
      const desc = await walk(a, '/items/?ordering=-year&author__in=1,2,3');
      expect(desc.forward).toEqual([3, 6, 5, 1, 2, 4]);
    });

    it('an ordering that names a unique column pages by it; later names change nothing', async () => {
      const a = await app({}, Feed);
      expect((await walk(a, '/items/?ordering=id,year')).forward).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect((await walk(a, '/items/?ordering=-year,-id,title')).forward).toEqual([3, 8, 6, 5, 1, 2, 7, 4]);
    });

    it('a cursor made under one ordering is rejected under another', async () => {
      const a = await app({}, Feed);
      const next = String((await get(a, '/items/?ordering=year')).body!['next']);
      const cursor = new URL(next).searchParams.get('cursor')!;
      expect(await get(a, `/items/?ordering=year&cursor=${cursor}`)).toMatchObject({ status: 200 });
      expect(await get(a, `/items/?ordering=-year&cursor=${cursor}`)).toMatchObject({
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: { detail: 'Invalid cursor' },
      });
    });

    it('unknown ordering names fall back to the view ordering', async () => {
      const a = await app({ ordering: ['-id'] }, Feed);
      expect(ids((await get(a, '/items/?ordering=secret')).body)).toEqual([8, 7, 6]);
    });
  });

  it('OpenAPI lists search, ordering (allowed values) and typed filter parameters on the list operation', async () => {
    const a = await app({}, Pages);
    const doc = generateOpenAPI(a);
    const op = doc.paths['/items/']!.get!;
    const params = Object.fromEntries((op.parameters ?? []).map((p) => [p.name, p]));
    expect(Object.keys(params)).toEqual([
      'page',
      'author', 'author__in', 'year', 'year__gt', 'year__gte', 'year__lt', 'year__lte', 'year__range',
      'isbn', 'isbn__icontains', 'note__isnull', 'created__gte', 'created__lt', 'published__lt',
      'search', 'ordering',
    ]);
    expect(params['search']).toEqual({ name: 'search', in: 'query', required: false, description: 'A search term.', schema: { type: 'string' } });
    expect(params['ordering']).toEqual({
      name: 'ordering', in: 'query', required: false, description: 'Which field to use when ordering the results.',
      style: 'form', explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['id', '-id', 'title', '-title', 'year', '-year', 'author', '-author'] } },
    });
    expect(params['year']!.schema).toEqual({ type: 'integer' });
    expect(params['author__in']).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { type: 'integer' } } });
    expect(params['created__gte']!.schema).toEqual({ type: 'string', format: 'date-time' });
    expect(params['published__lt']!.schema).toEqual({ type: 'string', format: 'date' });
    expect(params['note__isnull']!.schema).toEqual({ type: 'boolean' });
    expect(op.responses['400']).toBeDefined();
  });
});
