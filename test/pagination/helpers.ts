import { Writable } from 'node:stream';
import { createApp, ListAPIView, path, type PaginationClass, type SettingsInput, type Source, type TrestleApp } from '../../src/index.js';
import type { ApiRequest } from '../../src/request.js';

export interface Book {
  id: number;
  title: string;
  created: string | null;
}

/** `n` books, ids 1..n, created in id order. */
export function books(n: number): Book[] {
  return Array.from({ length: n }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}`, created: `2024-01-${String(i + 1).padStart(2, '0')}` }));
}

/** A list view over `source` with `paginationClass`, plus any extra fields on the view. */
export function listView<T>(source: () => Source<T>, paginationClass: PaginationClass | null | undefined, extra: Record<string, unknown> = {}): typeof ListAPIView<T> {
  return class extends ListAPIView<T> {
    constructor() {
      super();
      if (paginationClass !== undefined) this.paginationClass = paginationClass;
      Object.assign(this, extra);
    }
    override getQueryset(_req: ApiRequest): Source<T> {
      return source();
    }
  };
}

export interface AppWithLog {
  app: TrestleApp;
  warnings: string[];
}

/** An app serving `view` at `/items/`, capturing warnings logged at start-up. */
export async function serve(view: typeof ListAPIView<unknown>, settings: SettingsInput = {}, more: [string, typeof ListAPIView<unknown>][] = []): Promise<AppWithLog> {
  const warnings: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
      if (line.level === 40) warnings.push(line.msg);
      cb();
    },
  });
  const app = await createApp({
    settings,
    logger: { level: 'warn', stream },
    routes: [path('items/', view), ...more.map(([p, v]) => path(p, v))],
  });
  return { app, warnings };
}

export async function get(app: TrestleApp, url: string) {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, headers: res.headers, body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : null };
}

export const BASE = 'http://localhost:80';

/** Follows `next` from `start` to the end, then `previous` back to the start; returns both id sequences. */
export async function walk(app: TrestleApp, start: string, idOf: (item: unknown) => unknown = (i) => (i as { id: unknown }).id) {
  const forward: unknown[] = [];
  const backward: unknown[][] = [];
  let url: string | null = start;
  let last: Record<string, unknown> | null = null;
  let guard = 0;
  while (url !== null) {
    const res = await get(app, url.replace(BASE, ''));
    if (res.status !== 200) throw new Error(`${url} answered ${res.status} ${JSON.stringify(res.body)}`);
    last = res.body!;
    forward.push(...(last['results'] as unknown[]).map(idOf));
    url = last['next'] as string | null;
    if (++guard > 10_000) throw new Error('no end');
  }
  url = last!['previous'] as string | null;
  backward.unshift((last!['results'] as unknown[]).map(idOf));
  while (url !== null) {
    const res = await get(app, url.replace(BASE, ''));
    if (res.status !== 200) throw new Error(`${url} answered ${res.status} ${JSON.stringify(res.body)}`);
    backward.unshift((res.body!['results'] as unknown[]).map(idOf));
    url = res.body!['previous'] as string | null;
    if (++guard > 20_000) throw new Error('no start');
  }
  return { forward, backward: backward.flat() };
}
