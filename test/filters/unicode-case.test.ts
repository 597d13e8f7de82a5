import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { FilterSetBackend, filterSet, foldCase, SearchFilter, type Source, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';
import { get, listView, serve } from '../pagination/helpers.js';

interface WordTable {
  id: number;
  title: string;
}

// Capital and small forms of letters outside ASCII, and letters whose case mappings are not one to one.
const WORDS: WordTable[] = [
  { id: 1, title: 'ÉCOLE' },
  { id: 2, title: 'école' },
  { id: 3, title: 'Straße' },
  { id: 4, title: 'STRASSE' },
  { id: 5, title: 'ΟΔΟΣ' },
  { id: 6, title: 'οδος' },
  { id: 7, title: 'οδοσ' },
  { id: 8, title: 'İstanbul' },
  { id: 9, title: 'istanbul' },
  { id: 10, title: 'ISTANBUL' },
  { id: 11, title: 'Ёлка' },
  { id: 12, title: 'ЁЛКА' },
  { id: 13, title: 'plain ascii' },
  { id: 14, title: 'Kırık ſtil' },
];

const kinds: { name: string; make: () => Promise<{ source: () => Source<unknown>; database?: Database }> }[] = [
  { name: 'array', make: async () => ({ source: () => WORDS }) },
  ...testDatabases().map((t) => ({
    name: t.name,
    make: async () => {
      const database = await t.open();
      const db = database.db as unknown as Kysely<{ word: WordTable }>;
      await db.schema.createTable('word').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'varchar(100)', (c) => c.notNull()).execute();
      await db.insertInto('word').values(WORDS).execute();
      return { source: () => db.selectFrom('word').selectAll().orderBy('id'), database };
    },
  })),
];

const ids = (body: unknown): number[] => (body as { id: number }[]).map((w) => w.id);

describe('foldCase', () => {
  it('takes each character simple upper case: no expansion, no context, no locale', () => {
    expect(foldCase('école')).toBe('ÉCOLE');
    expect(foldCase('Straße')).toBe('STRAßE');
    expect(foldCase('οδος')).toBe('ΟΔΟΣ');
    expect(foldCase('οδοσ')).toBe('ΟΔΟΣ');
    expect(foldCase('İstanbul')).toBe('İSTANBUL');
    expect(foldCase('ᾳ ﬁ')).toBe('ᾼ ﬁ');
    expect(foldCase('plain')).toBe('PLAIN');
  });
});

describe.each(kinds)('case-insensitive lookups over $name', ({ make }) => {
  let app: TrestleApp;
  let database: Database | undefined;
  let source: () => Source<unknown>;
  beforeAll(async () => {
    const made = await make();
    database = made.database;
    source = made.source;
    const view = listView(source, null, {
      filterBackends: [FilterSetBackend, SearchFilter],
      searchFields: ['title'],
      filterset: filterSet({ title: { type: 'string', lookups: ['exact', 'iexact', 'icontains', 'istartswith', 'iendswith'] } }),
    });
    app = (await serve(view)).app;
  });
  afterAll(async () => {
    await app.close();
    await database?.close();
  });

  const found = async (query: string) => {
    const res = await get(app, `/items/?${query}`);
    expect(res).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
    return ids(res.body);
  };

  it('a stored non-ASCII value is found by itself and by its other case', async () => {
    expect(await found('search=%C3%89COLE')).toEqual([1, 2]);
    expect(await found('search=%C3%A9cole')).toEqual([1, 2]);
    expect(await found('search=Cole')).toEqual([1, 2]);
    expect(await found('search=%D1%91%D0%BB')).toEqual([11, 12]);
  });

  it('an ASCII term meets ı and ſ as the I and S they upper-case to', async () => {
    expect(await found('search=kirik')).toEqual([14]);
    expect(await found('search=STIL')).toEqual([14]);
    // An S without an I: only ſ can add a row (ſt → ST), and it does.
    expect(await found('search=st')).toEqual([3, 4, 8, 9, 10, 14]);
    expect(await found(`title__iexact=${encodeURIComponent('KIRIK STIL')}`)).toEqual([14]);
    expect(await found(`title__iexact=${encodeURIComponent('KIRIK ſTIL')}`)).toEqual([14]);
  });

  it('σ, ς and Σ are one letter', async () => {
    expect(await found(`search=${encodeURIComponent('ΟΔΟΣ')}`)).toEqual([5, 6, 7]);
    expect(await found(`search=${encodeURIComponent('οδος')}`)).toEqual([5, 6, 7]);
    expect(await found(`search=${encodeURIComponent('ς')}`)).toEqual([5, 6, 7]);
  });

  it('ß is not SS, and the dotted capital İ matches only itself', async () => {
    expect(await found(`search=${encodeURIComponent('ß')}`)).toEqual([3]);
    expect(await found('search=strasse')).toEqual([4]);
    expect(await found(`search=${encodeURIComponent('STRAẞE')}`)).toEqual([]);
    expect(await found(`search=${encodeURIComponent('İstanbul')}`)).toEqual([8]);
    expect(await found('search=istanbul')).toEqual([9, 10]);
  });

  it('iexact, icontains, istartswith and iendswith fold as search does; exact does not', async () => {
    expect(await found(`title__iexact=${encodeURIComponent('école')}`)).toEqual([1, 2]);
    expect(await found(`title=${encodeURIComponent('école')}`)).toEqual([2]);
    expect(await found(`title__icontains=${encodeURIComponent('COL')}`)).toEqual([1, 2]);
    expect(await found(`title__istartswith=${encodeURIComponent('éC')}`)).toEqual([1, 2]);
    expect(await found(`title__iendswith=${encodeURIComponent('ος')}`)).toEqual([5, 6, 7]);
    expect(await found(`title__iendswith=${encodeURIComponent('ЛКА')}`)).toEqual([11, 12]);
    expect(await found(`title__iexact=${encodeURIComponent('PLAIN ASCII')}`)).toEqual([13]);
  });

  it('the ^ and = search prefixes fold the same way', async () => {
    for (const [field, query, expected] of [
      ['^title', 'ÉC', [1, 2]],
      ['^title', 'col', []],
      ['=title', 'École', [1, 2]],
      ['=title', 'ΟΔΟς', [5, 6, 7]],
    ] as const) {
      const other = (await serve(listView(source, null, { filterBackends: [SearchFilter], searchFields: [field] }))).app;
      try {
        const res = await get(other, `/items/?search=${encodeURIComponent(query)}`);
        expect(res).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
        expect([field, query, ids(res.body)]).toEqual([field, query, expected]);
      } finally {
        await other.close();
      }
    }
  });
});
