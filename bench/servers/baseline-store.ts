/**
 * The baselines' data access: every query written once as SQL and prepared
 * once (better-sqlite3 statements; named, server-prepared statements on
 * PostgreSQL). What a hand-written service would do.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { LARGE_TABLE, SMALL_TABLE } from '../lib/constants.js';
import { databaseTarget } from './server-env.js';

export interface ItemRow {
  id: number;
  name: string;
  created: string;
}

/** The token's row joined to its user: what authentication needs, in one query. */
export interface TokenUserRow {
  id: number;
  user_id: number;
  name: string;
  created: string;
  expires: string | null;
  last_used: string | null;
  username: string;
  email: string;
  is_active: number;
  is_staff: number;
  is_superuser: number;
  date_joined: string;
  last_login: string | null;
}

export type ItemTable = typeof SMALL_TABLE | typeof LARGE_TABLE;
type MaybePromise<T> = T | Promise<T>;

export interface BaselineStore {
  tokenUser(digest: string): MaybePromise<TokenUserRow | undefined>;
  count(table: ItemTable): MaybePromise<number>;
  countUpTo(table: ItemTable, max: number): MaybePromise<number>;
  page(table: ItemTable, limit: number, offset: number): MaybePromise<ItemRow[]>;
  /** Large table, newest first; `after` = (created, id) of the last row seen; `reverse` walks back. */
  seek(after: readonly [string, number] | null, reverse: boolean, limit: number): MaybePromise<ItemRow[]>;
  login(username: string): MaybePromise<{ id: number; password: string; is_active: number } | undefined>;
  userToken(userId: number): MaybePromise<{ digest: string; encrypted_key: string } | undefined>;
  close(): Promise<void>;
}

const TOKEN_USER_SQL = `select t.id, t.user_id, t.name, t.created, t.expires, t.last_used, u.username, u.email,
  u.is_active, u.is_staff, u.is_superuser, u.date_joined, u.last_login
  from trestle_token t join trestle_user u on u.id = t.user_id where t.digest = $1`;

/** better-sqlite3, statements prepared at start-up. */
export function sqliteStore(file: string): BaselineStore {
  const db = new BetterSqlite3(file, { readonly: false });
  db.pragma('journal_mode = WAL');
  // `+?` as Trestle binds (src/db/database.ts SQLITE_PARAMETER): SQLite with STAT4 re-prepares a statement whose
  // `?` the planner looked at each time it is bound once the database has statistics; both sides run the same plans.
  const q = (s: string) => db.prepare(s.replace(/\$\d+/g, '+?'));
  const tokenUser = q(TOKEN_USER_SQL);
  const perTable = (t: ItemTable) => ({
    count: q(`select count(*) as n from ${t}`).pluck(),
    countUpTo: q(`select count(*) as n from (select 1 from ${t} limit $1)`).pluck(),
    page: q(`select id, name, created from ${t} order by id limit $1 offset $2`),
  });
  const tables = { [SMALL_TABLE]: perTable(SMALL_TABLE), [LARGE_TABLE]: perTable(LARGE_TABLE) };
  const first = q(`select id, name, created from ${LARGE_TABLE} order by created desc, id desc limit $1`);
  const after = q(`select id, name, created from ${LARGE_TABLE} where (created, id) < ($1, $2) order by created desc, id desc limit $3`);
  const before = q(`select id, name, created from ${LARGE_TABLE} where (created, id) > ($1, $2) order by created asc, id asc limit $3`);
  const login = q('select id, password, is_active from trestle_user where username = $1');
  const userToken = q(`select digest, encrypted_key from trestle_token where user_id = $1 and name = ''`);
  return {
    tokenUser: (digest) => tokenUser.get(digest) as TokenUserRow | undefined,
    count: (t) => tables[t].count.get() as number,
    countUpTo: (t, max) => tables[t].countUpTo.get(max) as number,
    page: (t, limit, offset) => tables[t].page.all(limit, offset) as ItemRow[],
    seek: (pos, reverse, limit) =>
      (pos === null ? first.all(limit) : (reverse ? before : after).all(pos[0], pos[1], limit)) as ItemRow[],
    login: (username) => login.get(username) as { id: number; password: string; is_active: number } | undefined,
    userToken: (userId) => userToken.get(userId) as { digest: string; encrypted_key: string } | undefined,
    close: async () => void db.close(),
  };
}

/** node-postgres pool; every query named, so PostgreSQL prepares it once per connection. */
export function pgStore(url: string): BaselineStore {
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => {});
  const run = async <R>(name: string, text: string, values: unknown[]): Promise<R[]> =>
    (await pool.query({ name, text, values })).rows as R[];
  const one = async <R>(name: string, text: string, values: unknown[]) => (await run<R>(name, text, values))[0];
  return {
    tokenUser: (digest) => one<TokenUserRow>('token_user', TOKEN_USER_SQL, [digest]),
    count: async (t) => Number((await one<{ n: string }>(`count_${t}`, `select count(*) as n from ${t}`, []))!.n),
    countUpTo: async (t, max) =>
      Number((await one<{ n: string }>(`count_upto_${t}`, `select count(*) as n from (select 1 from ${t} limit $1) s`, [max]))!.n),
    page: (t, limit, offset) =>
      run<ItemRow>(`page_${t}`, `select id, name, created from ${t} order by id limit $1 offset $2`, [limit, offset]),
    seek: (pos, reverse, limit) =>
      pos === null
        ? run<ItemRow>('seek_first', `select id, name, created from ${LARGE_TABLE} order by created desc, id desc limit $1`, [limit])
        : reverse
          ? run<ItemRow>('seek_before', `select id, name, created from ${LARGE_TABLE} where (created, id) > ($1, $2) order by created asc, id asc limit $3`, [pos[0], pos[1], limit])
          : run<ItemRow>('seek_after', `select id, name, created from ${LARGE_TABLE} where (created, id) < ($1, $2) order by created desc, id desc limit $3`, [pos[0], pos[1], limit]),
    login: (username) => one('login', 'select id, password, is_active from trestle_user where username = $1', [username]),
    userToken: (userId) => one('user_token', `select digest, encrypted_key from trestle_token where user_id = $1 and name = ''`, [userId]),
    close: () => pool.end(),
  };
}

/** The baselines' store for `BENCH_DATABASE`: a SQLite file or a postgres:// URL. */
export function openBaselineStore(): BaselineStore {
  const target = databaseTarget();
  return /^postgres(ql)?:\/\//.test(target) ? pgStore(target) : sqliteStore(target);
}
