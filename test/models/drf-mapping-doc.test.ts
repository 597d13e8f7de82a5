// docs/migrating-from-drf.md's Trestle resource, taken from the Markdown and
// run as written: migrated from its models, answering DRF's messages.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migration, type AnyModel, type RouteEntry, type UserRecord } from '../../src/index.js';
import { detectChanges } from '../../src/models/autodetector.js';
import { EMPTY_STATE } from '../../src/models/state.js';
import { APIClient, testApp } from '../../src/test/index.js';

const DOC = readFileSync(join(import.meta.dirname, '../../docs/migrating-from-drf.md'), 'utf8');
const block = [...DOC.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('class BookViewSet'))!;

describe('docs/migrating-from-drf.md: the ported resource', () => {
  let dir: string;
  let running: Awaited<ReturnType<typeof testApp>>;
  let client: APIClient;
  beforeAll(async () => {
    // Next to the sources, so the block's import of 'trestle' can point at them.
    dir = mkdtempSync(join(import.meta.dirname, '.doc-'));
    const file = join(dir, 'resource.ts');
    writeFileSync(file, block.replace("from 'trestle'", `from '${pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href}'`));
    const mod = (await import(pathToFileURL(file).href)) as { Author: AnyModel; Book: AnyModel; routes: RouteEntry[] };
    running = await testApp({
      routes: mod.routes,
      migrations: { '0001_initial': migration({ operations: detectChanges(EMPTY_STATE, [mod.Author, mod.Book]) }) },
    });
    const user: UserRecord = await running.users.createUser({ username: 'ana', password: 'a long enough password' });
    client = running.client();
    client.forceAuthenticate(user);
    await running.database.db.insertInto('library_author' as never).values({ name: 'Ursula K. Le Guin' } as never).execute();
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, refuses a duplicate and a missing author with DRF messages, filters and searches', async () => {
    const created = await client.post('/books/', { title: 'The Dispossessed', author: 1, isbn: '9780060512750', year: 1974 }, { format: 'json' });
    expect([created.status, created.data]).toEqual([201, { id: 1, title: 'The Dispossessed', author: 1, isbn: '9780060512750', year: 1974 }]);
    const duplicate = await client.post('/books/', { title: 'Again', author: 999, isbn: '9780060512750', year: 1974 }, { format: 'json' });
    expect([duplicate.status, duplicate.headers['content-type'], duplicate.data]).toEqual([
      400,
      'application/json',
      { author: ['Invalid pk "999" - object does not exist.'], isbn: ['book with this isbn already exists.'] },
    ]);
    const long = await client.post('/books/', { title: 'x'.repeat(201), author: 1, isbn: '1' }, { format: 'json' });
    expect([long.status, long.data]).toEqual([400, { title: ['Ensure this field has no more than 200 characters.'] }]);
    const found = await client.get('/books/', { search: 'le guin', year__gte: '1970' });
    expect([found.status, (found.data as { id: number }[]).map((b) => b.id)]).toEqual([200, [1]]);
    const none = await client.get('/books/', { year__lte: '1969' });
    expect([none.status, none.data]).toEqual([200, []]);
  });
});
