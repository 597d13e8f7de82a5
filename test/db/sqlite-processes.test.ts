import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { APIView, createApp, DefaultRouter, field, model, modelSerializer, ModelViewSet, path, type ApiRequest } from '../../src/index.js';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { TRESTLE_NODE_ARGS } from '../helpers/cli.js';

// Several processes on one SQLite file, as `trestle serve --workers 2` runs
// them: the processes are what is tested, so the server is the real command.

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;

// A counter bumped by a transaction that reads, then writes: with a plain
// (deferred) BEGIN, a process whose snapshot went stale while the other
// process committed cannot write (SQLITE_BUSY_SNAPSHOT) and never waits.
const PROJECT = `import { defineProject, path, APIView } from '${TRESTLE}';

class Bump extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [];
  async post(req) {
    const db = req.app.services.get('db');
    return db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
      await trx.updateTable('counter').set({ value: row.value + 1 }).where('id', '=', 1).execute();
      return { value: row.value + 1, pid: process.pid };
    });
  }
  async get(req) {
    const db = req.app.services.get('db');
    const ro = await db.transaction().setAccessMode('read only').execute((trx) =>
      trx.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow());
    return { value: ro.value };
  }
}

export default defineProject({
  settings: { DEFAULT_THROTTLE_CLASSES: [] },
  routes: [path('bump/', Bump)],
  migrations: {
    '0001_counter': {
      async up(db) {
        await db.schema.createTable('counter').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('value', 'integer', (c) => c.notNull()).execute();
        await db.insertInto('counter').values({ id: 1, value: 0 }).execute();
      },
    },
  },
});
`;

