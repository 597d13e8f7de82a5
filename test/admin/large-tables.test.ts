// The change list on a large table: counted with the API's count strategies
// (PostgreSQL's planner estimate past 10,000 rows, exact on SQLite), the
// filtered count, Django's show_full_result_count, and pages past the rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createModel, field, migration, model } from '../../src/models/index.js';
import { pageSource } from '../../src/pagination/index.js';
import { setReadNow } from '../../src/db/direct.js';
import { AdminSite, adminRoutes, createApp, type TrestleApp } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { CookieJar, inputValue } from '../browsable/cookies.js';

const Volume = model('stack_volume', {
  title: field.char({ maxLength: 100 }),
  featured: field.boolean({ default: false }),
});

const PASSWORD = 'correct horse battery staple';
const FORM = 'application/x-www-form-urlencoded';
type Db = Kysely<Record<string, Record<string, unknown>>>;

/** Every SQL text run on the app's own executor (the listing, its counts, EXPLAIN). */
function recordStatements(db: Kysely<unknown>): string[] {
  const seen: string[] = [];
  const executor = db.getExecutor() as unknown as { executeQuery(query: CompiledQuery, ...rest: unknown[]): Promise<unknown> };
  const run = executor.executeQuery.bind(executor);
  executor.executeQuery = (query, ...rest) => {
    seen.push(query.sql);
    return run(query, ...rest);
  };
  // On SQLite a read may be answered at once, outside executeQuery (see readNow): here every
  // statement goes through executeQuery, so each is seen.
  setReadNow(db.getExecutor(), { all: () => undefined, first: () => undefined });
  return seen;
}

const isCount = (s: string) => /count\(\*\)/i.test(s);
const isExplain = (s: string) => /^explain/i.test(s.trim());
const onVolumes = (s: string) => s.includes('"stack_volume"');
const group = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

