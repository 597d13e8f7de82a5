import type { Kysely, TableMetadata } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** What `importDjangoPermissions` brought over (or would, in a dry run). */
export interface DjangoPermissionCounts {
  /** `auth_permission` rows: found in Trestle already, or added. */
  permissions: { total: number; imported: number; skipped: number };
  groups: { total: number; imported: number; skipped: number };
  /** Pairs written: a group's permissions, users' groups, users' own permissions (existing pairs are skipped). */
  groupPermissions: number;
  memberships: number;
  userPermissions: number;
}

/**
 * The table a Django content type stands for in Trestle: Django's users and
 * DRF's tokens are Trestle's own tables, any other model the table Django
 * names it by default (`<app_label>_<model>`).
 */
export function contentTypeTable(appLabel: string, model: string): string {
  if (appLabel === 'auth' && model === 'user') return 'trestle_user';
  if (appLabel === 'authtoken' && model === 'token') return 'trestle_token';
  return `${appLabel}_${model}`;
}

const DJANGO_TABLES = ['django_content_type', 'auth_permission', 'auth_group', 'auth_group_permissions'] as const;

/**
 * Django's permissions and groups (`auth_permission`, `auth_group`, and the
 * users' `<user table>_groups` / `_user_permissions`) into the admin's
 * tables of the same names, after the users: a permission is matched by its
 * model's table and codename, a group by name, and only pairs whose user
 * was imported (same id) are written. Returns `null` when the source has no
 * such tables (a project without `django.contrib.auth`'s permissions) or
 * the target has not migrated the admin's tables.
 */
export async function importDjangoPermissions(
  source: AnyDb,
  sourceTables: readonly TableMetadata[],
  target: AnyDb,
  options: { userTable: string; dryRun: boolean; progress: (line: string) => void },
): Promise<DjangoPermissionCounts | null> {
  const has = (name: string) => sourceTables.some((t) => t.name === name);
  if (!DJANGO_TABLES.every(has)) return null;
  const targetTables = new Set((await target.introspection.getTables()).map((t) => t.name));
  if (!targetTables.has('auth_permission') || !targetTables.has('auth_group')) {
    options.progress('permissions: the admin\'s tables are not migrated here (trestle migrate first); none imported.');
    return null;
  }
  const counts: DjangoPermissionCounts = {
    permissions: { total: 0, imported: 0, skipped: 0 },
    groups: { total: 0, imported: 0, skipped: 0 },
    groupPermissions: 0,
    memberships: 0,
    userPermissions: 0,
  };
  const permissionIds = new Map<number, number>();
  const groupIds = new Map<number, number>();

  const work = async (db: AnyDb) => {
    const permissions = (await source
      .selectFrom('auth_permission as p')
      .innerJoin('django_content_type as ct', 'ct.id', 'p.content_type_id')
      .select(['p.id as id', 'p.name as name', 'p.codename as codename', 'ct.app_label as app_label', 'ct.model as model'])
      .orderBy('p.id')
      .execute()) as { id: number; name: string; codename: string; app_label: string; model: string }[];
    counts.permissions.total = permissions.length;
    const existing = new Map(
      ((await db.selectFrom('auth_permission').select(['id', 'content_type', 'codename']).execute()) as { id: number; content_type: string; codename: string }[]).map(
        (r) => [`${r.content_type}.${r.codename}`, Number(r.id)],
      ),
    );
    for (const p of permissions) {
      const table = contentTypeTable(p.app_label, p.model);
      const found = existing.get(`${table}.${p.codename}`);
      if (found !== undefined) {
        counts.permissions.skipped++;
        permissionIds.set(Number(p.id), found);
        continue;
      }
      counts.permissions.imported++;
      if (options.dryRun) continue;
      const row = await db.insertInto('auth_permission').values({ name: p.name, content_type: table, codename: p.codename }).returning('id').executeTakeFirstOrThrow();
      permissionIds.set(Number(p.id), Number(row.id));
    }

    const groups = (await source.selectFrom('auth_group').select(['id', 'name']).orderBy('id').execute()) as { id: number; name: string }[];
    counts.groups.total = groups.length;
    const existingGroups = new Map(((await db.selectFrom('auth_group').select(['id', 'name']).execute()) as { id: number; name: string }[]).map((g) => [g.name, Number(g.id)]));
    for (const g of groups) {
      const found = existingGroups.get(g.name);
      if (found !== undefined) {
        counts.groups.skipped++;
        groupIds.set(Number(g.id), found);
        continue;
      }
      counts.groups.imported++;
      if (options.dryRun) continue;
      const row = await db.insertInto('auth_group').values({ name: g.name }).returning('id').executeTakeFirstOrThrow();
      groupIds.set(Number(g.id), Number(row.id));
    }
    if (options.dryRun) return;

    const users = new Set(((await db.selectFrom('trestle_user').select('id').execute()) as { id: number }[]).map((u) => Number(u.id)));
    const pairs = async (sourceTable: string, targetTable: string, left: [string, (id: number) => number | undefined], right: [string, (id: number) => number | undefined]) => {
      if (!has(sourceTable)) return 0;
      const rows = (await source.selectFrom(sourceTable).select([left[0], right[0]]).orderBy('id').execute()) as Record<string, number>[];
      let written = 0;
      for (const row of rows) {
        const a = left[1](Number(row[left[0]]));
        const b = right[1](Number(row[right[0]]));
        if (a === undefined || b === undefined) continue;
        const result = await db
          .insertInto(targetTable)
          .values({ [left[0]]: a, [right[0]]: b })
          .onConflict((oc) => oc.columns([left[0], right[0]]).doNothing())
          .executeTakeFirst();
        written += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
      return written;
    };
    const user = (id: number) => (users.has(id) ? id : undefined);
    const group = (id: number) => groupIds.get(id);
    const permission = (id: number) => permissionIds.get(id);
    counts.groupPermissions = await pairs('auth_group_permissions', 'auth_group_permissions', ['group_id', group], ['permission_id', permission]);
    counts.memberships = await pairs(`${options.userTable}_groups`, 'trestle_user_groups', ['user_id', user], ['group_id', group]);
    counts.userPermissions = await pairs(`${options.userTable}_user_permissions`, 'trestle_user_user_permissions', ['user_id', user], ['permission_id', permission]);
  };
  if (options.dryRun) await work(target);
  else await target.transaction().execute(work);
  options.progress(
    `permissions: ${counts.permissions.total} read, ${counts.groups.total} groups read; pairs written: ${counts.groupPermissions} group permissions, ${counts.memberships} memberships, ${counts.userPermissions} user permissions`,
  );
  return counts;
}
