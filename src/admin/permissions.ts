import type { Kysely } from 'kysely';
import { field } from '../models/fields.js';
import { model, type AnyModel } from '../models/model.js';
import type { ApiRequest } from '../request.js';
import type { User } from '../users/user.js';
import type { AdminAction } from './model-admin.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** `auth_permission` (Django's `Permission`): `content_type` is the model's table name. */
export const Permission = model(
  'auth_permission',
  {
    name: field.char({ maxLength: 255 }),
    content_type: field.char({ maxLength: 100, verboseName: 'content type' }),
    codename: field.char({ maxLength: 100 }),
  },
  { uniqueTogether: [['content_type', 'codename']], ordering: ['content_type', 'codename'] },
);

/** `auth_group` (Django's `Group`), its permissions in `auth_group_permissions`. */
export const Group = model(
  'auth_group',
  {
    name: field.char({ maxLength: 150, unique: true }),
    permissions: field.manyToMany(() => Permission, { blank: true }),
  },
  { ordering: ['name'] },
);

/** A user's membership of a group: a row of `trestle_user_groups` (Django's `User.groups`). */
export const UserGroup = model(
  'trestle_user_groups',
  {
    user: field.foreignKey('trestle_user', { onDelete: 'cascade' }),
    group: field.foreignKey(() => Group, { onDelete: 'cascade' }),
  },
  { uniqueTogether: [['user', 'group']], verboseName: 'group membership', modelName: 'usergroup' },
);

/** A permission given to one user: a row of `trestle_user_user_permissions` (Django's `User.user_permissions`). */
export const UserPermission = model(
  'trestle_user_user_permissions',
  {
    user: field.foreignKey('trestle_user', { onDelete: 'cascade' }),
    permission: field.foreignKey(() => Permission, { onDelete: 'cascade' }),
  },
  { uniqueTogether: [['user', 'permission']], verboseName: 'user permission', modelName: 'userpermission' },
);

const ACTIONS: readonly AdminAction[] = ['add', 'change', 'delete', 'view'];

/** Django's codename of an action on a model: `change_book`. */
export function codename(action: AdminAction, m: AnyModel): string {
  return `${action}_${m.modelName}`;
}

const synced = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Inserts the four permissions of each model that has none yet (`add_book`,
 * `change_book`, `delete_book`, `view_book`, named `Can add book`), as
 * Django's `create_permissions` after `migrate`. Once per database and set
 * of tables in a process.
 */
export function syncPermissions(db: AnyDb, models: readonly AnyModel[]): Promise<void> {
  const key = models.map((m) => m.tableName).sort().join(',');
  let byDb = synced.get(db);
  if (!byDb) synced.set(db, (byDb = new Map()));
  let done = byDb.get(key);
  if (!done) {
    done = (async () => {
      const have = new Set(
        (await db.selectFrom('auth_permission').select(['content_type', 'codename']).execute()).map((r: Record<string, unknown>) => `${String(r['content_type'])}.${String(r['codename'])}`),
      );
      const rows = models.flatMap((m) =>
        ACTIONS.filter((a) => !have.has(`${m.tableName}.${codename(a, m)}`)).map((a) => ({ name: `Can ${a} ${m.verboseName}`, content_type: m.tableName, codename: codename(a, m) })),
      );
      // Another process may insert the same rows at the same time: a duplicate is no error.
      for (const row of rows) {
        await db
          .insertInto('auth_permission')
          .values(row)
          .onConflict((oc) => oc.columns(['content_type', 'codename']).doNothing())
          .execute();
      }
    })();
    done.catch(() => byDb!.delete(key));
    byDb.set(key, done);
  }
  return done;
}

const granted = new WeakMap<object, Promise<ReadonlySet<string>>>();
const resolved = new WeakMap<object, ReadonlySet<string>>();

/** The permissions `userPermissions(req)` read for this request (empty before it has). */
export function knownPermissions(req: ApiRequest): ReadonlySet<string> {
  return resolved.get(req) ?? new Set();
}

/**
 * The permissions `user` has, directly or through a group, as
 * `<table>.<codename>` (`catalogue_book.change_book`); read once per request.
 */
export function userPermissions(req: ApiRequest): Promise<ReadonlySet<string>> {
  let found = granted.get(req);
  if (!found) {
    const user = req.user as User;
    const db = req.app.services.get('db') as AnyDb;
    found =
      !user.isAuthenticated || user.pk === null
        ? Promise.resolve(new Set<string>())
        : (async () => {
            const direct = db
              .selectFrom('trestle_user_user_permissions as up')
              .innerJoin('auth_permission as p', 'p.id', 'up.permission_id')
              .select(['p.content_type', 'p.codename'])
              .where('up.user_id', '=', user.pk);
            const viaGroups = db
              .selectFrom('trestle_user_groups as ug')
              .innerJoin('auth_group_permissions as gp', 'gp.group_id', 'ug.group_id')
              .innerJoin('auth_permission as p', 'p.id', 'gp.permission_id')
              .select(['p.content_type', 'p.codename'])
              .where('ug.user_id', '=', user.pk);
            const rows = await direct.union(viaGroups).execute();
            const set = new Set(rows.map((r: Record<string, unknown>) => `${String(r['content_type'])}.${String(r['codename'])}`));
            resolved.set(req, set);
            return set;
          })();
    granted.set(req, found);
  }
  return found;
}