describe.each(testDatabases())('a large change list on $name', ({ name, open }) => {
  // PostgreSQL estimates past the 10,000-row threshold; SQLite cannot estimate, so it counts even above it.
  const ROWS = name === 'postgres' ? 200_005 : 20_005;
  const FEATURED = Math.floor(ROWS / 1000);
  let database: Database;
  let apps: TrestleApp[] = [];
  let statements: string[];
  let jars: CookieJar[] = [];

  async function login(app: TrestleApp): Promise<CookieJar> {
    const jar = new CookieJar();
    const page = await app.inject({ url: '/admin/login/', headers: { accept: 'text/html' } });
    jar.store(page.headers['set-cookie']);
    const res = await app.inject({
      method: 'POST',
      url: '/admin/login/',
      headers: { accept: 'text/html', 'content-type': FORM, cookie: jar.header() },
      payload: new URLSearchParams({ csrfmiddlewaretoken: inputValue(page.body, 'csrfmiddlewaretoken'), username: 'root', password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(302);
    jar.store(res.headers['set-cookie']);
    return jar;
  }

  /** The page at `url` on app `i`, and the statements on the volumes table it ran. */
  async function list(i: number, url: string) {
    const from = statements.length;
    const res = await apps[i]!.inject({ url, headers: { accept: 'text/html', cookie: jars[i]!.header() } });
    return { res, sql: statements.slice(from).filter(onVolumes) };
  }

  beforeAll(async () => {
    database = await open();
    const db = database.db as unknown as Db;
    await migrate(database, { '0001_initial': migration({ operations: [createModel(Volume.tableName, { ...Volume.fields }, Volume.meta)] }) });
    if (name === 'postgres') {
      await sql`INSERT INTO stack_volume (title, featured) SELECT 'Volume ' || g, g % 1000 = 0 FROM generate_series(1, ${ROWS}) AS g`.execute(db);
      await sql`ANALYZE stack_volume`.execute(db);
    } else {
      await sql`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${ROWS}) INSERT INTO stack_volume (title, featured) SELECT 'Volume ' || n, n % 1000 = 0 FROM g`.execute(db);
    }
    const settings = { SECRET_KEY: 'test-secret-key-for-large-change-lists-0123456789' };
    // The defaults (countStrategy 'estimated', showFullResultCount true) and a capped count with no full count.
    const sites = [
      new AdminSite().register(Volume, { listDisplay: ['title', 'featured'], listFilter: ['featured'], searchFields: ['title'], str: (v) => v.title }),
      new AdminSite().register(Volume, { listDisplay: ['title', 'featured'], listFilter: ['featured'], searchFields: ['title'], countStrategy: { capped: 1000 }, showFullResultCount: false }),
    ];
    apps = await Promise.all(sites.map((site) => createApp({ settings, routes: [adminRoutes({ site })], database, logger: false })));
    await apps[0]!.trestle.services.get('users').createUser({ username: 'root', password: PASSWORD, isStaff: true, isSuperuser: true });
    jars = [await login(apps[0]!), await login(apps[1]!)];
    statements = recordStatements(database.db as Kysely<unknown>);
  }, 20_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.close();
  });

  it('counts the whole list by the estimate on PostgreSQL and exactly on SQLite; page links stop at the next page unless the count is exact', async () => {
    const { res, sql: run } = await list(0, '/admin/stack/volume/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<tr data-pk="' + ROWS + '">');
    expect(res.body).toContain('<li class="active"><a href="/admin/stack/volume/" aria-current="page">1</a></li><li><a href="/admin/stack/volume/?p=2">2</a></li>');
    expect(res.body).toContain('<a href="/admin/stack/volume/?p=2" rel="next" aria-label="Next">&raquo;</a>');
    const lastPage = Math.ceil(ROWS / 100);
    if (name === 'postgres') {
      const estimate = (await pageSource((database.db as unknown as Db).selectFrom('stack_volume').selectAll()).estimatedCount())!;
      expect(Math.abs(estimate - ROWS)).toBeLessThan(ROWS / 10);
      expect(res.body).toContain(`<p class="paginator muted" id="paginator">about ${group(estimate)} volumes</p>`);
      // One EXPLAIN, no count(*): the listing fetched one row more than its page to find the next.
      expect(run.filter(isExplain)).toHaveLength(1);
      expect(run.filter(isCount)).toEqual([]);
      // No last page: 1, 2, then a break.
      expect(res.body).toContain('<li><a href="/admin/stack/volume/?p=2">2</a></li><li class="disabled"><span>&hellip;</span></li><li><a href="/admin/stack/volume/?p=2" rel="next"');
      expect(res.body).not.toContain(`?p=${lastPage}"`);
    } else {
      expect(res.body).toContain(`<p class="paginator muted" id="paginator">${group(ROWS)} volumes</p>`);
      expect(run.filter(isExplain)).toEqual([]);
      expect(run.filter(isCount)).toHaveLength(1);
      expect(res.body).toContain(`<li><a href="/admin/stack/volume/?p=${lastPage}">${lastPage}</a></li>`);
    }

    // The last page renders with its rows and no next link, under either count.
    const last = await list(0, `/admin/stack/volume/?p=${lastPage}`);
    expect(last.res.statusCode).toBe(200);
    expect(last.res.body).toContain('<tr data-pk="1">');
    expect(last.res.body).toContain('<li class="disabled"><span aria-label="Next">&raquo;</span></li>');
    expect(last.res.body).toContain(`<li class="active"><a href="/admin/stack/volume/?p=${lastPage}" aria-current="page">${lastPage}</a></li>`);
    // Having found no next page, the last page knows the exact count.
    expect(last.res.body).toContain(`<p class="paginator muted" id="paginator">${group(ROWS)} volumes</p>`);
    if (name === 'postgres') expect(last.sql.filter(isCount)).toEqual([]);
  });

  it('a page past the rows, a huge page number or a page that is no number is a 404 page, never a 500', async () => {
    for (const p of [String(Math.ceil(ROWS / 100) + 1), '5000', '999999999', '99999999999', '0', '-1', '2.5', 'abc']) {
      const { res } = await list(0, `/admin/stack/volume/?p=${p}`);
      expect(res.statusCode, p).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Invalid page.');
    }
  });

  it('a filtered list counts its rows (exact below the threshold) and the whole table for "(N total)"', async () => {
    const { res, sql: run } = await list(0, '/admin/stack/volume/?featured__exact=1');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<p class="paginator muted" id="paginator">${FEATURED} volumes</p>`);
    expect(res.body).toContain('<tr data-pk="' + FEATURED * 1000 + '">');
    const filtered = (s: string) => /where/i.test(s);
    if (name === 'postgres') {
      const estimate = (await pageSource((database.db as unknown as Db).selectFrom('stack_volume').selectAll()).estimatedCount())!;
      expect(res.body).toContain(`<span class="muted" id="result-count">${FEATURED} results (<a href="/admin/stack/volume/">about ${group(estimate)} total</a>)</span>`);
      // The filter's estimate is below the threshold, so it is counted; the table is only estimated.
      expect(run.filter(isExplain).map(filtered)).toEqual([true, false]);
      expect(run.filter(isCount).map(filtered)).toEqual([true]);
    } else {
      expect(res.body).toContain(`<span class="muted" id="result-count">${FEATURED} results (<a href="/admin/stack/volume/">${group(ROWS)} total</a>)</span>`);
      expect(run.filter(isExplain)).toEqual([]);
      expect(run.filter(isCount).map(filtered)).toEqual([true, false]);
    }
  });

  it('showFullResultCount: false runs no count of the whole table; a capped count says "more than N"', async () => {
    const filtered = await list(1, '/admin/stack/volume/?featured__exact=1');
    expect(filtered.res.statusCode).toBe(200);
    expect(filtered.res.body).toContain(`<span class="muted" id="result-count">${FEATURED} results (<a href="/admin/stack/volume/">Show all</a>)</span>`);
    const counts = filtered.sql.filter((s) => isCount(s) || isExplain(s));
    expect(counts).toHaveLength(1);
    expect(counts[0]).toMatch(/where/i);

    const whole = await list(1, '/admin/stack/volume/');
    expect(whole.res.statusCode).toBe(200);
    expect(whole.res.body).toContain('<p class="paginator muted" id="paginator">more than 1,000 volumes</p>');
    expect(whole.res.body).toContain('<li class="disabled"><span>&hellip;</span></li><li><a href="/admin/stack/volume/?p=2" rel="next"');
    // Counted up to the cap and one more row, never the whole table.
    expect(whole.sql.filter(isCount)).toHaveLength(1);
    expect(whole.sql.filter(isCount)[0]).toMatch(/limit/i);
    // Past the cap, pages still work by fetching one row more.
    const beyond = await list(1, '/admin/stack/volume/?p=50');
    expect(beyond.res.statusCode).toBe(200);
    expect(beyond.res.body).toContain('<li class="active"><a href="/admin/stack/volume/?p=50" aria-current="page">50</a></li>');
  });
});
