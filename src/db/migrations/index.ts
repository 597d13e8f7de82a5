import type { Migration } from 'kysely';
import { usersMigration } from './0001-users.js';
import { tokensMigration } from './0002-tokens.js';
import { sessionsMigration } from './0003-sessions.js';
import { nativeTypesMigration } from './0004-native-types.js';
import { adminLogMigration } from './0005-admin-log.js';
import { permissionsMigration } from './0006-permissions.js';

/**
 * The framework's migrations, applied in this order before the project's
 * own. To add one: write `NNNN-name.ts` next to this file, import it here and
 * append one entry. Never rename or reorder an entry that has shipped.
 */
export const frameworkMigrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001_users', usersMigration],
  ['0002_tokens', tokensMigration],
  ['0003_sessions', sessionsMigration],
  ['0004_native_types', nativeTypesMigration],
  ['0005_admin_log', adminLogMigration],
  ['0006_permissions', permissionsMigration],
];
