// `trestle migrate <app> <migration>` / `zero` / `--plan`, through the
// command in-process, on SQLite and PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { frameworkMigrations } from '../../src/db/migrations/index.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { testDatabases, type TestDatabaseUrl } from '../helpers/databases.js';
import { runMain } from '../helpers/cli.js';

const FRAMEWORK = frameworkMigrations.map(([name]) => name);

// The project: two reversible migrations and a third without down().
const CONFIG = `
export default {
  migrations: {
    '0001_notes': {
      async up(db) { await db.schema.createTable('note').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text').execute(); },
      async down(db) { await db.schema.dropTable('note').execute(); },
    },
    '0002_note_body': {
      async up(db) { await db.schema.alterTable('note').addColumn('body', 'text').execute(); },
      async down(db) { await db.schema.alterTable('note').dropColumn('body').execute(); },
    },
    '0003_backfill': {
      async up(db) { await db.updateTable('note').set({ body: '' }).execute(); },
    },
  },
};
`;

describe.each(testDatabases())('trestle migrate back and forth on $name', ({ freshUrl }) => {
  let dir: string;
  let target: TestDatabaseUrl;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-migrate-'));
    target = await freshUrl();
  });
  afterEach(async () => {
    await target.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const trestle = (...argv: string[]) => runMain(argv, { cwd: dir, env: { DATABASE_URL: target.url } });

  async function withUsers<T>(fn: (users: KyselyUserStore) => Promise<T>): Promise<T> {
    const database = await openDatabase(target.url);
    try {
      return await fn(new KyselyUserStore(database.db));
    } finally {
      await database.close();
    }
  }

  it('every framework migration goes down and up again; rows of the tables that stay are kept', async () => {
    expect(FRAMEWORK[0]).toBe('0001_users');
    const first = await trestle('migrate');
    expect(first.code, first.stderr).toBe(0);
    const alice = await withUsers((users) => users.createUser({ username: 'alice', email: 'a@example.com', password: 'pw-Tr0ub4dor&3' }));

    for (let i = FRAMEWORK.length - 1; i >= 1; i--) {
      const back = await trestle('migrate', 'trestle', FRAMEWORK[i - 1]!);
      expect(back.stderr).toBe('');
      expect(back.code).toBe(0);
      const undone = FRAMEWORK.slice(i).reverse();
      expect(back.stdout).toBe(`Database: ${redacted(target.url)}\nRunning migrations:\n${undone.map((n) => `  Unapplying trestle.${n}... OK\n`).join('')}`);
      const forth = await trestle('migrate');
      expect(forth.code, forth.stderr).toBe(0);
      expect(forth.stdout).toContain(FRAMEWORK.slice(i).map((n) => `  Applying trestle.${n}... OK\n`).join(''));
      // The users table never went away: alice is as she was.
      expect(await withUsers((users) => users.getByUsername('alice'))).toEqual(alice);
      expect(await withUsers((users) => users.authenticate('alice', 'pw-Tr0ub4dor&3'))).toMatchObject({ username: 'alice' });
    }

    const zero = await trestle('migrate', 'trestle', 'zero');
    expect(zero.code, zero.stderr).toBe(0);
    expect(zero.stdout).toContain([...FRAMEWORK].reverse().map((n) => `  Unapplying trestle.${n}... OK\n`).join(''));
    const list = await trestle('migrate', '--list');
    expect(list.stdout).toBe(`trestle\n${FRAMEWORK.map((n) => ` [ ] ${n}\n`).join('')}app\n (no migrations)\n`);
    const again = await trestle('migrate');
    expect(again.code, again.stderr).toBe(0);
    expect(await withUsers((users) => users.getByUsername('alice'))).toBeNull();
    expect(await withUsers((users) => users.createUser({ username: 'alice' }))).toMatchObject({ username: 'alice' });
  });

  it('--plan shows what would run; a migration without down() is refused in one line, changing nothing', async () => {
    writeFileSync(join(dir, 'trestle.config.mjs'), CONFIG);
    const plan = await trestle('migrate', '--plan');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toBe(
      `Planned operations:\n${FRAMEWORK.map((n) => `  Apply trestle.${n}\n`).join('')}  Apply app.0001_notes\n  Apply app.0002_note_body\n  Apply app.0003_backfill\n`,
    );
    // --plan changed nothing.
    expect((await trestle('migrate', '--list')).stdout).toContain(' [ ] 0001_notes\n');
    expect((await trestle('migrate', 'app', '0001', '--plan')).stdout).toBe('Planned operations:\n  Apply app.0001_notes\n');

    expect((await trestle('migrate')).code).toBe(0);
    expect((await trestle('migrate', '--plan')).stdout).toBe('Planned operations:\n  No planned migration operations.\n');
    expect((await trestle('migrate', 'app', 'zero', '--plan')).stdout).toBe(
      'Planned operations:\n  Unapply app.0003_backfill (IRREVERSIBLE: no down())\n  Unapply app.0002_note_body\n  Unapply app.0001_notes\n',
    );

    const refused = await trestle('migrate', 'app', '0002');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'trestle migrate: Migration app.0003_backfill has no down(): it cannot be unapplied; nothing was changed.\n',
    );
    expect((await trestle('migrate', '--list')).stdout).toContain('app\n [X] 0001_notes\n [X] 0002_note_body\n [X] 0003_backfill\n');
  });

  it('moves the project to a migration and to zero, running down() newest first; forward again to the latest', async () => {
    writeFileSync(join(dir, 'trestle.config.mjs'), CONFIG.replace("'0003_backfill': {", "'0003_backfill': {\n      async down() {},"));
    const up = await trestle('migrate');
    expect(up.code, up.stderr).toBe(0);
    const database = await openDatabase(target.url);
    try {
      await database.db.insertInto('note' as never).values({ id: 1, title: 'kept', body: 'dropped' } as never).execute();
    } finally {
      await database.close();
    }

    const back = await trestle('migrate', 'app', '0001_notes');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('Running migrations:\n  Unapplying app.0003_backfill... OK\n  Unapplying app.0002_note_body... OK\n');
    const rows = async () => {
      const db = await openDatabase(target.url);
      try {
        return await db.db.selectFrom('note' as never).selectAll().execute();
      } finally {
        await db.close();
      }
    };
    // The column went with 0002's down(); the row stayed.
    expect(await rows()).toEqual([{ id: 1, title: 'kept' }]);

    const forth = await trestle('migrate', 'app');
    expect(forth.stdout).toContain('  Applying app.0002_note_body... OK\n  Applying app.0003_backfill... OK\n');
    expect(await rows()).toEqual([{ id: 1, title: 'kept', body: '' }]);

    expect((await trestle('migrate', 'app', 'zero')).code).toBe(0);
    expect((await trestle('migrate', '--list')).stdout).toContain('app\n [ ] 0001_notes\n [ ] 0002_note_body\n [ ] 0003_backfill\n');
    expect((await trestle('migrate', 'app', 'zero')).stdout).toContain('No migrations to apply.');
  });

  it('names an unknown app or migration in one line', async () => {
    writeFileSync(join(dir, 'trestle.config.mjs'), CONFIG);
    const cases: Array<[string[], string]> = [
      [['migrate', 'shop'], 'trestle migrate: No app with label "shop": the apps are "trestle" and "app".\n'],
      [['migrate', 'app', '0009'], 'trestle migrate: Cannot find a migration matching "0009" from app "app".\n'],
      [['migrate', 'app', '000'], 'trestle migrate: More than one migration matches "000" in app "app": 0001_notes, 0002_note_body, 0003_backfill.\n'],
    ];
    for (const [argv, stderr] of cases) {
      const result = await trestle(...argv);
      expect(result).toEqual({ code: 1, stdout: '', stderr });
    }
  });
});

function redacted(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@]*@/, '//$1:***@');
}
