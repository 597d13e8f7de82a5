import { PostgresAdapter, type Kysely } from 'kysely';

/** The SQL dialects Trestle supports. */
export type DialectName = 'sqlite' | 'postgres';

/**
 * Which dialect a Kysely instance talks to. Migrations use it for the few
 * statements that differ (auto-increment keys).
 */
export function dialectOf<T>(db: Kysely<T>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
