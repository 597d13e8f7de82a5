import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { ApiRequest } from '../request.js';
import { Response } from '../response.js';
import type { User } from '../users/user.js';
import { ApiError, NotFound, PermissionDenied } from '../exceptions.js';
import { dialectOf } from '../db/dialect.js';
import { constraintViolation } from '../db/constraint-errors.js';
import { isDatabaseInputError } from '../db/input-errors.js';
import { escapeLike, ilike, iequals } from '../filters/search.js';
import { ManyToManyField, RelationField, type ModelField } from '../models/fields.js';
import type { AnyModel } from '../models/model.js';
import { getSession, updateSession } from '../sessions/session.js';
import { html, unsafeRaw, type SafeHtml } from '../pages/html.js';
import { listTable, type SortHeader } from '../pages/admin-templates.js';
import type { Breadcrumb } from '../pages/layout.js';
import { displayedPageNumbers } from '../pagination/html.js';
import { countWith, ESTIMATED_COUNT_THRESHOLD, type CountResult } from '../pagination/count.js';
import { pageSource } from '../pagination/source.js';
import type { AdminMessage, AdminPage } from './admin-page.js';
import { AdminView, paginationNav, redirect } from './admin-view.js';
import { FormParser, parseForm } from '../parsers/form.js';
import { requestEncoding } from '../parsers/charset.js';
import type { ParseResult } from '../parsers/base.js';
import type { ParserClass } from '../parsers/base.js';
import type { MediaType } from '../media-types.js';
import { ModelAdmin, type InlineAdmin, type AdminAction, type AdminSite, type ListDisplayEntry } from './model-admin.js';
import { formText, inputText, keyValue, targetKeyValue, relatedKeys, validateAdminForm, writeAdminForm, type AdminForm, type FormErrors } from './model-form.js';
import { inlineHtml, inlineRows, readInline, writeInline, InlineRowRejected, type InlineChange, type InlinePermissions, type InlineWrites } from './inlines.js';
import { knownPermissions, syncPermissions, userPermissions } from './permissions.js';
import { ADDITION, CHANGE, DELETION, changeMessageJson, describeChange, logAction, readLog } from './log-entry.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/** Django's `IncorrectLookupParameters`: a change-list filter the model admin does not offer (400 page). */
export class IncorrectLookupParameters extends ApiError {
  static override statusCode = 400;
  static override defaultDetail = 'Incorrect lookup parameters.';
  static override defaultCode = 'incorrect_lookup_parameters';
}

/** Every word of `q` in any search field (Django's `get_search_results`). */
export function searchConditions(admin: ModelAdmin, q: string, postgres: boolean): Expression<SqlBool>[] {
  const words = q.split(/\s+/).filter(Boolean);
  return words.map((word) => {
    const any = (admin.options.searchFields ?? []).map((spec) => searchCondition(admin.model, spec, word, postgres));
    return any.length ? sql<SqlBool>`(${sql.join(any, sql` or `)})` : sql<SqlBool>`1 = 1`;
  });
}

function searchCondition(model: AnyModel, spec: string, word: string, postgres: boolean): Expression<SqlBool> {
  const prefix = /^[\^=@]/.test(spec) ? spec[0] : '';
  const path = spec.slice(prefix.length).split('__');
  const head = path[0]!;
  const f = model.fields[head]!;
  if (path.length > 1 && f instanceof ManyToManyField) {
    const target = f.targetModel() as AnyModel | null;
    const key = target?.primaryKey ?? 'id';
    const inner = target
      ? searchCondition(target, `${prefix}${path.slice(1).join('__')}`, word, postgres)
      : ilike(path.slice(1).join('__'), `%${escapeLike(word)}%`, postgres);
    return sql<SqlBool>`${sql.ref(model.primaryKey)} in (select ${sql.ref(f.sourceColumn(model.tableName))} from ${sql.table(f.throughTable(model.tableName))} where ${sql.ref(f.targetColumn(model.tableName))} in (select ${sql.ref(key)} from ${sql.table(f.targetTable(model.tableName))} where ${inner}))`;
  }
  if (path.length > 1 && f instanceof RelationField) {
    const target = f.targetModel() as AnyModel | null;
    const table = f.targetTable(model.tableName);
    const key = target?.primaryKey ?? 'id';
    const inner = target
      ? searchCondition(target, `${prefix}${path.slice(1).join('__')}`, word, postgres)
      : ilike(path.slice(1).join('__'), `%${escapeLike(word)}%`, postgres);
    return sql<SqlBool>`${sql.ref(f.columnName(head))} in (select ${sql.ref(key)} from ${sql.table(table)} where ${inner})`;
  }
  const column = f.columnName(head);
  if (prefix === '^') return ilike(column, `${escapeLike(word)}%`, postgres);
  if (prefix === '=') return iequals(column, word, postgres);
  return ilike(column, `%${escapeLike(word)}%`, postgres);
}

/** The change list's own query parameters (Django's `SEARCH_VAR`, `ORDER_VAR`, `PAGE_VAR`). */
const LIST_PARAMS = new Set(['q', 'o', 'p']);
const FLASH_KEY = '_admin_messages';
const EMPTY = '-';

function capfirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Makes sure the site's models have their permission rows, then reads the user's (superusers need none). */
export async function loadPermissions(req: ApiRequest, site: AdminSite): Promise<ReadonlySet<string>> {
  const db = req.app.services.get('db') as AnyDb;
  await syncPermissions(db, site.registry.map((a) => a.model));
  return (req.user as User).isSuperuser ? new Set() : userPermissions(req);
}

