// A client program written only against the types generated from the
// example's /openapi.json: sign in, list, create, fetch, modify, save the
// whole record back, delete. It type-checks without casts (the test runs tsc
// on it) and runs against the live example.
import { createClient } from './typed-fetch.js';

export interface RoundTrip {
  statuses: Record<string, number>;
  listed: string[];
  years: number[];
  searched: string[];
  created: { id: number; title: string; author: string };
  saved: { title: string; author: string; year: number };
  gone: number;
}

export async function roundTrip(baseUrl: string, username: string, password: string): Promise<RoundTrip> {
  const anonymous = createClient(baseUrl);
  const login = await anonymous.request('post', '/api-token-auth/', { body: { username, password } });
  if (!login.data) throw new Error(`login failed: ${login.status}`);
  const api = createClient(baseUrl, { headers: { authorization: `Token ${login.data.token}` } });
  const statuses: Record<string, number> = { login: login.status };

  const page = await api.request('get', '/api/books/', { query: { page: 1, page_size: 5, ordering: ['-year', 'id'] } });
  statuses['list'] = page.status;
  const first = page.data?.results[0];
  if (!first) throw new Error('no books');
  const listed = (page.data?.results ?? []).map((book) => book.title);
  const years = (page.data?.results ?? []).map((book) => book.year);
  const found = await api.request('get', '/api/books/', { query: { search: first.title, ordering: ['title'] } });
  statuses['search'] = found.status;
  const searched = (found.data?.results ?? []).map((book) => book.title);

  const created = await api.request('post', '/api/books/', {
    body: { title: 'Typed client', author: first.author, year: 2025, isbn: '9780000000002' },
  });
  statuses['create'] = created.status;
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const id: number = created.data.id;

  const fetched = await api.request('get', '/api/books/{pk}/', { path: { pk: id } });
  statuses['retrieve'] = fetched.status;
  if (!fetched.data) throw new Error('fetch failed');
  const book = fetched.data;

  const saved = await api.request('put', '/api/books/{pk}/', { path: { pk: id }, body: { ...book, title: `${book.title}, revised`, year: book.year + 1 } });
  statuses['update'] = saved.status;
  if (!saved.data) throw new Error(`save failed: ${JSON.stringify(saved.error)}`);

  const patched = await api.request('patch', '/api/books/{pk}/', { path: { pk: id }, body: { isbn: '9780000000003' } });
  statuses['partial_update'] = patched.status;

  const removed = await api.request('delete', '/api/books/{pk}/', { path: { pk: id } });
  statuses['destroy'] = removed.status;
  const after = await api.request('get', '/api/books/{pk}/', { path: { pk: id } });

  return {
    statuses,
    listed,
    years,
    searched,
    created: { id, title: created.data.title, author: created.data.author },
    saved: { title: saved.data.title, author: saved.data.author, year: saved.data.year },
    gone: after.status,
  };
}
