import { afterAll, describe, expect, it } from 'vitest';
import type { TrestleApp } from '../../src/index.js';
import { listView, serve } from '../pagination/helpers.js';
import { arrayKind, catalogueView, Pages } from './fixtures.js';

describe('the browsable API shows the filter backends’ controls', () => {
  const apps: TrestleApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  async function html(url: string, extra: Record<string, unknown> = {}) {
    const kind = arrayKind();
    const { app } = await serve(listView(() => kind.books(), Pages, catalogueView(kind, extra)), {});
    apps.push(app);
    const res = await app.inject({ url, headers: { accept: 'text/html' } });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.body };
  }

  it('search form, ordering links and filter-set fields keep the other parameters and drop the page', async () => {
    const res = await html('/items/?search=a&year__gte=1900&page=2');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<details id="filter-controls"');
    expect(res.body).toContain('<input type="search" name="search" value="a">');
    expect(res.body).toContain('<input type="hidden" name="year__gte" value="1900">');
    expect(res.body).not.toContain('<input type="hidden" name="page"');
    expect(res.body).toContain('<a href="/items/?search=a&amp;year__gte=1900&amp;ordering=-year">year - descending</a>');
    expect(res.body).toContain('<input id="filter-year__gte" type="number" name="year__gte" value="1900">');
    expect(res.body).toContain('<select id="filter-note__isnull" name="note__isnull">');
  });

  it('the current ordering is marked and a hostile value is escaped', async () => {
    const res = await html('/items/?ordering=-year&search=%22%3E%3Cscript%3E');
    expect(res.status).toBe(200);
    expect(res.body).toContain('<a href="/items/?search=%22%3E%3Cscript%3E&amp;ordering=-year" aria-current="true">year - descending</a>');
    expect(res.body).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(res.body).not.toContain('"><script>');
  });

  it('a view without filter backends shows no controls', async () => {
    const res = await html('/items/', { filterBackends: [] });
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('filter-controls');
  });
});