/** A change-list count as Django-ish text: `1,234`, `about 1,000,000` (an estimate), `more than 1,000` (capped). */
function countText(c: CountResult): string {
  const n = String(c.count ?? 0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return c.exact ? n : c.capped ? `more than ${n}` : `about ${n}`;
}

/** A message shown on the next admin page (Django's `messages` framework, kept in the session). */
async function flash(req: ApiRequest, message: AdminMessage): Promise<void> {
  await updateSession(req, (data) => {
    const list = Array.isArray(data[FLASH_KEY]) ? (data[FLASH_KEY] as AdminMessage[]) : [];
    data[FLASH_KEY] = [...list, message];
  });
}

async function takeFlash(req: ApiRequest): Promise<AdminMessage[]> {
  const stored = (await getSession(req))?.data[FLASH_KEY];
  if (!Array.isArray(stored) || stored.length === 0) return [];
  await updateSession(req, (data) => {
    delete data[FLASH_KEY];
  });
  return (stored as AdminMessage[]).filter((m) => typeof m?.text === 'string' && ['success', 'error', 'info'].includes(m.level));
}

/** A row's value as the change list and read-only fields show it. */
function displayValue(f: ModelField, raw: unknown, related?: ReadonlyMap<string, string>): string {
  if (raw === null || raw === undefined || raw === '') return EMPTY;
  if (f.isRelation) return related?.get(String(raw)) ?? String(raw);
  const choice = f.options.choices?.find(([v]) => String(v) === String(raw));
  if (choice) return choice[1];
  switch (f.kind) {
    case 'boolean':
      return inputText(f, raw) === 'true' ? 'Yes' : 'No';
    case 'datetime':
      return inputText(f, raw).replace('T', ' ');
    default:
      return inputText(f, raw);
  }
}

/** Something that went wrong while writing, rolled back, shown with the form. */
class FormRejected extends Error {
  constructor(readonly errors: FormErrors) {
    super('form rejected');
  }
}

/**
 * The admin's form parser: as `FormParser`, but a name sent more than once
 * (a multiple select) keeps every value, in order, as Django's
 * `QueryDict.getlist` reads them.
 */
export class MultiValueFormParser extends FormParser {
  override parse(body: Buffer, contentType: MediaType): ParseResult {
    const encoding = requestEncoding(contentType.params['charset']);
    const out: Record<string, string | string[]> = {};
    for (const pair of body.toString('latin1').split('&')) {
      if (pair === '') continue;
      for (const [k, v] of Object.entries(parseForm(Buffer.from(pair, 'latin1'), encoding))) {
        const had = out[k];
        out[k] = had === undefined ? v : [...(typeof had === 'string' ? [had] : had), v];
      }
    }
    return { data: out, files: {} };
  }
}

/** The nested list of a delete's rows, linked where the user may change them. */
function deletedList(nodes: readonly DeletedNode[]): SafeHtml {
  return html`<ul>${nodes.map((n) => html`<li>${n.url ? html`<a href="${n.url}">${n.label}</a>` : n.label}${n.children.length ? deletedList(n.children) : ''}</li>`)}</ul>`;
}

/** One row a delete would remove or that blocks it, with what it contains. */
interface DeletedNode {
  readonly label: string;
  readonly url: string | null;
  readonly children: DeletedNode[];
}

/**
 * The base of every page of a registered model: the model's admin, its
 * database, its URLs, and the permission check of each page.
 */
export class AdminModelView extends AdminView {
  static override viewName = 'Model admin';
  /** Set for each registered model by `adminRoutes`. */
  modelAdmin!: ModelAdmin;
  override parserClasses: ParserClass[] = [MultiValueFormParser];

  protected db(req: ApiRequest): AnyDb {
    return req.app.services.get('db') as AnyDb;
  }

  protected modelUrl(req: ApiRequest, admin: ModelAdmin, page: 'changelist' | 'add' | 'change' | 'delete' | 'history', pk?: unknown): string {
    return this.url(req, admin.routeName(page), pk === undefined ? undefined : { pk: String(pk) });
  }

  /** `null` when the user may `actions` (any of them); else the login redirect, or a 403. */
  protected async allow(req: ApiRequest, ...actions: AdminAction[]): Promise<Response | null> {
    const denied = this.guard(req);
    if (denied) return denied;
    await loadPermissions(req, this.modelAdmin.site);
    if (!actions.some((a) => this.can(req, this.modelAdmin, a))) throw new PermissionDenied();
    return null;
  }

  /** Whether the request's user may `action` the model of `admin` (after `allow`). */
  protected can(req: ApiRequest, admin: ModelAdmin, action: AdminAction): boolean {
    return admin.hasPermission(req.user as User, action, knownPermissions(req));
  }

  /**
   * Attaches each foreign key's row under the field's name (the row
   * convention: `row.author = {…}` or `null`), one query per field, so a
   * `str` may name a row by its relations.
   */
  protected async withRelated(db: AnyDb, model: AnyModel, rows: Row[]): Promise<Row[]> {
    for (const [name, f] of Object.entries(model.fields)) {
      if (!(f instanceof RelationField)) continue;
      const column = f.columnName(name);
      const ids = [...new Set(rows.map((r) => r[column]).filter((v) => v !== null && v !== undefined))];
      const key = f.targetModel()?.primaryKey ?? 'id';
      const found = new Map<string, Row>();
      if (ids.length) {
        for (const t of (await db.selectFrom(f.targetTable(model.tableName)).selectAll().where(sql.ref(key), 'in', ids).execute()) as Row[]) found.set(String(t[key]), t);
      }
      for (const r of rows) if (r[name] === undefined) r[name] = r[column] === null || r[column] === undefined ? null : (found.get(String(r[column])) ?? null);
    }
    return rows;
  }

  /** The row of the URL's primary key, or a 404 page. */
  protected async object(req: ApiRequest): Promise<Row> {
    const model = this.modelAdmin.model;
    const text = String(req.params['pk'] ?? '');
    const pk = keyValue(model, text);
    let row: unknown;
    try {
      row = pk === undefined ? undefined : await this.db(req).selectFrom(model.tableName).selectAll().where(sql.ref(model.primaryKey), '=', pk).executeTakeFirst();
    } catch (err) {
      // A key the column type refuses matches no row (Django's get_object_or_404).
      if (!isDatabaseInputError(err)) throw err;
    }
    if (!row) throw new NotFound(`${capfirst(model.verboseName)} with ID “${text}” doesn’t exist. Perhaps it was deleted?`);
    return (await this.withRelated(this.db(req), model, [row as Row]))[0]!;
  }

  /**
   * The change list's query string a page was opened from (Django's
   * `_changelist_filters`, its `preserve_filters`), re-encoded; `''` when none.
   */
  protected preservedFilters(req: ApiRequest): string {
    const raw = (req.query as Record<string, unknown>)['_changelist_filters'];
    const text = Array.isArray(raw) ? raw[0] : raw;
    return typeof text === 'string' ? new URLSearchParams(text).toString() : '';
  }

  /** The request's own query string, re-encoded (`''` when none). */
  protected ownQuery(req: ApiRequest): string {
    const raw = req.raw.url ?? '';
    return raw.includes('?') ? new URLSearchParams(raw.slice(raw.indexOf('?') + 1)).toString() : '';
  }

  /** `url` with `filters` (a change list's query string) carried on as `_changelist_filters`. */
  protected withFilters(url: string, filters: string): string {
    return filters ? `${url}?${new URLSearchParams({ _changelist_filters: filters }).toString()}` : url;
  }

  /** The change list as the page was opened from it: its search, filters, order and page. */
  protected filteredList(req: ApiRequest): string {
    const filters = this.preservedFilters(req);
    const list = this.modelUrl(req, this.modelAdmin, 'changelist');
    return filters ? `${list}?${filters}` : list;
  }

  /** Home › Catalogue › Books › … */
  protected trail(req: ApiRequest, ...more: Breadcrumb[]): Breadcrumb[] {
    const admin = this.modelAdmin;
    const list = this.filteredList(req);
    return [{ name: capfirst(admin.appLabel), url: `${this.url(req, 'index')}#app-${admin.appLabel}` }, { name: capfirst(admin.model.verboseNamePlural), url: list }, ...more];
  }

  /** The names of foreign-key targets for display: `{ '3': 'Ursula K. Le Guin' }` per field. */
  protected async relatedNames(req: ApiRequest, fields: readonly string[], rows: readonly Row[]): Promise<Map<string, Map<string, string>>> {
    const model = this.modelAdmin.model;
    const out = new Map<string, Map<string, string>>();
    for (const name of fields) {
      const f = model.fields[name];
      if (!(f instanceof RelationField)) continue;
      const ids = [...new Set(rows.map((r) => r[f.columnName(name)]).filter((v) => v !== null && v !== undefined))];
      out.set(name, await this.reprsOf(req, f, ids));
    }
    return out;
  }

  /** The names of the target rows `ids` of a relation field. */
  protected async reprsOf(req: ApiRequest, f: RelationField | ManyToManyField, ids: readonly unknown[], limit?: number, self = this.modelAdmin.model.tableName): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const table = f.targetTable(self);
    const target = f.targetModel();
    const key = target?.primaryKey ?? 'id';
    const site = this.modelAdmin.site;
    let q = this.db(req).selectFrom(table).selectAll();
    if (limit === undefined) {
      if (ids.length === 0) return names;
      q = q.where(sql.ref(key), 'in', ids);
    } else q = q.orderBy(sql.ref(key)).limit(limit);
    for (const row of (await q.execute()) as Row[]) {
      const pk = String(row[key]);
      names.set(pk, site.reprOf(table, row) ?? `${capfirst((target as AnyModel | null)?.objectName ?? table)} object (${pk})`);
    }
    return names;
  }


  protected node(req: ApiRequest, model: AnyModel, row: Row, children: DeletedNode[] = []): DeletedNode {
    const admin = this.modelAdmin.site.adminFor(model.tableName);
    const name = this.modelAdmin.site.reprOf(model.tableName, row) ?? `${model.objectName} object (${String(row[model.primaryKey])})`;
    const url = admin && this.can(req, admin, 'change') ? this.modelUrl(req, admin, 'change', row[model.primaryKey]) : null;
    return { label: `${capfirst(model.verboseName)}: ${name}`, url, children };
  }

  /** What deleting `rows` removes (a tree each), and the rows that protect it (Django's `get_deleted_objects`). */
  protected async collect(req: ApiRequest, rows: readonly Row[]): Promise<{ trees: DeletedNode[]; protectedRows: DeletedNode[]; counts: Map<string, number> }> {
    const db = this.db(req);
    const models = this.modelAdmin.site.models;
    const protectedRows: DeletedNode[] = [];
    const counts = new Map<string, number>();
    const seen = new Set<string>();
    const visit = async (model: AnyModel, r: Row, depth: number): Promise<DeletedNode> => {
      seen.add(`${model.tableName}:${String(r[model.primaryKey])}`);
      counts.set(capfirst(model.verboseNamePlural), (counts.get(capfirst(model.verboseNamePlural)) ?? 0) + 1);
      const children: DeletedNode[] = [];
      // The pairs of automatic many-to-many join tables on either side (Django's `Book_tags` rows).
      for (const other of models) {
        for (const [fname, f] of Object.entries(other.fields)) {
          if (!(f instanceof ManyToManyField) || !f.autoCreated) continue;
          const sides: string[] = [];
          if (other.tableName === model.tableName) sides.push(f.sourceColumn(other.tableName));
          if (f.targetTable(other.tableName) === model.tableName) sides.push(f.targetColumn(other.tableName));
          if (sides.length === 0) continue;
          const source = other.modelName;
          const target = (f.targetModel() as AnyModel | null)?.modelName ?? f.targetTable(other.tableName);
          const label = `${capfirst(source)}-${target} relationship`;
          const join = f.throughTable(other.tableName);
          for (const column of new Set(sides)) {
            const pairs = (await db.selectFrom(join).select('id').where(sql.ref(column), '=', r[model.primaryKey]).orderBy('id').limit(1000).execute()) as Row[];
            for (const pair of pairs) {
              if (seen.has(`${join}:${String(pair['id'])}`)) continue;
              seen.add(`${join}:${String(pair['id'])}`);
              counts.set(`${label}s`, (counts.get(`${label}s`) ?? 0) + 1);
              children.push({ label: `${label}: ${other.objectName}_${fname} object (${String(pair['id'])})`, url: null, children: [] });
            }
          }
        }
      }
      if (depth < 10) {
        for (const other of models) {
          for (const [fname, f] of Object.entries(other.fields)) {
            if (!(f instanceof RelationField) || f.targetTable(other.tableName) !== model.tableName) continue;
            const key = f.targetModel()?.primaryKey ?? model.primaryKey;
            const refs = await this.withRelated(db, other, (await db.selectFrom(other.tableName).selectAll().where(sql.ref(f.columnName(fname)), '=', r[key]).orderBy(sql.ref(other.primaryKey)).limit(1000).execute()) as Row[]);
            for (const ref of refs) {
              if (seen.has(`${other.tableName}:${String(ref[other.primaryKey])}`)) continue;
              if (f.onDelete === 'cascade') children.push(await visit(other, ref, depth + 1));
              else if (f.onDelete === 'protect' || f.onDelete === 'restrict') protectedRows.push(this.node(req, other, ref));
            }
          }
        }
      }
      return this.node(req, model, r, children);
    };
    const trees: DeletedNode[] = [];
    for (const row of rows) trees.push(await visit(this.modelAdmin.model, row, 0));
    return { trees, protectedRows, counts };
  }
}

