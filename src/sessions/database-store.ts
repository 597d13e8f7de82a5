import type { Kysely } from 'kysely';
import type { DB, DbTimestamp } from '../db/schema.js';
import { sha256Hex } from '../security.js';
import type { SessionData, SessionStore } from './store.js';

/** `trestle_session`: Django's `django_session`, keyed by the SHA-256 of the session id. */
export interface SessionTable {
  /** Hex SHA-256 of the cookie value; the raw id is never stored. */
  session_key: string;
  /** JSON. */
  session_data: string;
  expire_date: DbTimestamp;
}

declare module '../db/schema.js' {
  interface DB {
    trestle_session: SessionTable;
  }
}

/** Sessions in the `trestle_session` table (SQLite or PostgreSQL). */
export class DatabaseSessionStore implements SessionStore {
  constructor(private readonly db: Kysely<DB>) {}

  async load(key: string): Promise<SessionData | null> {
    const row = await this.db
      .selectFrom('trestle_session')
      .select(['session_data'])
      .where('session_key', '=', sha256Hex(key))
      .where('expire_date', '>', new Date().toISOString())
      .executeTakeFirst();
    if (!row) return null;
    try {
      const data = JSON.parse(row.session_data) as unknown;
      return data !== null && typeof data === 'object' ? (data as SessionData) : null;
    } catch {
      return null; // a corrupt row is an empty session, as Django's decode()
    }
  }

  async save(key: string, data: SessionData, expiresAt: Date): Promise<void> {
    const row = { session_key: sha256Hex(key), session_data: JSON.stringify(data), expire_date: expiresAt.toISOString() };
    await this.db
      .insertInto('trestle_session')
      .values(row)
      .onConflict((oc) => oc.column('session_key').doUpdateSet({ session_data: row.session_data, expire_date: row.expire_date }))
      .execute();
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('trestle_session').where('session_key', '=', sha256Hex(key)).execute();
  }

  async clearExpired(): Promise<number> {
    const res = await this.db.deleteFrom('trestle_session').where('expire_date', '<=', new Date().toISOString()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
