import type { Kysely } from 'kysely';
import type { ColumnType, Generated } from 'kysely';
import { toDbTimestamp, type DbTimestamp } from '../db/schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** `trestle_admin_log` (migration 0005_admin_log), Django's `django_admin_log`. */
export interface AdminLogTable {
  id: Generated<number>;
  action_time: DbTimestamp;
  user_id: number;
  content_type: string | null;
  object_id: string | null;
  object_repr: string;
  action_flag: number;
  change_message: ColumnType<string, string | undefined, string>;
}

declare module '../db/schema.js' {
  interface DB {
    trestle_admin_log: AdminLogTable;
  }
}

/** Django's `ADDITION`, `CHANGE`, `DELETION`. */
export const ADDITION = 1;
export const CHANGE = 2;
export const DELETION = 3;

/** A row of `trestle_admin_log` (Django's `LogEntry`). */
export interface LogEntry {
  id: number;
  actionTime: Date;
  userId: number;
  /** The table name of the model. */
  contentType: string | null;
  objectId: string | null;
  objectRepr: string;
  actionFlag: number;
  changeMessage: string;
  /** The user's username (joined when read). */
  username: string;
}

/** What is written for one admin action. */
export interface LogAction {
  userId: number;
  contentType: string;
  objectId: string;
  objectRepr: string;
  actionFlag: typeof ADDITION | typeof CHANGE | typeof DELETION;
  /** Django's JSON: `[{"added": {}}]`, `[{"changed": {"fields": ["Title"]}}]`, `''` for a deletion. */
  changeMessage: string;
}

/** Writes one history row on `db` (the transaction of the change itself). */
export async function logAction(db: AnyDb, entry: LogAction): Promise<void> {
  const now = new Date();
  await db
    .insertInto('trestle_admin_log')
    .values({
      action_time: toDbTimestamp(now),
      user_id: entry.userId,
      content_type: entry.contentType,
      object_id: entry.objectId,
      // object_repr is varchar(200), as Django truncates it.
      object_repr: [...entry.objectRepr].slice(0, 200).join(''),
      action_flag: entry.actionFlag,
      change_message: entry.changeMessage,
    })
    .execute();
}

/** JSON as Python's `json.dumps` writes it by default (`", "` and `": "` separators, non-ASCII escaped), as Django stores it. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The change message Django writes for an addition and a change: `[{"added": {}}]`, `[{"changed": {"fields": ["Title"]}}]`. */
export function changeMessageJson(flag: typeof ADDITION | typeof CHANGE, fields: readonly string[] = [], related: readonly object[] = []): string {
  // Then a line per inline row added, changed or deleted: `{"added": {"name": "book", "object": "Dune"}}`.
  const own = flag === ADDITION ? [{ added: {} }] : fields.length ? [{ changed: { fields } }] : [];
  const all = [...own, ...related];
  return all.length ? pythonJson(all) : '[]';
}

/** `A`, `A and B`, `A, B and C` (Django's `get_text_list`). */
function textList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The history line of an entry, as Django's `LogEntry.get_change_message()`. */
export function describeChange(entry: Pick<LogEntry, 'actionFlag' | 'changeMessage'>): string {
  if (entry.changeMessage && entry.changeMessage.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry.changeMessage);
    } catch {
      return entry.changeMessage;
    }
    const out: string[] = [];
    for (const sub of parsed as Array<Record<string, { fields?: string[]; name?: string; object?: string } | undefined>>) {
      const related = (v: { name?: string; object?: string } | undefined) => (v?.name !== undefined ? `${v.name} “${v.object ?? ''}”` : null);
      if ('added' in sub) out.push(related(sub['added']) ? `Added ${related(sub['added'])}.` : 'Added.');
      else if ('changed' in sub) out.push(`Changed ${textList(sub['changed']?.fields ?? [])}${related(sub['changed']) ? ` for ${related(sub['changed'])}` : ''}.`);
      else if ('deleted' in sub) out.push(related(sub['deleted']) ? `Deleted ${related(sub['deleted'])}.` : 'Deleted.');
    }
    return out.join(' ') || 'No fields changed.';
  }
  if (entry.changeMessage) return entry.changeMessage;
  return entry.actionFlag === ADDITION ? 'Added.' : entry.actionFlag === DELETION ? 'Deleted.' : 'No fields changed.';
}

/** History rows, newest first: of one object, or of one user (the index's "Recent actions"). */
export async function readLog(db: AnyDb, where: { contentType: string; objectId: string } | { userId: number }, limit = 100): Promise<LogEntry[]> {
  let q = db
    .selectFrom('trestle_admin_log as l')
    .innerJoin('trestle_user as u', 'u.id', 'l.user_id')
    .select(['l.id', 'l.action_time', 'l.user_id', 'l.content_type', 'l.object_id', 'l.object_repr', 'l.action_flag', 'l.change_message', 'u.username']);
  if ('userId' in where) q = q.where('l.user_id', '=', where.userId);
  else q = q.where('l.content_type', '=', where.contentType).where('l.object_id', '=', where.objectId);
  // Django's history is oldest first; "Recent actions" newest first.
  const rows = await q.orderBy('l.action_time', 'userId' in where ? 'desc' : 'asc').orderBy('l.id', 'userId' in where ? 'desc' : 'asc').limit(limit).execute();
  return rows.map((r: Record<string, unknown>) => ({
    id: Number(r['id']),
    actionTime: r['action_time'] instanceof Date ? r['action_time'] : new Date(String(r['action_time'])),
    userId: Number(r['user_id']),
    contentType: (r['content_type'] as string | null) ?? null,
    objectId: (r['object_id'] as string | null) ?? null,
    objectRepr: String(r['object_repr']),
    actionFlag: Number(r['action_flag']),
    changeMessage: String(r['change_message'] ?? ''),
    username: String(r['username']),
  }));
}
