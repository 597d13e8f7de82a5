import { sql } from 'kysely';
import type { ApiRequest } from '../request.js';
import { Response } from '../response.js';
import type { User } from '../users/user.js';
import type { RendererClass } from '../renderers/base.js';
import { JSONRenderer } from '../renderers/json.js';
import { NotFound, PermissionDenied } from '../exceptions.js';
import { dialectOf } from '../db/dialect.js';
import { ManyToManyField, RelationField } from '../models/fields.js';
import type { AdminSite } from './model-admin.js';
import { AdminModelView, loadPermissions, searchConditions } from './model-views.js';

type Row = Record<string, unknown>;

/** Results per page of the autocomplete endpoint (Django's `paginate_by`). */
const PAGE_SIZE = 20;

/**
 * `GET autocomplete/?app_label=…&model_name=…&field_name=…&term=…&page=…`:
 * Django's `AutocompleteJsonView`. The rows of the target of a registered
 * model's foreign key or many-to-many field that match `term` in the
 * target's `searchFields`, twenty a page, as
 * `{"results": [{"id": "1", "text": "…"}], "pagination": {"more": false}}`.
 * A missing or unknown parameter, a field that is not a relation, a target
 * that is not registered, or a user who may not view the target: 403; a
 * target without `searchFields`, or a page past the last: 404.
 */
export class AdminAutocompleteView extends AdminModelView {
  static override viewName = 'Autocomplete';
  override rendererClasses: RendererClass[] = [JSONRenderer];
  /** The site whose models it searches; set by `adminRoutes`. */
  site!: AdminSite;

  async get(req: ApiRequest): Promise<Response> {
    const denied = this.guard(req);
    if (denied) return denied;
    const q = req.query;
    const [appLabel, modelName, fieldName] = [q['app_label'], q['model_name'], q['field_name']];
    if (appLabel === undefined || modelName === undefined || fieldName === undefined) throw new PermissionDenied();
    // As Django's `apps.get_model`: any model the site knows (registered, declared, or an inline's).
    const source = this.site.modelAt(appLabel, modelName);
    if (!source) throw new PermissionDenied();
    const f = Object.hasOwn(source.fields, fieldName) ? source.fields[fieldName] : undefined;
    if (!(f instanceof RelationField) && !(f instanceof ManyToManyField)) throw new PermissionDenied();
    const target = this.site.adminFor(f.targetTable(source.tableName));
    if (!target) throw new PermissionDenied();
    if (!target.options.searchFields?.length) throw new NotFound(`${target.model.objectName}Admin must have search_fields for the autocomplete_view.`);
    const granted = await loadPermissions(req, this.site);
    const user = req.user as User;
    if (!target.hasPermission(user, 'view', granted) && !target.hasPermission(user, 'change', granted)) throw new PermissionDenied();

    const pageText = q['page'] ?? '1';
    const page = /^\d{1,6}$/.test(pageText) ? Number(pageText) : 0;
    if (page < 1) throw new NotFound('Invalid page.');
    const db = this.db(req);
    const model = target.model;
    let query = db.selectFrom(model.tableName).selectAll();
    for (const c of searchConditions(target, q['term'] ?? '', dialectOf(db) === 'postgres')) query = query.where(c);
    // The target admin's ordering, else the model's, then the primary key (stable pages).
    const ordering = [...(target.options.ordering ?? model.meta.ordering ?? []), model.primaryKey];
    for (const o of ordering) {
      const name = o.replace(/^-/, '');
      const column = model.fields[name]?.columnName(name) ?? name;
      query = query.orderBy(sql.ref(column), o.startsWith('-') ? 'desc' : 'asc');
    }
    const rows = (await query.limit(PAGE_SIZE + 1).offset((page - 1) * PAGE_SIZE).execute()) as Row[];
    if (rows.length === 0 && page > 1) throw new NotFound('Invalid page.');
    const shown = await this.withRelated(db, model, rows.slice(0, PAGE_SIZE));
    return new Response({
      results: shown.map((r) => ({ id: String(r[model.primaryKey]), text: target.repr(r) })),
      pagination: { more: rows.length > PAGE_SIZE },
    });
  }
}
