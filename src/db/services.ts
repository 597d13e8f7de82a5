import type { Kysely } from 'kysely';
import type { AppDatabase, ServiceRegistry } from '../context.js';
import type { UserStore } from '../users/store.js';
import { KyselyUserStore } from '../users/kysely-user-store.js';
import type { Database } from './database.js';

declare module '../context.js' {
  interface ServiceMap {
    /** The open database (connection/pool, dialect, redacted URL). */
    database: Database;
    /** Kysely over the whole database, typed by the app's `AppTypes['database']`. */
    db: Kysely<AppDatabase>;
    /** Where users live; `KyselyUserStore` unless the app plugs its own. */
    users: UserStore;
  }
}

/**
 * Registers `database`, `db` and `users` on an app's services. Pass `users`
 * to plug a custom store; otherwise a `KyselyUserStore` on `database`.
 */
export function registerDataServices(
  services: ServiceRegistry,
  database: Database,
  options: { users?: UserStore } = {},
): void {
  services.set('database', database);
  services.set('db', database.db as Kysely<AppDatabase>);
  services.set('users', options.users ?? new KyselyUserStore(database.db));
}
