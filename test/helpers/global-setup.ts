import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_TEST_URL } from './pg.js';

/**
 * One test run's PostgreSQL schemas are named `t_<run>_<random>` and dropped
 * here, after every file has finished. Dropping a schema while another file
 * is running makes PostgreSQL's catalogue queries in that file fail now and
 * then ("schema … does not exist", from Kysely's migrator introspecting every
 * schema), so no schema is dropped during the run.
 */
export default function setup(): () => Promise<void> {
  const run = randomBytes(3).toString('hex');
  process.env['TRESTLE_TEST_RUN'] = run;
  return async () => {
    const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
    } catch {
      return; // no PostgreSQL, nothing was created
    }
    try {
      const { rows } = await client.query<{ nspname: string }>(
        `select nspname from pg_namespace where nspname like $1`,
        [`t\\_${run}\\_%`],
      );
      for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
    } finally {
      await client.end();
    }
  };
}