interface FilterOption {
  readonly label: string;
  readonly params: Record<string, string>;
}

/**
 * `GET <app>/<model>/?q=&o=&p=&<filters>`: Django's change list — search,
 * the sidebar's filters, sortable headers, and page numbers with the count
 * (`countStrategy`: an estimate on a large PostgreSQL table, with no last-page
 * link). A parameter that is not one of the list's own nor a `listFilter`
 * lookup is a 400 page (Django redirects to `?e=1`); a page past the last, or
 * past the rows when the count is not exact, is a 404 page.
 */
export class AdminChangeListView extends AdminModelView {
  static override viewName = 'Change list';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, 'view', 'change');
    if (denied) return denied;
    try {
      return await this.changeList(req);
    } catch (err) {
      // A filter value the column type refuses (a NUL byte, a number out of range) is the client's.
      if (isDatabaseInputError(err)) throw new IncorrectLookupParameters('Incorrect lookup parameters: a value does not fit its column.');
      throw err;
    }
  }

  /**
   * `POST` with `action` and `_selected_action` (each checked row's key):
   * Django's `response_action`. No row checked is a message back on the
   * list; an action that is not offered is "No action selected."; one the
   * user may not run is a 403. A custom action runs on the rows in one
   * transaction and its message follows the redirect back to the list.
   * `delete_selected` is Django's "Delete selected …": a confirmation
   * listing what the cascade removes, then (with `post=yes`) every row
   * deleted and logged in one transaction, or refused (409) when a row is
   * protected.
   */
  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, 'view', 'change');
    if (denied) return denied;
    const admin = this.modelAdmin;
    const model = admin.model;
    // The list as it was (search, filters, order, page): the action's form posts to it and comes back to it, as Django's.
    const query = this.ownQuery(req);
    const base = query ? `${this.modelUrl(req, admin, 'changelist')}?${query}` : this.modelUrl(req, admin, 'changelist');
    const data = (req.data ?? {}) as Record<string, unknown>;
    const raw = data['_selected_action'];
    const keys = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((k) => keyValue(model, String(k))).filter((k) => k !== undefined);
    const read = async (db: AnyDb) =>
      keys.length ? await this.withRelated(db, model, (await db.selectFrom(model.tableName).selectAll().where(sql.ref(model.primaryKey), 'in', keys).orderBy(sql.ref(model.primaryKey)).execute()) as Row[]) : [];
    const rows = await read(this.db(req));
    if (rows.length === 0) {
      await flash(req, { level: 'info', text: 'Items must be selected in order to perform actions on them. No items have been changed.' });
      return redirect(base);
    }
    const named = Array.isArray(data['action']) ? data['action'][0] : data['action'];
    const action = admin.availableActions((a) => this.can(req, admin, a)).find((a) => a.name === named);
    if (!action) {
      // An action the model has but the user may not run is refused; an unknown one is Django's invalid action form.
      if (admin.availableActions(() => true).some((a) => a.name === named)) throw new PermissionDenied();
      await flash(req, { level: 'info', text: 'No action selected.' });
      return redirect(base);
    }
    if (action.custom) {
      const handler = action.custom.handler;
      const message = await this.db(req)
        .transaction()
        .execute(async (trx) => handler({ req, db: trx, rows: await read(trx), admin }));
      if (typeof message === 'string' && message !== '') await flash(req, { level: 'info', text: message });
      return redirect(base);
    }
    const { trees, protectedRows, counts } = await this.collect(req, rows);
    const plural = rows.length === 1 ? model.verboseName : model.verboseNamePlural;
    if (protectedRows.length === 0 && data['post'] === 'yes') {
      await this.db(req)
        .transaction()
        .execute(async (trx) => {
          for (const row of rows) {
            await logAction(trx, { userId: Number(req.user.pk), contentType: model.tableName, objectId: String(row[model.primaryKey]), objectRepr: admin.repr(row), actionFlag: DELETION, changeMessage: '' });
          }
          await trx.deleteFrom(model.tableName).where(sql.ref(model.primaryKey), 'in', rows.map((r) => r[model.primaryKey])).execute();
        });
      await flash(req, { level: 'success', text: `Successfully deleted ${rows.length} ${plural}.` });
      return redirect(base);
    }
    const title = protectedRows.length ? `Cannot delete ${plural}` : 'Are you sure?';
    const body = protectedRows.length
      ? html`<div class="panel confirm" id="delete-confirmation">
<h1>${title}</h1>
<p>Deleting the selected ${plural} would require deleting the following protected related objects:</p>
<div id="protected-objects">${deletedList(protectedRows)}</div>
<p><a class="btn" href="${base}">Back</a></p>
</div>`
      : html`<div class="panel confirm" id="delete-confirmation">
<h1>${title}</h1>
<p>Are you sure you want to delete the selected ${plural}? All of the following objects and their related items will be deleted:</p>
<h2>Summary</h2>
<ul id="deleted-summary">${[...counts.entries()].map(([label, n]) => html`<li>${label}: ${n}</li>`)}</ul>
<h2>Objects</h2>
<div id="deleted-objects">${deletedList(trees)}</div>
<form method="post" action="${base}">
${this.csrfField(req)}
${rows.map((r) => html`<input type="hidden" name="_selected_action" value="${String(r[model.primaryKey])}">`)}
<input type="hidden" name="action" value="delete_selected">
<input type="hidden" name="post" value="yes">
<div class="form-actions"><button type="submit" class="btn btn-danger">Yes, I’m sure</button>
<a class="btn" href="${base}">No, take me back</a></div>
</form>
</div>`;
    const page = this.page(req, title, body, [], [...this.trail(req).slice(0, 2), { name: 'Delete multiple objects', url: base }]);
    return protectedRows.length && data['post'] === 'yes' ? new Response(page, { status: 409 }) : page;
  }

  private async changeList(req: ApiRequest): Promise<AdminPage> {
    const admin = this.modelAdmin;
    const model = admin.model;
    const db = this.db(req);
    const postgres = dialectOf(db) === 'postgres';
    const query = req.query as Record<string, string | undefined>;
    const search = (query['q'] ?? '').replaceAll('\0', '').trim();

    const filterParams: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) if (!LIST_PARAMS.has(k) && v !== undefined) filterParams[k] = v;
    const conditions = this.filterConditions(filterParams, postgres);
    if (search) conditions.push(...this.searchConditions(search, postgres));
    const where = <Q extends AnySelect>(q: Q): Q => conditions.reduce((acc, c) => acc.where(c) as Q, q);

    // Counted as the API's pagination counts (countStrategy): on a large PostgreSQL table the planner's
    // estimate, never a count(*) over a million rows; the whole table only when the page shows its total.
    const threshold = ESTIMATED_COUNT_THRESHOLD;
    let counted: CountResult = await countWith(pageSource(where(db.selectFrom(model.tableName).selectAll())), admin.countStrategy, threshold);
    const total = conditions.length && admin.showFullResultCount ? await countWith(pageSource(db.selectFrom(model.tableName).selectAll()), admin.countStrategy, threshold) : null;
    const perPage = admin.listPerPage;
    const pageText = query['p'];
    const page = pageText === undefined ? 1 : /^\d{1,9}$/.test(pageText) ? Number(pageText) : NaN;
    const exactPages = counted.exact ? Math.max(1, Math.ceil(counted.count! / perPage)) : null;
    if (!Number.isInteger(page) || page < 1 || (exactPages !== null && page > exactPages)) throw new NotFound('Invalid page.');

    const sortable = this.sortableFields();
    const asked = (query['o'] ?? '').split(',').filter((o) => sortable.includes(o.replace(/^-/, '')));
    const ordering = asked.length ? asked : [...(admin.options.ordering ?? model.meta.ordering ?? [`-${model.primaryKey}`])];
    let q = where(db.selectFrom(model.tableName).selectAll());
    for (const o of ordering) {
      const name = o.replace(/^-/, '');
      const column = model.fields[name]?.columnName(name) ?? name;
      q = q.orderBy(sql.ref(column), o.startsWith('-') ? 'desc' : 'asc');
    }
    // A total order (Django adds the primary key), so pages never repeat or skip a row.
    if (!ordering.some((o) => o.replace(/^-/, '') === model.primaryKey)) q = q.orderBy(sql.ref(model.primaryKey), 'desc');
    // Without an exact count, one row more than a page says whether a next page exists (as the API's pagination).
    const fetched = (await q.limit(exactPages === null ? perPage + 1 : perPage).offset((page - 1) * perPage).execute()) as Row[];
    if (exactPages === null && page > 1 && fetched.length === 0) throw new NotFound('Invalid page.');
    const hasNext = exactPages === null ? fetched.length > perPage : page < exactPages;
    // A page with no next one knows the exact count: the last page says "200,005 books", not "about 200,000".
    if (exactPages === null && !hasNext) counted = { count: (page - 1) * perPage + fetched.length, exact: true };
    const rows = await this.withRelated(db, model, fetched.slice(0, perPage));

    const display = admin.options.listDisplay ?? [];
    const fieldColumns = display.filter((e): e is string => typeof e === 'string');
    const related = await this.relatedNames(req, fieldColumns, rows);
    const base = this.modelUrl(req, admin, 'changelist');
    const listUrl = (changes: Record<string, string | null>) => {
      const params = new URLSearchParams();
      const merged: Record<string, string | null> = { ...filterParams, ...(search ? { q: search } : {}), ...(asked.length ? { o: asked.join(',') } : {}), ...changes };
      for (const [k, v] of Object.entries(merged)) if (v !== null && v !== '') params.set(k, v);
      const s = params.toString();
      return s ? `${base}?${s}` : base;
    };

    const headers: SortHeader[] = (display.length ? display : [null]).map((entry) => {
      if (entry === null) return { label: capfirst(model.verboseName), href: null, sort: null };
      const label = this.columnLabel(entry);
      if (typeof entry !== 'string' || !sortable.includes(entry)) return { label, href: null, sort: null };
      const sort = asked[0] === entry ? 'ascending' : asked[0] === `-${entry}` ? 'descending' : null;
      return { label, sort, href: listUrl({ o: sort === 'ascending' ? `-${entry}` : entry, p: null }) };
    });
    const canChange = this.can(req, admin, 'change') || this.can(req, admin, 'view');
    // The list's own query, carried to the pages it links to and back after a save (Django's preserve_filters).
    const preserved = this.ownQuery(req);
    // Django's actions ("Delete selected …" for users who may delete, then the custom ones the user may run): a checkbox per row.
    const actions = admin.availableActions((a) => this.can(req, admin, a));
    const selectable = actions.length > 0 && rows.length > 0;
    if (selectable) headers.push({ label: 'Select', href: null, sort: null });
    const bodyRows = rows.map((row) => {
      const pk = row[model.primaryKey];
      const cells = (display.length ? display : [null]).map((entry, i) => {
        const text = entry === null ? admin.repr(row) : this.cell(entry, row, related);
        const label = headers[i]!.label;
        const content = i === 0 && canChange ? html`<a href="${this.withFilters(this.modelUrl(req, admin, 'change', pk), preserved)}">${text}</a>` : text;
        return i === 0 ? html`<th scope="row" data-label="${label}">${content}</th>` : html`<td data-label="${label}">${content}</td>`;
      });
      const select = selectable
        ? html`<td data-label="Select"><input type="checkbox" name="_selected_action" value="${String(pk)}" form="changelist-form" aria-label="${`Select ${admin.repr(row)}`}"></td>`
        : '';
      return html`<tr data-pk="${String(pk)}">${cells}${select}</tr>`;
    });

    const pageUrl = (n: number) => listUrl({ p: n > 1 ? String(n) : null });
    // An estimated or capped count gives no last page: the links run to the next page, then a break.
    const lastLinked = exactPages ?? (hasNext ? page + 1 : page);
    const numbers = displayedPageNumbers(page, lastLinked);
    if (exactPages === null && hasNext) numbers.push(null);
    const controls = lastLinked > 1 ? paginationNav(page, numbers, hasNext, pageUrl) : '';
    const plural = counted.exact && counted.count === 1 ? model.verboseName : model.verboseNamePlural;
    const results = counted.count === null ? '' : `${countText(counted)} result${counted.exact && counted.count === 1 ? '' : 's'} `;
    const filters = await this.filterSidebar(req, filterParams, listUrl);
    const title = `Select ${model.verboseName} to ${this.can(req, admin, 'change') ? 'change' : 'view'}`;
    const canAdd = this.can(req, admin, 'add');
    const searchBox = admin.options.searchFields?.length
      ? html`<form method="get" action="${base}" class="toolbar" role="search" id="changelist-search">
<label class="visually-hidden" for="searchbar">Search ${model.verboseNamePlural}</label>
<input type="search" name="q" id="searchbar" value="${search}">
${Object.entries(filterParams).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}${asked.length ? html`<input type="hidden" name="o" value="${asked.join(',')}">` : ''}
<button type="submit" class="btn">Search</button>
${conditions.length ? html`<span class="muted" id="result-count">${results}(<a href="${base}">${total === null ? 'Show all' : total.count === null ? 'Show all' : `${countText(total)} total`}</a>)</span>` : ''}
</form>`
      : '';
    const body = html`<h1>${title}</h1>
${canAdd ? html`<p><a class="btn btn-primary" id="add-link" href="${this.withFilters(this.modelUrl(req, admin, 'add'), preserved)}">Add ${model.verboseName}</a></p>` : ''}
${searchBox}
${filters}
${selectable
  ? html`<form method="post" action="${preserved ? `${base}?${preserved}` : base}" id="changelist-form" class="toolbar">
