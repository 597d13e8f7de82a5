/**
 * What every benchmark app shares: the dataset's names, the bench user and
 * its token, the secret and the page size. Kept in one place so the Trestle
 * app and the hand-written baselines cannot drift apart.
 */

/** Bumped when the dataset's shape changes; part of the cached file's name. */
export const DATASET_VERSION = 2;

/** Rows in the small and the large item table. */
export const SMALL_ROWS = 10_000;
export const LARGE_ROWS = 1_000_000;

export const SMALL_TABLE = 'bench_item_small';
export const LARGE_TABLE = 'bench_item_large';

/** Items per page for every style (PAGE_SIZE). */
export const PAGE_SIZE = 20;

/** `{ capped: N }` for the count-strategy workloads. */
export const COUNT_CAP = 1_000;

export const BENCH_USERNAME = 'bench';
export const BENCH_PASSWORD = 'bench-password-1';
/** A fixed DRF-shaped key (40 hex), imported rather than generated so runs are repeatable. */
export const BENCH_TOKEN = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';

/** SECRET_KEY of every app (cursor signing, token key encryption). */
export const BENCH_SECRET = 'bench-secret-key-not-for-production-0123456789abcdef';

/** Items carry `created` as ISO-8601 text: row `id` is `EPOCH_MS + id` seconds. */
export const EPOCH_MS = Date.UTC(2020, 0, 1);

/** The schema W6 loads its PostgreSQL copy into. */
export const PG_SCHEMA = 'trestle_bench';
export const PG_URL_DEFAULT = 'postgres://postgres@127.0.0.1:5432/test';
