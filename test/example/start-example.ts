import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KyselyUserStore, migrate, type Database, type TrestleApp } from '../../src/index.js';
import project, { createExampleApp } from '../../example/project.js';
import { seedCatalogue } from '../../example/catalogue/seed.js';

/** The example service on a fresh database, migrated and seeded, as `npm start` builds it. */
export interface RunningExample {
  database: Database;
  app: TrestleApp;
  /** Whether this start seeded the catalogue (it always should on a fresh database). */
  seeded: boolean;
  stop(): Promise<void>;
}

export async function startExample(open: () => Promise<Database>): Promise<RunningExample> {
  const database = await open();
  await migrate(database, project.migrations);
  const users = new KyselyUserStore(database.db);
  const dataDir = mkdtempSync(join(tmpdir(), 'trestle-example-'));
  const app = await createExampleApp({ database, users, dataDir, logger: false });
  const seeded = await seedCatalogue({ database, db: app.trestle.services.get('db'), users });
  return {
    database,
    app,
    seeded,
    async stop() {
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
