/**
 * A model view's creates on the app's own database, request after request:
 * the insert is compiled once per table, columns and kind of each value,
 * then only bound (src/serializers/model.ts). Each create still answers its
 * own row; a null where a number was, a column left out, a constraint the
 * database enforces and a missing related row behave as on the first create.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, createModel, DefaultRouter, field, include, migration, model, modelSerializer, ModelViewSet, type TrestleApp } from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

const Shelf = model('mw_shelf', { name: field.char({ maxLength: 50 }) });
const Volume = model('mw_volume', {
  title: field.char({ maxLength: 100, unique: true }),
  shelf: field.foreignKey(() => Shelf, { onDelete: 'cascade' }),
  year: field.integer({ null: true }),
  note: field.char({ maxLength: 20, default: 'none' }),
});
const initial = migration({ operations: [Shelf, Volume].map((m) => createModel(m.tableName, m.fields, m.meta)) });

class VolumeViewSet extends ModelViewSet {
  override authenticationClasses = [];
  override permissionClasses = [];
  override model = Volume;
  // No UniqueValidator on title: the database alone refuses a taken one.
  override serializer = modelSerializer(Volume, { fields: ['id', 'title', 'shelf', 'year', 'note'], extraKwargs: { title: { validators: [] } as never } }) as never;
}

describe.each(testDatabases())('model view creates on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;

  beforeEach(async () => {
    database = await open();
    await initial.from({}).up(database.db);
    await (database.db as never as { insertInto: (t: string) => { values: (v: object) => { execute: () => Promise<unknown> } } })
      .insertInto('mw_shelf')
      .values({ name: 'fiction' })
      .execute();
    const router = new DefaultRouter();
    router.register('volumes', VolumeViewSet, { basename: 'volume' });
    app = await createApp({ logger: false, database, routes: [include('api/', router.urls)] });
  });
  afterEach(async () => {
    await app.close();
    await database.close();
  });

  const post = (payload: object) => app.inject({ method: 'POST', url: '/api/volumes/', payload });

  it('answer each new row, whatever the values, and refuse what the database refuses', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await post({ title: `Volume ${i}`, shelf: 1, year: 1990 + i });
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ id: i, title: `Volume ${i}`, shelf: 1, year: 1990 + i, note: 'none' });
    }
    const nullYear = await post({ title: 'Volume 4', shelf: 1, year: null, note: 'later' });
    expect(nullYear.statusCode).toBe(201);
    expect(nullYear.json()).toEqual({ id: 4, title: 'Volume 4', shelf: 1, year: null, note: 'later' });
    const noYear = await post({ title: 'Volume 5', shelf: 1 });
    expect(noYear.statusCode).toBe(201);
    expect(noYear.json()).toEqual({ id: 5, title: 'Volume 5', shelf: 1, year: null, note: 'none' });
    const again = await post({ title: 'Volume 6', shelf: 1, year: 2001 });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual({ id: 6, title: 'Volume 6', shelf: 1, year: 2001, note: 'none' });

    const taken = await post({ title: 'Volume 2', shelf: 1, year: 1 });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toEqual({ title: ['This field must be unique.'] });
    const noShelf = await post({ title: 'Volume 7', shelf: 9, year: 1 });
    expect(noShelf.statusCode).toBe(400);
    expect(noShelf.json()).toEqual({ shelf: ['Invalid pk "9" - object does not exist.'] });

    const list = await app.inject({ url: '/api/volumes/' });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { title: string }[]).map((v) => v.title)).toEqual(['Volume 1', 'Volume 2', 'Volume 3', 'Volume 4', 'Volume 5', 'Volume 6']);
  });
});

/**
 * SQLite runs its automatic WAL checkpoint only when a statement steps to its
 * end: an `INSERT … RETURNING` read with better-sqlite3's `.get()` or `.run()`
 * is reset before that, and the WAL then grows by every insert, unsynced,
 * until the process closes the database. Creates through a model view read
 * all of the statement, so the WAL stays near `wal_autocheckpoint` pages.
 */
describe('model view creates on a SQLite file', () => {
  it('keep the write-ahead log checkpointed: it stays near 1000 pages over 700 creates', async () => {
    const { mkdtempSync, rmSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openDatabase } = await import('../../src/db/database.js');
    const dir = mkdtempSync(join(tmpdir(), 'trestle-wal-'));
    const file = join(dir, 'db.sqlite3');
    const database = await openDatabase(`sqlite://${file}`);
    try {
      await initial.from({}).up(database.db);
      const router = new DefaultRouter();
      router.register('volumes', VolumeViewSet, { basename: 'volume' });
      const app = await createApp({ logger: false, database, routes: [include('api/', router.urls)] });
      try {
        const shelf = await app.inject({ method: 'POST', url: '/api/volumes/', payload: { title: 'x', shelf: 1 } });
        expect(shelf.statusCode).toBe(400); // no shelf yet: nothing written
        await (database.db as never as { insertInto: (t: string) => { values: (v: object) => { execute: () => Promise<unknown> } } })
          .insertInto('mw_shelf')
          .values({ name: 'fiction' })
          .execute();
        let last;
        for (let i = 1; i <= 700; i++) {
          last = await app.inject({ method: 'POST', url: '/api/volumes/', payload: { title: `Volume ${i} ${'x'.repeat(60)}`, shelf: 1, year: i } });
          if (last.statusCode !== 201) break;
        }
        expect(last!.statusCode).toBe(201);
        expect(last!.headers['content-type']).toBe('application/json');
        expect(last!.json()).toEqual({ id: 700, title: `Volume 700 ${'x'.repeat(60)}`, shelf: 1, year: 700, note: 'none' });
        // Unchecked, 700 creates (a table page, the title index, sqlite_sequence) leave ~2,000 pages in the log.
        const pageSize = 4096;
        expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(1100 * (pageSize + 24) + 32);
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
