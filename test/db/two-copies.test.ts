import { Writable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, DATABASE_OF_ANOTHER_COPY, type TrestleApp } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { path } from '../../src/routing/routes.js';
import { ListAPIView } from '../../src/views/generics.js';
import { AllowAny } from '../../src/permissions.js';

/**
 * A database opened by another copy of Trestle's modules than the one that
 * builds the app (two installed copies; a bundle holding its own) answers
 * the same, but that copy cannot use the compiled queries the opening copy
 * keeps: `createApp` says so once, at start-up.
 */
class Things extends ListAPIView<{ id: number; name: string }> {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  override queryset = (db: Kysely<any>) => db.selectFrom('thing').select(['id', 'name']).orderBy('id');
}

function capture(): { warnings: string[]; stream: Writable } {
  const warnings: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) {
        if (!l) continue;
        const line = JSON.parse(l) as { level: number; msg: string };
        if (line.level === 40) warnings.push(line.msg);
      }
      cb();
    },
  });
  return { warnings, stream };
}

describe('a database opened by another copy of Trestle', () => {
  const open: { app: TrestleApp; database: Database }[] = [];
  afterEach(async () => {
    for (const { app, database } of open.splice(0)) {
      await app.close();
      await database.close();
    }
  });

  async function serve(database: Database): Promise<{ app: TrestleApp; warnings: string[] }> {
    await sql`create table thing (id integer primary key, name text not null)`.execute(database.db);
    await sql`insert into thing (name) values ('a'), ('b')`.execute(database.db);
    const { warnings, stream } = capture();
    const app = await createApp({
      settings: { SECRET_KEY: 'x'.repeat(50) },
      routes: [path('things/', Things)],
      database,
      logger: { level: 'info', stream },
    });
    open.push({ app, database });
    return { app, warnings };
  }

  it('answers the same, and createApp warns once at start-up', async () => {
    const same = await serve(await openDatabase('sqlite::memory:'));
    // A second, separate instance of the database modules, as another installed copy would be.
    vi.resetModules();
    const other = (await import('../../src/db/database.js')) as typeof import('../../src/db/database.js');
    expect(other.openDatabase).not.toBe(openDatabase);
    const foreign = await serve(await other.openDatabase('sqlite::memory:'));

    const body = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }];
    for (const { app } of [same, foreign]) {
      for (let i = 0; i < 2; i++) {
        const res = await app.inject({ url: '/things/' });
        expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([200, 'application/json', body]);
      }
    }
    expect(same.warnings).toEqual([]);
    expect(foreign.warnings).toEqual([DATABASE_OF_ANOTHER_COPY]);
  });
});
