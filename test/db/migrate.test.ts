import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type Migration } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { listMigrations, migrate, MigrationError, type MigrationProgress } from '../../src/db/migrate.js';
import { frameworkMigrations } from '../../src/db/migrations/index.js';
import { testDatabases } from '../helpers/databases.js';
import { runTrestle } from '../helpers/cli.js';

const FRAMEWORK = frameworkMigrations.map(([name]) => name);

async function names(database: Database, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(table)} order by name`.execute(database.db);
  return rows.map((r) => r.name);
}

const bookMigrations: Record<string, Migration> = {
  '0001_books': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('app_book').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('app_book').execute();
    },
  },
};

describe.each(testDatabases())('migrations on $name', ({ open, freshUrl }) => {
  it('applies framework then app migrations once, and is idempotent', async () => {
    const database = await open();
    try {
      const events: MigrationProgress[] = [];
      const first = await migrate(database, bookMigrations, { onProgress: (e) => events.push(e) });
      expect(first.applied).toEqual([
        ...FRAMEWORK.map((name) => ({ set: 'framework', name })),
        { set: 'app', name: '0001_books' },
      ]);
      expect(events.filter((e) => e.phase === 'done').map((e) => `${e.set}/${e.name}`)).toEqual([
        ...FRAMEWORK.map((n) => `framework/${n}`),
        'app/0001_books',
      ]);
      expect((await migrate(database, bookMigrations)).applied).toEqual([]);
      expect(await names(database, 'trestle_migration')).toEqual(FRAMEWORK);
      expect(await names(database, 'trestle_app_migration')).toEqual(['0001_books']);
      await sql`insert into app_book (id, title) values (1, 'Dune')`.execute(database.db);
    } finally {
      await database.close();
    }
  });

  it('lists applied and pending migrations', async () => {
    const database = await open();
    try {
      const before = await listMigrations(database, bookMigrations);
      expect(before.every((m) => !m.applied && m.appliedAt === null)).toBe(true);
      expect(before.map((m) => `${m.set}/${m.name}`)).toEqual([...FRAMEWORK.map((n) => `framework/${n}`), 'app/0001_books']);
      await migrate(database);
      const after = await listMigrations(database, bookMigrations);
      expect(after.map((m) => m.applied)).toEqual([...FRAMEWORK.map(() => true), false]);
      expect(after[0]!.appliedAt).toBeInstanceOf(Date);
    } finally {
      await database.close();
    }
  });

  it('reports a failing migration and leaves it unapplied', async () => {
    const database = await open();
    try {
      const broken: Record<string, Migration> = {
        ...bookMigrations,
        '0002_broken': {
          async up(db: Kysely<unknown>) {
            await sql`select * from no_such_table`.execute(db);
          },
        },
      };
      const failure = migrate(database, broken);
      await expect(failure).rejects.toBeInstanceOf(MigrationError);
      await expect(failure).rejects.toThrow(/app\/0002_broken failed/);
      const status = await listMigrations(database, broken);
      expect(status.find((m) => m.name === '0002_broken')!.applied).toBe(false);
      // The database is still usable and a fixed run goes through.
      expect((await migrate(database, bookMigrations)).applied.length).toBeLessThanOrEqual(FRAMEWORK.length + 1);
      expect(await names(database, 'trestle_app_migration')).toEqual(['0001_books']);
    } finally {
      await database.close();
    }
  });

  it('is safe when two processes migrate the same fresh database at once', async () => {
    const { url, cleanup } = await freshUrl();
    const dir = mkdtempSync(join(tmpdir(), 'trestle-race-'));
    try {
      // A slow app migration that fails if applied twice (the table would exist).
      writeFileSync(
        join(dir, 'trestle.config.mjs'),
        `export default {
          migrations: {
            '0001_slow': {
              async up(db) {
                await new Promise((r) => setTimeout(r, 400));
                await db.schema.createTable('race_marker').addColumn('id', 'integer').execute();
              },
            },
          },
        };\n`,
      );
      const run = () => runTrestle(['migrate', '--database-url', url], { cwd: dir });
      const [a, b] = await Promise.all([run(), run()]);
      expect([a.code, a.stderr], a.stderr).toEqual([0, '']);
      expect([b.code, b.stderr], b.stderr).toEqual([0, '']);
      const applying = (a.stdout + b.stdout).match(/Applying app\.0001_slow\.\.\. OK/g) ?? [];
      expect(applying).toHaveLength(1);
      const database = await openDatabase(url);
      try {
        expect(await names(database, 'trestle_migration')).toEqual(FRAMEWORK);
        expect(await names(database, 'trestle_app_migration')).toEqual(['0001_slow']);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await cleanup();
    }
  });
});

describe('migration lock on SQLite', () => {
  it('waits for another process holding the write lock, longer than the normal busy timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trestle-lock-'));
    const file = join(dir, 'db.sqlite3');
    // Another process takes the write lock, says so, and keeps it for 600 ms.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.pragma('journal_mode = WAL');
         db.exec('begin immediate');
         console.log('locked');
         setTimeout(() => { db.exec('commit'); db.close(); }, 600);`,
        file,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.once('data', () => resolve());
        holder.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
      });
      const migrator = await openDatabase(`sqlite:${file}`, { sqliteBusyTimeoutMs: 50 });
      try {
        expect((await migrate(migrator)).applied.map((m) => m.name)).toEqual(FRAMEWORK);
      } finally {
        await migrator.close();
      }
    } finally {
      holder.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