let dir: string;
let child: ChildProcess | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-sqlite-procs-'));
});
afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  child = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('two processes on one SQLite file', () => {
  it('60 concurrent read-then-write transactions all commit (BEGIN IMMEDIATE waits for the lock)', async () => {
    writeFileSync(join(dir, 'trestle.config.ts'), PROJECT);
    // An ES module package: the config then loads through the CLI's own module loader (one copy of Trestle).
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const url = `sqlite:${join(dir, 'app.sqlite3')}`;
    // Migrated here rather than by a third process (the same migration the project declares).
    const database = await openDatabase(url);
    try {
      await migrate(database, {
        '0001_counter': {
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          async up(db: Kysely<any>) {
            await db.schema.createTable('counter').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('value', 'integer', (c) => c.notNull()).execute();
            await db.insertInto('counter').values({ id: 1, value: 0 }).execute();
          },
        },
      });
    } finally {
      await database.close();
    }

    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' };
    delete env['TRESTLE_CONFIG'];
    const server = spawn(process.execPath, [...TRESTLE_NODE_ARGS, 'serve', '--port', '0', '--workers', '2'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = server;
    let stdout = '';
    let stderr = '';
    server.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    server.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const address = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', () => {
        const match = /Trestle listening on (http:\/\/\S+) \(2 workers/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      server.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
    });

    const responses = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const res = await fetch(`${address}bump/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { value: number; pid: number } };
      }),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 60 }, () => 200));
    expect(new Set(responses.map((r) => r.type))).toEqual(new Set(['application/json']));
    // Each transaction saw the one before it: every value from 1 to 60 exactly once, none lost.
    expect(responses.map((r) => r.body.value).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // Both processes answered.
    expect(new Set(responses.map((r) => r.body.pid)).size).toBe(2);

    const final = await fetch(`${address}bump/`);
    expect(final.status).toBe(200);
    expect(await final.json()).toEqual({ value: 60 });
  }, 300_000);
});

describe('a lock held past busy_timeout', () => {
  class Write extends APIView {
    override authenticationClasses = [];
    override permissionClasses = [];
    async post(req: ApiRequest) {
      const db = req.app.services.get('db');
      await sql`insert into item (name) values ('x')`.execute(db);
      return { written: true };
    }
  }

  it('is a 503 with Retry-After, not a 500; the next request after the lock is gone writes', async () => {
    const file = join(dir, 'locked.sqlite3');
    const database = await openDatabase(`sqlite:${file}`, { sqliteBusyTimeoutMs: 50 });
    await sql`create table item (id integer primary key, name text not null)`.execute(database.db);
    const app = await createApp({ logger: false, database, settings: { SERVICE_UNAVAILABLE_RETRY_AFTER: 3 }, routes: [path('items/', Write)] });
    // Another process's write transaction, as far as this connection can tell.
    const other = new BetterSqlite3(file);
    other.exec('begin immediate');
    try {
      const locked = await app.inject({ method: 'POST', url: '/items/', payload: {} });
      expect(locked.statusCode).toBe(503);
      expect(locked.headers['retry-after']).toBe('3');
      expect(locked.headers['content-type']).toBe('application/json');
      expect(locked.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    } finally {
      other.exec('rollback');
      other.close();
    }
    const res = await app.inject({ method: 'POST', url: '/items/', payload: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ written: true });
    const { rows } = await sql<{ n: number }>`select count(*) as n from item`.execute(database.db);
    expect(rows[0]!.n).toBe(1);
    await app.close();
    await database.close();
  });

  it("a model view's create (one statement, no transaction) is a 503 too, and writes once the lock is gone", async () => {
    const file = join(dir, 'model.sqlite3');
    const database = await openDatabase(`sqlite:${file}`, { sqliteBusyTimeoutMs: 50 });
    const Note = model('lock_note', { text: field.char({ maxLength: 20 }) });
    await sql`create table lock_note (id integer primary key autoincrement, text varchar(20) not null)`.execute(database.db);
    class Notes extends ModelViewSet {
      override authenticationClasses = [];
      override permissionClasses = [];
      override model = Note;
      override serializer = modelSerializer(Note) as never;
    }
    const router = new DefaultRouter();
    router.register('notes', Notes, { basename: 'note' });
    const app = await createApp({ logger: false, database, settings: { SERVICE_UNAVAILABLE_RETRY_AFTER: 3 }, routes: router.urls });
    const first = await app.inject({ method: 'POST', url: '/notes/', payload: { text: 'one' } });
    expect(first.statusCode).toBe(201);
    const other = new BetterSqlite3(file);
    other.exec('begin immediate');
    try {
      const locked = await app.inject({ method: 'POST', url: '/notes/', payload: { text: 'two' } });
      expect(locked.statusCode).toBe(503);
      expect(locked.headers['retry-after']).toBe('3');
      expect(locked.json()).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
    } finally {
      other.exec('rollback');
      other.close();
    }
    const res = await app.inject({ method: 'POST', url: '/notes/', payload: { text: 'three' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ id: 2, text: 'three' });
    await app.close();
    await database.close();
  });

  it('a write transaction takes the lock at BEGIN: a locked database fails it before anything is read', async () => {
    const file = join(dir, 'begin.sqlite3');
    const database = await openDatabase(`sqlite:${file}`, { sqliteBusyTimeoutMs: 50 });
    await sql`create table item (id integer primary key, name text not null)`.execute(database.db);
    const other = new BetterSqlite3(file);
    other.exec('begin immediate');
    let reads = 0;
    try {
      const failed = await database.db
        .transaction()
        .execute(async (trx) => {
          reads++;
          return sql`select count(*) from item`.execute(trx);
        })
        .then(() => null, (err: unknown) => err);
      expect((failed as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(reads).toBe(0);
      // A read-only transaction starts deferred and reads the last committed state beside the writer.
      const ro = await database.db.transaction().setAccessMode('read only').execute((trx) => sql<{ n: number }>`select count(*) as n from item`.execute(trx));
      expect(ro.rows[0]!.n).toBe(0);
    } finally {
      other.exec('rollback');
      other.close();
      await database.close();
    }
  });
});