${this.csrfField(req)}
<label for="id_action">Action</label>
<select name="action" id="id_action"><option value="">---------</option>${actions.map((a) => html`<option value="${a.name}">${a.description}</option>`)}</select>
<button type="submit" class="btn">Go</button>
</form>`
  : ''}
${listTable('result_list', capfirst(model.verboseNamePlural), headers, bodyRows)}
${counted.count === null ? '' : html`<p class="paginator muted" id="paginator">${countText(counted)} ${plural}</p>`}
${unsafeRaw(controls)}`;
    return this.page(req, title, body, await takeFlash(req), this.trail(req).slice(0, 2).map((b, i) => (i === 1 ? { ...b, url: base } : b)));
  }

  private sortableFields(): string[] {
    const admin = this.modelAdmin;
    if (admin.options.sortableBy) return [...admin.options.sortableBy];
    return (admin.options.listDisplay ?? []).filter((e): e is string => typeof e === 'string');
  }

  private columnLabel(entry: ListDisplayEntry<Row>): string {
    if (typeof entry === 'string') return this.modelAdmin.label(entry);
    if (typeof entry === 'function') return capfirst((entry.name || 'value').replaceAll('_', ' '));
    return entry.label;
  }

  private cell(entry: ListDisplayEntry<Row>, row: Row, related: Map<string, Map<string, string>>): string {
    if (typeof entry === 'function') return String(entry(row));
    if (typeof entry === 'object') return String(entry.value(row));
    const f = this.modelAdmin.model.fields[entry]!;
    return displayValue(f, row[f.columnName(entry)], related.get(entry));
  }

  /** The `listFilter` lookups of each field, as Django's list filters name them. */
  private lookups(name: string, f: ModelField): string[] {
    const out = f.isRelation || f instanceof ManyToManyField ? [`${name}__${(f as RelationField | ManyToManyField).targetModel()?.primaryKey ?? 'id'}__exact`] : f.kind === 'date' || f.kind === 'datetime' ? [`${name}__year`, `${name}__month`] : [`${name}__exact`];
    if (f.null || f instanceof ManyToManyField) out.push(`${name}__isnull`);
    return out;
  }

  private filterConditions(params: Record<string, string>, postgres: boolean): Expression<SqlBool>[] {
    const admin = this.modelAdmin;
    const model = admin.model;
    const allowed = new Map<string, string>();
    for (const name of admin.options.listFilter ?? []) for (const l of this.lookups(name, model.fields[name]!)) allowed.set(l, name);
    const out: Expression<SqlBool>[] = [];
    const bad = (k: string): never => {
      throw new IncorrectLookupParameters(`Incorrect lookup parameters: the ${model.verboseNamePlural} cannot be filtered by “${k}”.`);
    };
    for (const [k, v] of Object.entries(params)) {
      const name = allowed.get(k);
      if (!name) bad(k);
      const f = model.fields[name!]!;
      const column = sql.ref(f.columnName(name!));
      if (f instanceof ManyToManyField) {
        const pairs = sql`select ${sql.ref(f.sourceColumn(model.tableName))} from ${sql.table(f.throughTable(model.tableName))}`;
        if (k.endsWith('__isnull')) {
          if (!['True', 'False', '1', '0', 'true', 'false'].includes(v)) bad(`${k}=${v}`);
          const none = ['True', '1', 'true'].includes(v);
          out.push(none ? sql<SqlBool>`${sql.ref(model.primaryKey)} not in (${pairs})` : sql<SqlBool>`${sql.ref(model.primaryKey)} in (${pairs})`);
        } else {
          const key = targetKeyValue(f, v);
          if (key === undefined) bad(`${k}=${v}`);
          out.push(sql<SqlBool>`${sql.ref(model.primaryKey)} in (${pairs} where ${sql.ref(f.targetColumn(model.tableName))} = ${key})`);
        }
        continue;
      }
      if (k.endsWith('__isnull')) {
        if (!['True', 'False', '1', '0', 'true', 'false'].includes(v)) bad(`${k}=${v}`);
        out.push(['True', '1', 'true'].includes(v) ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} is not null`);
      } else if (k.endsWith('__year')) {
        if (!/^\d{1,4}$/.test(v) || Number(v) < 1) bad(`${k}=${v}`);
        const year = Number(v);
        const monthText = params[`${name}__month`];
        let start = `${String(year).padStart(4, '0')}-01-01`;
        let end = `${String(year + 1).padStart(4, '0')}-01-01`;
        if (monthText !== undefined) {
          if (!/^\d{1,2}$/.test(monthText) || Number(monthText) < 1 || Number(monthText) > 12) bad(`${name}__month=${monthText}`);
          const m = Number(monthText);
          start = `${String(year).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
          end = m === 12 ? end : `${String(year).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}-01`;
        }
        const bound = (d: string) => (postgres && f.kind === 'datetime' ? new Date(`${d}T00:00:00Z`) : d);
        out.push(sql<SqlBool>`${column} >= ${bound(start)}`, sql<SqlBool>`${column} < ${bound(end)}`);
      } else if (k.endsWith('__month')) {
        if (params[`${name}__year`] === undefined) bad(k);
      } else if (f.kind === 'boolean') {
        if (!['1', '0', 'True', 'False', 'true', 'false'].includes(v)) bad(`${k}=${v}`);
        const yes = ['1', 'True', 'true'].includes(v);
        out.push(sql<SqlBool>`${column} = ${postgres ? yes : yes ? 1 : 0}`);
      } else if (f.isRelation) {
        const key = targetKeyValue(f as RelationField, v);
        if (key === undefined) bad(`${k}=${v}`);
        out.push(sql<SqlBool>`${column} = ${key}`);
      } else {
        const choice = f.options.choices?.find(([c]) => String(c) === v);
        if (!choice) bad(`${k}=${v}`);
        out.push(sql<SqlBool>`${column} = ${choice![0]}`);
      }
    }
    return out;
  }

  /** Every word of `q` in any search field (Django's `get_search_results`). */
  private searchConditions(q: string, postgres: boolean): Expression<SqlBool>[] {
    return searchConditions(this.modelAdmin, q, postgres);
  }

  /** The sidebar: for each `listFilter` field, "All" and each value, the current one marked. */
  private async filterSidebar(req: ApiRequest, params: Record<string, string>, listUrl: (changes: Record<string, string | null>) => string): Promise<SafeHtml> {
    const admin = this.modelAdmin;
    const model = admin.model;
    const names = admin.options.listFilter ?? [];
    if (names.length === 0) return html``;
    const db = this.db(req);
    const postgres = dialectOf(db) === 'postgres';
    const sections: SafeHtml[] = [];
    for (const name of names) {
      const f = model.fields[name]!;
      const lookups = this.lookups(name, f);
      const clear = Object.fromEntries(lookups.map((l) => [l, null]));
      const options: FilterOption[] = [{ label: f.kind === 'date' || f.kind === 'datetime' ? 'Any date' : 'All', params: {} }];
      const column = f.columnName(name);
      if (f.kind === 'boolean') {
        options.push({ label: 'Yes', params: { [`${name}__exact`]: '1' } }, { label: 'No', params: { [`${name}__exact`]: '0' } });
      } else if (f.options.choices?.length) {
        for (const [v, label] of f.options.choices) options.push({ label, params: { [`${name}__exact`]: String(v) } });
      } else if (f instanceof RelationField || f instanceof ManyToManyField) {
        const key = `${name}__${f.targetModel()?.primaryKey ?? 'id'}__exact`;
        const targets = await this.reprsOf(req, f, [], 100);
        // The value filtered by stays listed (and marked) when it is past the first hundred.
        const chosen = params[key] === undefined ? undefined : targetKeyValue(f, params[key]);
        if (chosen !== undefined && !targets.has(params[key]!)) for (const [k, v] of await this.reprsOf(req, f, [chosen])) targets.set(k, v);
        for (const [pk, label] of targets) options.push({ label, params: { [key]: pk } });
      } else {
        const year = params[`${name}__year`];
        const part = (what: 'year' | 'month') =>
          postgres ? sql<string>`cast(extract(${sql.raw(what)} from ${sql.ref(column)}) as integer)` : what === 'year' ? sql<string>`cast(substr(${sql.ref(column)}, 1, 4) as integer)` : sql<string>`cast(substr(${sql.ref(column)}, 6, 2) as integer)`;
        if (year === undefined || !/^\d{1,4}$/.test(year)) {
          const years = await db.selectFrom(model.tableName).select(part('year').as('v')).distinct().where(sql.ref(column), 'is not', null).orderBy('v').limit(100).execute();
          for (const y of years) options.push({ label: String(y['v']), params: { [`${name}__year`]: String(y['v']) } });
        } else {
          // A year chosen: that year, and its months (Django's date hierarchy).
          options.push({ label: year, params: { [`${name}__year`]: year } });
          const y = Number(year);
          const months = await db
            .selectFrom(model.tableName)
            .select(part('month').as('v'))
            .distinct()
            .where(sql.ref(column), '>=', postgres && f.kind === 'datetime' ? new Date(`${String(y).padStart(4, '0')}-01-01T00:00:00Z`) : `${String(y).padStart(4, '0')}-01-01`)
            .where(sql.ref(column), '<', postgres && f.kind === 'datetime' ? new Date(`${String(y + 1).padStart(4, '0')}-01-01T00:00:00Z`) : `${String(y + 1).padStart(4, '0')}-01-01`)
            .orderBy('v')
            .execute();
          for (const m of months) {
            const month = Number(m['v']);
            const label = `${new Date(Date.UTC(2000, month - 1, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' })} ${year}`;
            options.push({ label, params: { [`${name}__year`]: year, [`${name}__month`]: String(month) } });
          }
        }
      }
      if (f.null || f instanceof ManyToManyField) options.push({ label: EMPTY, params: { [`${name}__isnull`]: 'True' } });
      const current = (o: FilterOption) => lookups.every((l) => (o.params[l] ?? undefined) === params[l]);
      sections.push(html`<h3>By ${admin.verboseFieldName(name)}</h3>
<ul>${options.map((o) => {
        const href = listUrl({ ...clear, ...o.params, p: null });
        return current(o) ? html`<li class="selected"><a href="${href}" aria-current="true">${o.label}</a></li>` : html`<li><a href="${href}">${o.label}</a></li>`;
      })}</ul>`);
    }
    return html`<nav class="filters" id="changelist-filter" aria-label="Filter"><h2>Filter</h2>
${sections}
</nav>`;
  }
}

