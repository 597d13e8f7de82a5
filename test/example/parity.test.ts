/**
 * The same requests against the example service on SQLite and on
 * PostgreSQL answer the same status, content type and body: orderings with
 * ties, searches with non-ASCII text, filters, details, cursor and Link
 * pages, and the pages their `next` links lead to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable } from '../helpers/pg.js';
import { testDatabases } from '../helpers/databases.js';
import { startExample, type RunningExample } from './start-example.js';

const REQUESTS = [
  '/api/books/',
  '/api/books/?page=3',
  '/api/books/?ordering=year&page=7',
  '/api/books/?ordering=-year&page=2&page_size=100',
  '/api/books/?ordering=title&page=5',
  '/api/books/?ordering=-created&page=4',
  '/api/books/?search=atlas&ordering=-year&year__gte=1950&page=2',
  '/api/books/?search=M%C3%81RQUEZ',
  '/api/books/?search=lagerl%C3%B6f&ordering=title',
  '/api/books/?author=3&ordering=-year',
  '/api/books/?author__in=4,5&year__lte=1950',
  '/api/books/?isbn=9781000000000',
  '/api/books/?year__range=1950,1960&ordering=year&page=2',
  '/api/books/17/',
  '/api/books/99999/',
  '/api/books/?page=9999',
  '/api/authors/?limit=7&offset=14&ordering=country',
  '/api/authors/?ordering=-country&limit=50&offset=150',
  '/api/authors/?search=wis%C5%82awa',
  '/api/authors/?search=NG%C5%A8G%C4%A8',
  '/api/authors/12/',
  '/api/feed/',
  '/api/feed/?ordering=year',
  '/api/feed/?ordering=-title',
  '/api/shelf/?page=3',
];

interface Answer {
  status: number;
  type: string | undefined;
  link: string | undefined;
  body: unknown;
}

const databases = testDatabases();

if (!pgAvailable()) console.warn('test/example/parity.test.ts: PostgreSQL does not answer; the SQLite/PostgreSQL parity is not tested.');

describe.runIf(databases.length === 2)('the example answers alike on SQLite and PostgreSQL', () => {
  let sqlite: RunningExample;
  let postgres: RunningExample;

  beforeAll(async () => {
    [sqlite, postgres] = await Promise.all([startExample(databases[0]!.open), startExample(databases[1]!.open)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([sqlite?.stop(), postgres?.stop()]);
  });

  async function ask(running: RunningExample, url: string): Promise<Answer> {
    const res = await running.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
    return {
      status: res.statusCode,
      type: res.headers['content-type'] as string | undefined,
      link: res.headers['link'] as string | undefined,
      body: res.body ? (JSON.parse(res.body) as unknown) : null,
    };
  }

  /**
   * A cursor is opaque and signed with each service's own key (PostgreSQL
   * positions are also carried as its text), so cursor links are compared by
   * where they lead: each side follows its own.
   */
  function withoutCursors(answer: Answer): Answer {
    const body = answer.body as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return answer;
    const strip = (link: unknown) => (typeof link === 'string' ? link.replace(/cursor=[^&]*/, 'cursor=…') : link);
    return { ...answer, body: { ...body, next: strip(body['next']), previous: strip(body['previous']) } };
  }

  const pathOf = (link: unknown): string | null => (typeof link === 'string' ? new URL(link).pathname + new URL(link).search : null);

  it.each(REQUESTS)('GET %s', async (url) => {
    // The first answer and two pages further along `next`.
    let nextA: string | null = url;
    let nextB: string | null = url;
    for (let hop = 0; hop < 3 && nextA !== null && nextB !== null; hop++) {
      const [a, b] = await Promise.all([ask(sqlite, nextA), ask(postgres, nextB)]);
      if (hop === 0) expect(a.status, nextA).toBeLessThan(500);
      const cursor = nextA.startsWith('/api/feed/');
      if (cursor) expect(withoutCursors(b), `${nextB} on PostgreSQL`).toEqual(withoutCursors(a));
      else expect(b, `${nextB} on PostgreSQL`).toEqual(a);
      nextA = pathOf((a.body as { next?: unknown } | null)?.next);
      nextB = pathOf((b.body as { next?: unknown } | null)?.next);
    }
  });

  it('the requests found rows: the comparison is not of empty pages', async () => {
    const counts = await Promise.all(
      ['/api/books/?search=M%C3%81RQUEZ', '/api/authors/?search=wis%C5%82awa', '/api/books/?year__range=1950,1960'].map(async (url) => {
        const a = await ask(postgres, url);
        return (a.body as { count: number }).count;
      }),
    );
    for (const n of counts) expect(n).toBeGreaterThan(0);
  });
});
