/**
 * The workloads: which URL, with what, against which servers. W4 runs a
 * second load (obtain-token) at the same time as W1 and compares W1's p99.
 */
import { BENCH_PASSWORD, BENCH_TOKEN, BENCH_USERNAME, EPOCH_MS, LARGE_ROWS, PAGE_SIZE, SMALL_ROWS } from './constants.js';
import { cursorBinding, signPosition } from './cursor-token.js';

/** Which process serves a workload. */
export type ServerKind = 'trestle' | 'fastify' | 'node';

export interface Workload {
  /** `W1`…`W6`. */
  id: string;
  name: string;
  path: string;
  servers: readonly ServerKind[];
  /** The bench dataset (W1–W6), or the example's catalogue (W7, W8: the example app against the catalogue baseline). */
  database: 'sqlite' | 'postgres' | 'catalogue-sqlite' | 'catalogue-postgres';
  /** POST with this JSON body (W8) instead of GET. */
  body?: string;
  /** W4: POST obtain-token at the same time, and measure this path alone as well. */
  withObtainToken?: boolean;
  /** Part of `--quick`. */
  quick: boolean;
  /** Slow on purpose (whole-table count, deep offset): left out of the server's first warm-up pass. */
  slow?: boolean;
  /** Connections for this case instead of the run's (`--connections`, default 16). */
  connections?: number;
}

const ALL: readonly ServerKind[] = ['trestle', 'fastify', 'node'];
const PAIR: readonly ServerKind[] = ['trestle', 'fastify'];

function created(id: number): string {
  return new Date(EPOCH_MS + id * 1000).toISOString();
}

/** A cursor positioned after the item `rank` rows deep in the newest-first listing. */
function cursorAfterRank(rank: number): string {
  const id = LARGE_ROWS - rank + 1;
  return encodeURIComponent(signPosition(cursorBinding('/w2/items/'), created(id), id, false));
}

const DEEP_SMALL_PAGE = Math.floor((SMALL_ROWS / PAGE_SIZE) * 0.9);

/** W1–W6 on the bench dataset. */
const BENCH_WORKLOADS: readonly Workload[] = [
  { id: 'W1', name: 'page 2, 10k, exact count', path: '/w1/items/?page=2', servers: ALL, database: 'sqlite', quick: true },
  { id: 'W1', name: `page ${DEEP_SMALL_PAGE}, 10k, exact count`, path: `/w1/items/?page=${DEEP_SMALL_PAGE}`, servers: ALL, database: 'sqlite', quick: true },
  // The RSS target is set at 32 connections: Trestle alone, for its memory (no ratio).
  { id: 'W1', name: `page ${DEEP_SMALL_PAGE}, 10k, 32 connections`, path: `/w1/items/?page=${DEEP_SMALL_PAGE}`, servers: ['trestle'], database: 'sqlite', quick: true, connections: 32 },
  { id: 'W1', name: 'page 2, 1M, exact count', path: '/w1/large/?page=2', servers: PAIR, database: 'sqlite', quick: true, slow: true },
  { id: 'W1', name: 'page 2, 1M, capped count', path: '/w1/large-capped/?page=2', servers: PAIR, database: 'sqlite', quick: true },
  { id: 'W2', name: 'cursor page 2, 1M', path: `/w2/items/?cursor=${cursorAfterRank(PAGE_SIZE)}`, servers: ALL, database: 'sqlite', quick: true },
  { id: 'W2', name: 'cursor 500,000 deep, 1M', path: `/w2/items/?cursor=${cursorAfterRank(500_000)}`, servers: ALL, database: 'sqlite', quick: true },
  { id: 'W3', name: 'limit/offset 500,000, 1M', path: '/w3/items/?limit=20&offset=500000', servers: PAIR, database: 'sqlite', quick: true, slow: true },
  { id: 'W4', name: 'W1 page 2 + obtain-token', path: '/w1/items/?page=2', servers: PAIR, database: 'sqlite', withObtainToken: true, quick: true },
  { id: 'W5', name: 'no auth, no DB', path: '/w5/ping/', servers: ALL, database: 'sqlite', quick: true },
  { id: 'W6', name: 'W1 page 2 on PostgreSQL', path: '/w1/items/?page=2', servers: PAIR, database: 'postgres', quick: true },
  { id: 'W6', name: `W1 page ${DEEP_SMALL_PAGE} on PostgreSQL`, path: `/w1/items/?page=${DEEP_SMALL_PAGE}`, servers: PAIR, database: 'postgres', quick: false },
  { id: 'W6', name: 'cursor page 2, 1M, PostgreSQL', path: `/w2/items/?cursor=${cursorAfterRank(PAGE_SIZE)}`, servers: PAIR, database: 'postgres', quick: false },
  { id: 'W6', name: 'cursor 500,000 deep, 1M, PostgreSQL', path: `/w2/items/?cursor=${cursorAfterRank(500_000)}`, servers: PAIR, database: 'postgres', quick: true },
];

/** W7's searched page: the example's book list as its docs show it. */
export const W7_SEARCH_PATH = '/api/books/?page=2&search=Atlas&ordering=-year&year__gte=1950';
/** W8's new book: every field validated, the author a hyperlink (its host is not checked). */
export const W8_BOOK = JSON.stringify({ title: 'The Bench Orchard', author: 'http://127.0.0.1/api/authors/7/', year: 1999, isbn: '9780000000001' });

/** W7 and W8: the example's book endpoints (its HTTP wire, not its code) against a hand-written catalogue. */
export const CATALOGUE_WORKLOADS: readonly Workload[] = [
  { id: 'W7', name: 'books page 2, search + ordering + filter', path: W7_SEARCH_PATH, servers: PAIR, database: 'catalogue-sqlite', quick: true },
  { id: 'W7', name: 'books page 2', path: '/api/books/?page=2', servers: PAIR, database: 'catalogue-sqlite', quick: true },
  { id: 'W8', name: 'book detail', path: '/api/books/7/', servers: PAIR, database: 'catalogue-sqlite', quick: true },
  { id: 'W8', name: 'POST book (201)', path: '/api/books/', body: W8_BOOK, servers: PAIR, database: 'catalogue-sqlite', quick: true },
  { id: 'W8', name: 'book detail on PostgreSQL', path: '/api/books/7/', servers: PAIR, database: 'catalogue-postgres', quick: true },
  { id: 'W8', name: 'POST book (201) on PostgreSQL', path: '/api/books/', body: W8_BOOK, servers: PAIR, database: 'catalogue-postgres', quick: true },
];

/** Every workload, in the order they run. */
export const WORKLOADS: readonly Workload[] = [...BENCH_WORKLOADS, ...CATALOGUE_WORKLOADS];

/** W1 page 2 through `trestle serve --workers N`. */
export const WORKERS_PATH = '/w1/items/?page=2';

export const AUTH_HEADERS: Readonly<Record<string, string>> = { authorization: `Token ${BENCH_TOKEN}` };

export const OBTAIN_TOKEN = {
  path: '/api-token-auth/',
  body: JSON.stringify({ username: BENCH_USERNAME, password: BENCH_PASSWORD }),
  headers: { 'content-type': 'application/json' },
} as const;