/** The change form's buttons, as Django names them. */
type SaveButton = '_save' | '_addanother' | '_continue';

/**
 * `GET/POST <app>/<model>/add/` and `<app>/<model>/<pk>/change/`: the form
 * built from the model's fields (a widget per kind), errors inline with the
 * model serializer's messages, and Django's three buttons. The write and its
 * history row are one transaction.
 */
export class AdminChangeFormView extends AdminModelView {
  static override viewName = 'Change form';
  /** `add` or `change`; set by `adminRoutes`. */
  mode: 'add' | 'change' = 'change';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = this.mode === 'add' ? await this.allow(req, 'add') : await this.allow(req, 'view', 'change');
    if (denied) return denied;
    const instance = this.mode === 'add' ? null : await this.object(req);
    return this.formPage(req, instance, null, {}, await takeFlash(req));
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, this.mode === 'add' ? 'add' : 'change');
    if (denied) return denied;
    const admin = this.modelAdmin;
    const model = admin.model;
    const instance = this.mode === 'add' ? null : await this.object(req);
    const form: AdminForm = this.form(req);
    const posted = (req.data ?? {}) as Record<string, unknown>;
    for (const [name, f] of Object.entries(model.fields)) {
      if (!(f instanceof ManyToManyField)) continue;
      const v = posted[name];
      form[name] = (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
    }
    const valid = await validateAdminForm(admin, instance, form, req);
    // Every inline row is read and validated too, so that all errors show at once; nothing is written unless all pass.
    const inlineErrors: FormErrors = {};
    const inlineWrites: InlineWrites[] = [];
    for (const inline of admin.inlines) {
      const may = this.inlinePermissions(req, inline, instance === null);
      // Rows the user may only view have no management form and are left alone.
      if (!may || (!may.add && !may.change && !(inline.canDelete && may.delete))) continue;
      const read = await readInline(req, inline, instance, form, may);
      Object.assign(inlineErrors, read.errors);
      inlineWrites.push(read.writes);
    }
    if (!valid.ok || Object.keys(inlineErrors).length) return this.formPage(req, instance, form, { ...(valid.ok ? {} : valid.errors), ...inlineErrors }, []);
    let saved: Row;
    try {
      saved = await this.db(req)
        .transaction()
        .execute(async (trx) => {
          const result = await writeAdminForm(trx, admin, instance, valid, req);
          if (!result.ok) throw new FormRejected(result.errors);
          const [row] = await this.withRelated(trx, model, [{ ...result.saved.row }]);
          const related: InlineChange[] = [];
          for (const writes of inlineWrites) {
            const m = writes.inline.model;
            const name = async (r: Row) => this.rowName(m, (await this.withRelated(trx, m, [{ ...r }]))[0]!);
            related.push(...(await writeInline(trx, req, writes, row!, name)));
          }
          await logAction(trx, {
            userId: Number(req.user.pk),
            contentType: model.tableName,
            objectId: String(row![model.primaryKey]),
            objectRepr: admin.repr(row!),
            actionFlag: instance ? CHANGE : ADDITION,
            changeMessage: changeMessageJson(instance ? CHANGE : ADDITION, result.saved.changed, related),
          });
          return row!;
        });
    } catch (err) {
      if (err instanceof FormRejected || err instanceof InlineRowRejected) return this.formPage(req, instance, form, err.errors, []);
      throw err;
    }
    const pk = saved[model.primaryKey];
    const name = admin.repr(saved);
    const button: SaveButton = '_continue' in form ? '_continue' : '_addanother' in form ? '_addanother' : '_save';
    const did = instance ? 'changed' : 'added';
    const filters = this.preservedFilters(req);
    const link = this.withFilters(this.modelUrl(req, admin, 'change', pk), filters);
    if (button === '_continue') {
      await flash(req, { level: 'success', text: `The ${model.verboseName} “${name}” was ${did} successfully. You may edit it again below.` });
      return redirect(link);
    }
    if (button === '_addanother') {
      await flash(req, { level: 'success', text: `The ${model.verboseName} “${name}” was ${did} successfully. You may add another ${model.verboseName} below.` });
      return redirect(this.withFilters(this.modelUrl(req, admin, 'add'), filters));
    }
    await flash(req, { level: 'success', text: `The ${model.verboseName} “${name}” was ${did} successfully.` });
    return redirect(this.filteredList(req));
  }

  /** A row's name as the site names it, else Django's `Book object (1)`. */
  private rowName(model: AnyModel, row: Row): string {
    return this.modelAdmin.site.reprOf(model.tableName, row) ?? `${model.objectName} object (${String(row[model.primaryKey])})`;
  }

  /**
   * What the user may do with an inline's rows (Django's inline
   * permissions): the inline model's own when it is registered, else the
   * parent's `add` (on the add form) or `change`; `null` when the inline is
   * not shown at all.
   */
  private inlinePermissions(req: ApiRequest, inline: InlineAdmin, adding: boolean, viewing = false): InlinePermissions | null {
    const own = this.modelAdmin.site.adminFor(inline.model.tableName);
    if (!own) {
      const may = this.can(req, this.modelAdmin, adding ? 'add' : 'change') || (viewing && this.can(req, this.modelAdmin, 'view'));
      return may ? { add: true, change: true, delete: true } : null;
    }
    const may = { add: this.can(req, own, 'add'), change: this.can(req, own, 'change'), delete: this.can(req, own, 'delete') };
    return may.add || may.change || may.delete || this.can(req, own, 'view') ? may : null;
  }

  /** The tables of the admin's inlines the user may see, for the form. */
  private async inlineTables(req: ApiRequest, instance: Row | null, posted: AdminForm | null, errors: FormErrors, viewOnly: boolean): Promise<SafeHtml[]> {
    const out: SafeHtml[] = [];
    for (const inline of this.modelAdmin.inlines) {
      // A view-only page shows the rows as text (the inline model's view permission, or the parent's).
      const may = viewOnly ? (this.inlinePermissions(req, inline, false, true) ? { add: false, change: false, delete: false } : null) : this.inlinePermissions(req, inline, instance === null);
      if (!may) continue;
      const m = inline.model;
      const rows = await this.withRelated(this.db(req), m, await inlineRows(this.db(req), inline, instance));
      out.push(
        await inlineHtml({
          inline,
          rows,
          posted,
          errors,
          may,
          choices: async (f, keys) => [...(await (keys ? this.reprsOf(req, f, keys, undefined, m.tableName) : this.reprsOf(req, f, [], 1000, m.tableName))).entries()],
          autocompleteUrl: (field) => `${this.url(req, 'autocomplete')}?${new URLSearchParams({ app_label: inline.appLabel, model_name: m.modelName, field_name: field }).toString()}`,
          name: (r) => this.rowName(m, r),
        }),
      );
    }
    return out;
  }

  private async formPage(req: ApiRequest, instance: Row | null, posted: AdminForm | null, errors: FormErrors, messages: AdminMessage[]): Promise<AdminPage> {
    const admin = this.modelAdmin;
    const model = admin.model;
    const canChange = instance === null || this.can(req, admin, 'change');
    const title = instance ? `${canChange ? 'Change' : 'View'} ${model.verboseName}` : `Add ${model.verboseName}`;
    const count = Object.values(errors).reduce((n, e) => n + e.length, 0);
    const all = [...messages];
    if (count > 0) all.push({ level: 'error', text: count === 1 ? 'Please correct the error below.' : 'Please correct the errors below.' });
    for (const m of errors['__all__'] ?? []) all.push({ level: 'error', text: m });
    const rows: SafeHtml[] = [];
    for (const name of admin.formFields()) {
      const f = model.fields[name]!;
      const label = admin.label(name);
      const id = `id_${name}`;
      const errs = errors[name] ?? [];
      const errorId = errs.length ? `${id}_errors` : null;
      const helpId = f.options.helpText ? `${id}_help` : null;
      const describedBy = [errorId, helpId].filter(Boolean).join(' ') || null;
      if (f instanceof ManyToManyField) {
        const chosen = posted ? [...(typeof posted[name] === 'string' ? [posted[name] as string] : ((posted[name] as readonly string[] | undefined) ?? []))] : instance ? await relatedKeys(this.db(req), model, f, instance) : [];
        // An autocomplete lists only the rows chosen (its script adds the ones a search finds); else the first
        // thousand targets, and the chosen ones past them (a save must not drop them).
        const chosenKeys = () => chosen.map((k) => targetKeyValue(f, k)).filter((k) => k !== undefined);
        const targets = admin.isAutocomplete(name) ? await this.reprsOf(req, f, chosenKeys()) : await this.reprsOf(req, f, [], 1000);
        const missing = chosen.filter((k) => !targets.has(k));
        if (missing.length && !admin.isAutocomplete(name)) for (const [k, v] of await this.reprsOf(req, f, missing.map((k) => targetKeyValue(f, k)).filter((k) => k !== undefined))) targets.set(k, v);
        if (admin.isReadonly(name) || !canChange) {
          const names = chosen.map((k) => targets.get(k) ?? k);
          rows.push(html`<div class="field readonly" id="${`field-${name}`}"><span class="label">${label}</span> <div class="readonly-value">${names.length ? names.join(', ') : EMPTY}</div></div>\n`);
          continue;
        }
        const attrs = html` name="${name}" id="${id}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${errs.length ? html` aria-invalid="true"` : ''}`;
        rows.push(html`<div class="field${errs.length ? ' has-error' : ''}" id="${`field-${name}`}"><label for="${id}">${label}</label><select multiple${attrs}${this.autocompleteAttrs(req, name)} size="${Math.min(10, Math.max(3, targets.size))}">${[...targets.entries()].map(
          ([v, l]) => html`<option value="${v}"${chosen.includes(v) ? html` selected` : ''}>${l}</option>`,
        )}</select>${this.autocompleteSearch(name, f)}${this.help(f, helpId)}${this.errorList(errs, errorId)}</div>\n`);
        continue;
      }
      const stored = instance ? instance[f.columnName(name)] : typeof f.options.default === 'function' ? (f.options.default as () => unknown)() : f.options.default;
      const text = posted ? (formText(posted, name) ?? (f.kind === 'boolean' && !f.null ? 'false' : '')) : inputText(f, stored);
      let widget: SafeHtml;
      if (admin.isReadonly(name) || !canChange) {
        const related = f instanceof RelationField && stored !== null && stored !== undefined ? await this.reprsOf(req, f, [stored]) : undefined;
        // A related row links to its own page when the user may see it (Django's read-only foreign key).
        const target = related && f instanceof RelationField ? admin.site.adminFor(f.targetTable(model.tableName)) : undefined;
        const shown = displayValue(f, stored, related);
        const value = target && related?.has(String(stored)) && (this.can(req, target, 'view') || this.can(req, target, 'change')) ? html`<a href="${this.modelUrl(req, target, 'change', stored)}">${shown}</a>` : shown;
        rows.push(html`<div class="field readonly" id="${`field-${name}`}"><span class="label">${label}</span> <div class="readonly-value">${value}</div></div>\n`);
        continue;
      }
      const attrs = html` name="${name}" id="${id}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${errs.length ? html` aria-invalid="true"` : ''}`;
      if (f.kind === 'boolean' && !f.null) {
        const checked = posted ? text === 'on' || text === 'true' : text === 'true';
        rows.push(html`<div class="field check${errs.length ? ' has-error' : ''}" id="${`field-${name}`}"><input type="checkbox"${attrs}${checked ? html` checked` : ''}><label for="${id}">${label}</label>${this.help(f, helpId)}${this.errorList(errs, errorId)}</div>\n`);
        continue;
      }
      const choices: Array<readonly [string, string]> | null =
        f.kind === 'boolean'
          ? [['true', 'Yes'], ['false', 'No']]
          : f.options.choices?.length
            ? f.options.choices.map(([v, l]) => [String(v), l] as const)
            : f instanceof RelationField
              ? admin.isAutocomplete(name)
                ? [...(await this.reprsOf(req, f, [targetKeyValue(f, text)].filter((k) => k !== undefined && text !== ''))).entries()]
                : await this.relationChoices(req, f, text)
              : null;
      if (choices) {
        const required = !f.null && !(f.options.blank === true);
        widget = html`<select${attrs}${this.autocompleteAttrs(req, name)}${required ? html` required` : ''}>${!required || text === '' || f.kind === 'boolean' || f.isRelation ? html`<option value=""${text === '' ? html` selected` : ''}>---------</option>` : ''}${choices.map(
          ([v, l]) => html`<option value="${v}"${v === text ? html` selected` : ''}>${l}</option>`,
        )}</select>${this.autocompleteSearch(name, f)}`;
      } else if (f.kind === 'text' || f.kind === 'json') {
        widget = html`<textarea${attrs} rows="6">${text}</textarea>`;
      } else {
        const type: Record<string, string> = { integer: 'number', bigInteger: 'number', float: 'number', decimal: 'number', date: 'date', datetime: 'datetime-local', time: 'time', email: 'email', url: 'url' };
        const max = f.options['maxLength'];
        const step = f.kind === 'float' ? 'any' : f.kind === 'decimal' ? (Number(f.options['decimalPlaces']) > 0 ? `0.${'0'.repeat(Number(f.options['decimalPlaces']) - 1)}1` : '1') : f.kind === 'datetime' || f.kind === 'time' ? '1' : null;
        const required = !f.null && !(f.options.blank === true);
        widget = html`<input type="${type[f.kind] ?? 'text'}"${attrs} value="${text}"${typeof max === 'number' ? html` maxlength="${max}"` : ''}${step ? html` step="${step}"` : ''}${required ? html` required` : ''}>`;
      }
      rows.push(html`<div class="field${errs.length ? ' has-error' : ''}" id="${`field-${name}`}"><label for="${id}">${label}</label>${widget}${this.help(f, helpId)}${this.errorList(errs, errorId)}</div>\n`);
    }
    const filters = this.preservedFilters(req);
    const action = this.withFilters(instance ? this.modelUrl(req, admin, 'change', instance[model.primaryKey]) : this.modelUrl(req, admin, 'add'), filters);
    const pk = instance?.[model.primaryKey];
    const tools = instance
      ? html`<p class="object-tools"><a class="btn" href="${this.withFilters(this.modelUrl(req, admin, 'history', pk), filters)}">History</a></p>`
      : '';
    const canDelete = instance !== null && this.can(req, admin, 'delete');
    const inlines = await this.inlineTables(req, instance, posted, errors, !canChange);
    const body = html`<h1>${title}</h1>
${instance ? html`<h2 class="muted">${admin.repr(instance)}</h2>` : ''}
${tools}
${canChange
  ? html`<form method="post" action="${action}" id="${model.modelName}_form" class="panel" novalidate>
${this.csrfField(req)}
${this.groups(rows)}
${inlines}
<div class="form-actions submit-row">
<button type="submit" name="_save" class="btn btn-primary">Save</button>
<button type="submit" name="_addanother" class="btn">Save and add another</button>
<button type="submit" name="_continue" class="btn">Save and continue editing</button>
${canDelete ? html`<a class="btn btn-danger" href="${this.withFilters(this.modelUrl(req, admin, 'delete', pk), filters)}">Delete</a>` : ''}
</div>
</form>`
  : html`<div id="${model.modelName}_form" class="panel">
${this.groups(rows)}
${inlines}
<div class="form-actions submit-row">
<a class="btn closelink" href="${this.filteredList(req)}">Close</a>
${canDelete ? html`<a class="btn btn-danger" href="${this.withFilters(this.modelUrl(req, admin, 'delete', pk), filters)}">Delete</a>` : ''}
</div>
</div>`}`;
    const trail = this.trail(req, { name: instance ? admin.repr(instance) : title, url: action });
    const autocomplete = admin.options.autocompleteFields?.length || admin.inlines.some((i) => i.options.autocompleteFields?.length);
    return this.page(req, title, body, all, trail, canChange && autocomplete ? ['admin-autocomplete.js'] : []);
  }

  /**
   * The form's rows in the admin's groups: as they are without `fieldsets`;
   * else a `<fieldset>` each, with its heading as the legend (Django's
   * `<h2>`), its description, and a line of several fields in one row.
   */
  private groups(rows: readonly SafeHtml[]): SafeHtml | readonly SafeHtml[] {
    const admin = this.modelAdmin;
    if (!admin.options.fieldsets) return rows;
    const names = admin.formFields();
    const byName = new Map(names.map((n, i) => [n, rows[i]!]));
    return html`${admin.formGroups().map(
      (g, i) => html`<fieldset class="${['module', 'aligned', ...g.classes].join(' ')}" id="fieldset-${String(i)}">
${g.name !== null ? html`<legend><h2 class="fieldset-heading">${g.name}</h2></legend>\n` : ''}${g.description !== undefined ? html`<div class="description">${g.description}</div>\n` : ''}${g.lines.map((line) => (line.length === 1 ? byName.get(line[0]!)! : html`<div class="form-row">${line.map((n) => byName.get(n)!)}</div>\n`))}</fieldset>\n`,
    )}`;
  }

  /** A foreign key's options: the first thousand targets, and the current one when it is past them. */
  private async relationChoices(req: ApiRequest, f: RelationField, current: string): Promise<Array<readonly [string, string]>> {
    const targets = await this.reprsOf(req, f, [], 1000);
    const key = current === '' ? undefined : targetKeyValue(f, current);
    if (key !== undefined && !targets.has(current)) for (const [k, v] of await this.reprsOf(req, f, [key])) targets.set(k, v);
    return [...targets.entries()];
  }

  /** The `class` and endpoint URL of an autocomplete's select (none for other fields). */
  private autocompleteAttrs(req: ApiRequest, name: string): SafeHtml | '' {
    const admin = this.modelAdmin;
    if (!admin.isAutocomplete(name)) return '';
    const query = new URLSearchParams({ app_label: admin.appLabel, model_name: admin.modelName, field_name: name });
    return html` class="admin-autocomplete" data-autocomplete-url="${`${this.url(req, 'autocomplete')}?${query.toString()}`}"`;
  }

  /** The search box of an autocomplete (`admin-autocomplete.js` fills the select from its answers). */
  private autocompleteSearch(name: string, f: ModelField): SafeHtml | '' {
    if (!this.modelAdmin.isAutocomplete(name)) return '';
    const target = (f as RelationField | ManyToManyField).targetModel() as AnyModel | null;
    return html`<input type="search" class="admin-autocomplete-search" id="id_${name}_search" data-for="id_${name}" aria-controls="id_${name}" aria-label="Search ${target?.verboseNamePlural ?? name}" placeholder="Search…" autocomplete="off">`;
  }

  private help(f: ModelField, id: string | null): SafeHtml | '' {
    return id ? html`<p class="help" id="${id}">${f.options.helpText}</p>` : '';
  }

  private errorList(errors: readonly string[], id: string | null): SafeHtml | '' {
    return errors.length ? html`<ul class="field-errors errorlist" id="${id}">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : '';
  }
}

/**
 * `GET/POST <app>/<model>/<pk>/delete/`: Django's "Are you sure?" with the
 * rows the cascade removes (reverse foreign keys of the site's models),
 * or "Cannot delete" with the rows that protect it.
 */
export class AdminDeleteView extends AdminModelView {
  static override viewName = 'Delete';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, 'delete');
    if (denied) return denied;
    const row = await this.object(req);
    return this.confirmPage(req, row, 200);
  }

  async post(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, 'delete');
    if (denied) return denied;
    const admin = this.modelAdmin;
    const model = admin.model;
    const row = await this.object(req);
    const { protectedRows } = await this.collect(req, [row]);
    if (protectedRows.length) return this.confirmPage(req, row, 409);
    const name = admin.repr(row);
    try {
      await this.db(req)
        .transaction()
        .execute(async (trx) => {
          await logAction(trx, {
            userId: Number(req.user.pk),
            contentType: model.tableName,
            objectId: String(row[model.primaryKey]),
            objectRepr: name,
            actionFlag: DELETION,
            changeMessage: '',
          });
          await trx.deleteFrom(model.tableName).where(sql.ref(model.primaryKey), '=', row[model.primaryKey]).execute();
        });
    } catch (err) {
      const v = constraintViolation(err);
      if (v?.kind !== 'foreign_key') throw err;
      // A table the site does not know protects the row: nothing was deleted.
      return this.confirmPage(req, row, 409, `Rows of ${v.referencingTable ?? 'another table'} still refer to it.`);
    }
    await flash(req, { level: 'success', text: `The ${model.verboseName} “${name}” was deleted successfully.` });
    return redirect(this.filteredList(req));
  }

  private async confirmPage(req: ApiRequest, row: Row, status: number, reason?: string): Promise<AdminPage | Response> {
    const admin = this.modelAdmin;
    const model = admin.model;
    const name = admin.repr(row);
    const {
      trees: [tree],
      protectedRows,
      counts,
    } = await this.collect(req, [row]);
    const list = (nodes: readonly DeletedNode[]): SafeHtml =>
      html`<ul>${nodes.map((n) => html`<li>${n.url ? html`<a href="${n.url}">${n.label}</a>` : n.label}${n.children.length ? list(n.children) : ''}</li>`)}</ul>`;
    const refused = protectedRows.length > 0 || reason !== undefined;
    const pk = row[model.primaryKey];
    const title = refused ? `Cannot delete ${model.verboseName}` : 'Are you sure?';
    const body = refused
      ? html`<div class="panel confirm" id="delete-confirmation">
<h1>${title}</h1>
${protectedRows.length
  ? html`<p>Deleting the ${model.verboseName} “${name}” would require deleting the following protected related objects:</p>
<div id="protected-objects">${list(protectedRows)}</div>`
  : html`<p>Deleting the ${model.verboseName} “${name}” is refused by the database. ${reason ?? ''}</p>`}
<p><a class="btn" href="${this.withFilters(this.modelUrl(req, admin, 'change', pk), this.preservedFilters(req))}">Back</a></p>
</div>`
      : html`<div class="panel confirm" id="delete-confirmation">
<h1>${title}</h1>
<p>Are you sure you want to delete the ${model.verboseName} “${name}”? All of the following related items will be deleted:</p>
<h2>Summary</h2>
<ul id="deleted-summary">${[...counts.entries()].map(([label, n]) => html`<li>${label}: ${n}</li>`)}</ul>
<h2>Objects</h2>
<div id="deleted-objects">${list([tree!])}</div>
<form method="post" action="${this.withFilters(this.modelUrl(req, admin, 'delete', pk), this.preservedFilters(req))}">
${this.csrfField(req)}
<div class="form-actions"><button type="submit" class="btn btn-danger">Yes, I’m sure</button>
<a class="btn" href="${this.withFilters(this.modelUrl(req, admin, 'change', pk), this.preservedFilters(req))}">No, take me back</a></div>
</form>
</div>`;
    const page = this.page(req, title, body, [], this.trail(req, { name, url: this.modelUrl(req, admin, 'change', pk) }, { name: 'Delete', url: this.modelUrl(req, admin, 'delete', pk) }));
    return status === 200 ? page : new Response(page, { status });
  }
}

/** `GET <app>/<model>/<pk>/history/`: the object's `trestle_admin_log` rows, oldest first, as Django's history page. */
export class AdminHistoryView extends AdminModelView {
  static override viewName = 'History';

  async get(req: ApiRequest): Promise<AdminPage | Response> {
    const denied = await this.allow(req, 'view', 'change');
    if (denied) return denied;
    const admin = this.modelAdmin;
    const model = admin.model;
    const row = await this.object(req);
    const pk = row[model.primaryKey];
    const entries = await readLog(this.db(req), { contentType: model.tableName, objectId: String(pk) });
    const name = admin.repr(row);
    const title = `Change history: ${name}`;
    const body = html`<h1>${title}</h1>
${entries.length
  ? html`<table class="list" id="change-history">
<caption class="visually-hidden">Change history</caption>
<thead><tr><th scope="col">Date/time</th><th scope="col">User</th><th scope="col">Action</th></tr></thead>
<tbody>
${entries.map((e) => html`<tr><th scope="row" data-label="Date/time">${e.actionTime.toISOString().replace('T', ' ').slice(0, 19)}</th><td data-label="User">${e.username}</td><td data-label="Action">${describeChange(e)}</td></tr>\n`)}
</tbody>
</table>`
  : html`<p id="change-history">This object doesn’t have a change history. It probably wasn’t added via this admin site.</p>`}`;
    return this.page(req, title, body, [], this.trail(req, { name, url: this.modelUrl(req, admin, 'change', pk) }, { name: 'History', url: this.modelUrl(req, admin, 'history', pk) }));
  }
}

/** The index's sections: each app's models the user may see, and the user's recent actions. */
export async function modelIndexSections(req: ApiRequest, site: AdminSite, urlOf: (name: string, params?: Record<string, string>) => string): Promise<SafeHtml> {
  const user = req.user as User;
  const granted = await loadPermissions(req, site);
  const byApp = new Map<string, ModelAdmin[]>();
  for (const admin of site.registry) {
    if (!(['view', 'add', 'change', 'delete'] as const).some((a) => admin.hasPermission(user, a, granted))) continue;
    byApp.set(admin.appLabel, [...(byApp.get(admin.appLabel) ?? []), admin]);
  }
  const apps = [...byApp.entries()].sort(([a], [b]) => a.localeCompare(b));
  const sections = apps.map(
    ([app, admins]) => html`<table class="list app-${app}" id="app-${app}">
<caption>${capfirst(app)}</caption>
<thead><tr><th scope="col">Model</th><th scope="col">Actions</th></tr></thead>
<tbody>
${[...admins]
  .sort((a, b) => a.model.verboseNamePlural.localeCompare(b.model.verboseNamePlural))
  .map((a) => {
    const list = urlOf(a.routeName('changelist'));
    const canSee = a.hasPermission(user, 'view', granted) || a.hasPermission(user, 'change', granted);
    return html`<tr class="model-${a.modelName}"><th scope="row" data-label="Model">${canSee ? html`<a href="${list}">${capfirst(a.model.verboseNamePlural)}</a>` : capfirst(a.model.verboseNamePlural)}</th><td data-label="Actions">${
      a.hasPermission(user, 'add', granted) ? html`<a href="${urlOf(a.routeName('add'))}" class="addlink">Add</a> ` : ''
    }${canSee ? html`<a href="${list}" class="changelink">${a.hasPermission(user, 'change', granted) ? 'Change' : 'View'}</a>` : ''}</td></tr>\n`;
  })}
</tbody>
</table>`,
  );
  const entries = await readLog(req.app.services.get('db') as AnyDb, { userId: Number(user.pk) }, 10);
  const recent = html`<section class="panel" id="recent-actions" aria-labelledby="recent-actions-heading">
<h2 id="recent-actions-heading">Recent actions</h2>
<h3>My actions</h3>
${entries.length
  ? html`<ul class="actionlist">${entries.map((e) => {
      const admin = e.contentType ? site.adminFor(e.contentType) : undefined;
      const kind = e.actionFlag === ADDITION ? 'addlink' : e.actionFlag === CHANGE ? 'changelink' : 'deletelink';
      const label = admin ? capfirst(admin.model.verboseName) : (e.contentType ?? '');
      const link = admin && e.actionFlag !== DELETION && e.objectId !== null ? urlOf(admin.routeName('change'), { pk: e.objectId }) : null;
      return html`<li class="${kind}">${link ? html`<a href="${link}">${e.objectRepr}</a>` : e.objectRepr} <span class="muted">${label} — ${describeChange(e)}</span></li>`;
    })}</ul>`
  : html`<p>None available</p>`}
</section>`;
  return html`${sections}\n${recent}`;
}
