import type { Kysely } from 'kysely';
import type { AnyModel } from '../models/model.js';
import type { ApiRequest } from '../request.js';
import { ManyToManyField, RelationField, type ModelField } from '../models/fields.js';
import type { User } from '../users/user.js';
import type { CountStrategy } from '../pagination/base.js';
import { Group, Permission, UserGroup, UserPermission } from './permissions.js';

/** What a staff user may do with a registered model (Django's view/add/change/delete permissions). */
export type AdminAction = 'view' | 'add' | 'change' | 'delete';

/** What a change-list action's handler is given. */
export interface ChangeListActionContext<Row = Record<string, unknown>> {
  readonly req: ApiRequest;
  /** The transaction the action runs in: it commits when the handler returns, and rolls back when it throws. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly db: Kysely<any>;
  /** The checked rows, read in the transaction, ordered by primary key, each foreign key's row attached under the field's name. */
  readonly rows: Row[];
  readonly admin: ModelAdmin<Row>;
}

/**
 * A custom action of the change list's "Action" select (Django's
 * `@admin.action(description=…, permissions=[…])`): it runs on the checked
 * rows in one transaction; the string it returns is shown as the message
 * after the redirect back to the list (Django's `message_user`). No history
 * row is written for it, as Django writes none.
 *
 * @example
 * { name: 'mark_out_of_print', description: 'Mark selected books as out of print', permissions: ['change'],
 *   handler: async ({ db, rows }) => {
 *     await db.updateTable('catalogue_book').set({ in_print: false }).where('id', 'in', rows.map((r) => r.id)).execute();
 *     return `${rows.length} books were marked as out of print.`;
 *   } }
 */
export interface ChangeListAction<Row = Record<string, unknown>> {
  /** The select's value (Django's function name): letters, digits and `_`; not `delete_selected`. */
  readonly name: string;
  /** The select's label. */
  readonly description: string;
  /** What the user must all be allowed on the model for the action to be listed and run (Django's `allowed_permissions`); default none beyond seeing the list. */
  readonly permissions?: readonly AdminAction[];
  readonly handler: (ctx: ChangeListActionContext<Row>) => Promise<string | void> | string | void;
}

/**
 * A column of the change list: a field name, or a computed column — a
 * function of the row (its name is the header) or `{ label, value }`.
 */
export type ListDisplayEntry<Row> = string | ((row: Row) => string) | { readonly label: string; readonly value: (row: Row) => string };

/**
 * A group of the change form's fields (Django's fieldset): a heading (or
 * `null`) and its fields; a nested array puts fields on one line.
 */
export type Fieldset = readonly [
  name: string | null,
  options: {
    readonly fields: ReadonlyArray<string | readonly string[]>;
    /** Text under the heading (escaped, unlike Django's). */
    readonly description?: string;
    /** CSS classes of the `<fieldset>` (`collapse`, `wide`). */
    readonly classes?: readonly string[];
  },
];

/**
 * Rows of a related model edited on the parent's form, in a table (Django's
 * `TabularInline`): `{ model: Book, extra: 3 }` on the author's form.
 */
export interface InlineOptions {
  /** The model whose rows refer to the parent by a foreign key. */
  readonly model: AnyModel;
  /** The foreign key to the parent (Django's `fk_name`); needed when the model has more than one. */
  readonly fkName?: string;
  /** The columns, in order (default: every editable field but the key, the foreign key and many-to-many fields). */
  readonly fields?: readonly string[];
  /** Blank rows to add (default 3). */
  readonly extra?: number;
  /** Whether each existing row has a "Delete?" checkbox (default true). */
  readonly canDelete?: boolean;
  /** The most rows the table shows and a post may send (default 1000). */
  readonly maxNum?: number;
  /** Foreign key columns whose select searches the target as you type (as the admin's `autocompleteFields`). */
  readonly autocompleteFields?: readonly string[];
}

/** An inline with its options resolved against the parent model. */
export class InlineAdmin {
  /** The foreign key's field name on the inline model. */
  readonly fkName: string;
  readonly fk: RelationField;
  /** Django's formset prefix: the reverse accessor (`relatedName`, else `<model>_set`). */
  readonly prefix: string;
  readonly fields: readonly string[];
  readonly extra: number;
  readonly canDelete: boolean;
  readonly maxNum: number;

  constructor(
    readonly parent: AnyModel,
    readonly options: InlineOptions,
  ) {
    const model = options.model;
    const where = `Admin for ${parent.tableName}: inline ${model.tableName}`;
    const fks = Object.entries(model.fields).filter((e): e is [string, RelationField] => e[1] instanceof RelationField && e[1].targetTable(model.tableName) === parent.tableName);
    let fk: [string, RelationField] | undefined;
    // Django's admin.E202.
    if (options.fkName !== undefined) {
      fk = fks.find(([n]) => n === options.fkName);
      if (!fk) throw new Error(`${where}: fkName "${options.fkName}" is not a foreign key to ${parent.tableName}.`);
    } else {
      if (fks.length === 0) throw new Error(`${where} has no foreign key to ${parent.tableName}.`);
      if (fks.length > 1) throw new Error(`${where} has more than one foreign key to ${parent.tableName}; give fkName.`);
      fk = fks[0]!;
    }
    [this.fkName, this.fk] = fk;
    this.prefix = (this.fk.relatedName ?? `${model.modelName}_set`).replace(/\+$/, '');
    this.fields = options.fields
      ? [...options.fields]
      : Object.entries(model.fields)
          .filter(([n, f]) => n !== this.fkName && !(f instanceof ManyToManyField) && ModelAdmin.editable(f) && n !== model.primaryKey)
          .map(([n]) => n);
    for (const n of this.fields) {
      const f = model.fields[n];
      if (!f) throw new Error(`${where}: fields names "${n}", which is not a field.`);
      if (n === this.fkName) throw new Error(`${where}: fields names "${n}", the foreign key to the parent.`);
      if (f instanceof ManyToManyField || !ModelAdmin.editable(f)) throw new Error(`${where}: fields names "${n}", which the table cannot edit.`);
    }
    this.extra = options.extra ?? 3;
    this.maxNum = options.maxNum ?? 1000;
    if (!Number.isInteger(this.extra) || this.extra < 0) throw new Error(`${where}: extra must be an integer of 0 or more.`);
    if (!Number.isInteger(this.maxNum) || this.maxNum < 0 || this.maxNum > 1000) throw new Error(`${where}: maxNum must be an integer from 0 to 1000.`);
    this.canDelete = options.canDelete ?? true;
    for (const n of options.autocompleteFields ?? []) {
      if (!this.fields.includes(n) || !(model.fields[n] instanceof RelationField)) throw new Error(`${where}: autocompleteFields "${n}" must be a foreign key column of the inline.`);
    }
  }

  /** Whether the column of `name` is an autocomplete. */
  isAutocomplete(name: string): boolean {
    return (this.options.autocompleteFields ?? []).includes(name);
  }

  get model(): AnyModel {
    return this.options.model;
  }

  /** The inline model's app label (its table name before the first `_`), for the autocomplete endpoint. */
  get appLabel(): string {
    const t = this.model.tableName;
    const cut = t.indexOf('_');
    return cut > 0 ? t.slice(0, cut) : t;
  }

  /** A column's header: the field's verbose name with a capital. */
  label(name: string): string {
    const verbose = this.model.fields[name]?.options.verboseName ?? name.replaceAll('_', ' ');
    return verbose.charAt(0).toUpperCase() + verbose.slice(1);
  }
}

/**
 * How the admin shows one model (Django's `ModelAdmin` options, in camelCase).
 *
 * @example
 * site.register(Book, {
 *   listDisplay: ['title', 'author', 'year', { label: 'Decade', value: (b) => `${Math.floor(b.year / 10) * 10}s` }],
 *   listFilter: ['kind', 'author', 'published'],
 *   searchFields: ['title', 'author__name'],
 *   ordering: ['-year'],
 *   listPerPage: 50,
 *   readonlyFields: ['isbn'],
 *   str: (b) => b.title,
 * });
 */
export interface ModelAdminOptions<Row = Record<string, unknown>> {
  /** The change list's columns (default: the row's name, Django's `__str__`). The first column links to the change form. */
  listDisplay?: ReadonlyArray<ListDisplayEntry<Row>>;
  /** Fields the change list filters by, in the sidebar: booleans, choices, foreign keys, dates and datetimes (by year and month). */
  listFilter?: readonly string[];
  /**
   * Fields `?q=` searches, every word in any of them, ignoring case. A
   * relation's field is `author__name` (a subquery on the target); `^title`
   * matches the start, `=title` the whole value.
   */
  searchFields?: readonly string[];
  /** The change list's default ordering (`-` for descending); else the model's `meta.ordering`, else the primary key descending. */
  ordering?: readonly string[];
  /** The `listDisplay` fields whose headers sort (Django's `sortable_by`); default: every field column. */
  sortableBy?: readonly string[];
  /** Rows per change-list page (default 100, as Django). */
  listPerPage?: number;
  /**
   * How the change list counts its rows, as the API's pagination does
   * (`CountStrategy`). Default `'estimated'`: PostgreSQL's planner estimate
   * once it reaches 10,000 rows (shown as "about 1,000,000 books", with no
   * last-page link), an exact `count(*)` below that and on SQLite.
   * `{ capped: N }` shows "more than N books" past N; `'none'` counts nothing.
   * Pages past the count are still found by fetching one row more.
   */
  countStrategy?: CountStrategy;
  /**
   * Whether a filtered or searched change list also counts the whole table
   * for its "3 results (1,000 total)" (Django's `show_full_result_count`,
   * default true); `false` shows "(Show all)" and runs no second count.
   */
  showFullResultCount?: boolean;
  /**
   * Related rows edited in a table on the form (Django's `inlines` of
   * `TabularInline`s), saved with the row in one transaction.
   */
  inlines?: readonly InlineOptions[];
  /**
   * Foreign keys and many-to-many fields whose widget searches the target
   * as you type (Django's `autocomplete_fields`), through the admin's
   * `autocomplete/` endpoint; the target must be registered with `searchFields`.
   */
  autocompleteFields?: readonly string[];
  /**
   * The change list's custom actions, listed after "Delete selected …"
   * (Django's `actions`). `null` removes every action, "Delete selected …"
   * too (Django's `actions = None`); `[]` (the default) leaves that one.
   */
  actions?: ReadonlyArray<ChangeListAction<Row>> | null;
  /** Fields shown on the change form as text, never written by it. */
  readonlyFields?: readonly string[];
  /** The form's fields, in order (default: every editable field). */
  fields?: readonly string[];
  /**
   * The form's fields in groups, each a `<fieldset>` with its heading
   * (Django's `fieldsets`): `[[null, { fields: ['title'] }], ['Publishing', { fields: ['year', 'isbn'], classes: ['collapse'] }]]`.
   * Not with `fields`.
   */
  fieldsets?: readonly Fieldset[];
  /** The row's name in lists, titles and the history (Django's `__str__`); default `Book object (1)`. */
  str?: (row: Row) => string;
  /**
   * Whether `user` (active staff) may `action` this model, instead of
   * Django's permissions. Default: superusers may do anything; other staff
   * what `auth_permission` grants them, directly or through a group.
   */
  hasPermission?: (user: User, action: AdminAction) => boolean;
}

type RowOf<M extends AnyModel> = M['$inferSelect'];

/** A column of the related row the admin attached under `field` (the row convention), else the key. */
function related(row: object, field: string, column: string): string {
  const r = row as Record<string, unknown>;
  const target = r[field] as Record<string, unknown> | null | undefined;
  return target ? String(target[column]) : `#${String(r[`${field}_id`])}`;
}

/** A registered model with its options resolved: what every admin page of the model reads. */
export class ModelAdmin<Row = Record<string, unknown>> {
  /** The app label: the table name before its first `_` (`catalogue_book` → `catalogue`). */
  readonly appLabel: string;
  readonly listPerPage: number;
  /** The change list's count strategy (`countStrategy`, default `'estimated'`). */
  readonly countStrategy: CountStrategy;
  /** Whether a filtered change list counts the whole table too (`showFullResultCount`, default true). */
  readonly showFullResultCount: boolean;
  /** The `inlines`, resolved. */
  readonly inlines: readonly InlineAdmin[];

  constructor(
    readonly model: AnyModel,
    readonly options: ModelAdminOptions<Row>,
    readonly site: AdminSite,
  ) {
    const cut = model.tableName.indexOf('_');
    this.appLabel = cut > 0 ? model.tableName.slice(0, cut) : model.tableName;
    this.listPerPage = options.listPerPage ?? 100;
    if (!Number.isInteger(this.listPerPage) || this.listPerPage < 1) throw new Error(`Admin for ${model.tableName}: listPerPage must be a positive integer.`);
    this.countStrategy = options.countStrategy ?? 'estimated';
    const strategy = this.countStrategy;
    const known = strategy === 'exact' || strategy === 'estimated' || strategy === 'none';
    if (!known && !(typeof strategy === 'object' && strategy !== null && Number.isInteger(strategy.capped) && strategy.capped >= 1)) {
      throw new Error(`Admin for ${model.tableName}: countStrategy must be 'exact', 'estimated', 'none' or { capped: N } with a positive integer N.`);
    }
    this.showFullResultCount = options.showFullResultCount ?? true;
    const fieldNames = (names: readonly string[] | undefined, what: string) => {
      for (const n of names ?? []) {
        if (!(n in model.fields)) throw new Error(`Admin for ${model.tableName}: ${what} names "${n}", which is not a field.`);
      }
    };
    fieldNames(options.listFilter, 'listFilter');
    fieldNames(options.readonlyFields, 'readonlyFields');
    fieldNames(options.fields, 'fields');
    this.inlines = (options.inlines ?? []).map((o) => new InlineAdmin(model, o));
    const prefixes = this.inlines.map((i) => i.prefix);
    const same = prefixes.find((p, i) => prefixes.indexOf(p) !== i);
    if (same !== undefined) throw new Error(`Admin for ${model.tableName}: two inlines have the prefix "${same}".`);
    if (options.fieldsets) {
      // Django's admin.E005 and E012.
      if (options.fields) throw new Error(`Admin for ${model.tableName}: both fields and fieldsets are given; give one.`);
      const names = this.fieldsetFields();
      fieldNames(names, 'fieldsets');
      const twice = names.find((n, i) => names.indexOf(n) !== i);
      if (twice !== undefined) throw new Error(`Admin for ${model.tableName}: fieldsets names "${twice}" more than once.`);
    }
    fieldNames(options.sortableBy, 'sortableBy');
    fieldNames(options.ordering?.map((o) => o.replace(/^-/, '')), 'ordering');
    for (const n of [...(options.ordering ?? []).map((o) => o.replace(/^-/, '')), ...(options.sortableBy ?? [])]) {
      if (model.fields[n] instanceof ManyToManyField) throw new Error(`Admin for ${model.tableName}: "${n}" is a manyToMany field and cannot sort.`);
    }
    fieldNames(
      options.listDisplay?.filter((e): e is string => typeof e === 'string'),
      'listDisplay',
    );
    for (const e of options.listDisplay ?? []) {
      if (typeof e === 'string' && model.fields[e] instanceof ManyToManyField) {
        throw new Error(`Admin for ${model.tableName}: listDisplay names "${e}", a manyToMany field; show it with a computed column.`);
      }
    }
    for (const name of options.listFilter ?? []) {
      const f = model.fields[name]!;
      const ok = f.kind === 'boolean' || f.isRelation || f instanceof ManyToManyField || f.kind === 'date' || f.kind === 'datetime' || (f.options.choices?.length ?? 0) > 0;
      if (!ok) throw new Error(`Admin for ${model.tableName}: listFilter "${name}" must be a boolean, a field with choices, a foreign key or a date.`);
    }
    fieldNames(options.autocompleteFields, 'autocompleteFields');
    for (const n of options.autocompleteFields ?? []) {
      // Django's admin.E038.
      if (!(model.fields[n] instanceof RelationField) && !(model.fields[n] instanceof ManyToManyField)) throw new Error(`Admin for ${model.tableName}: autocompleteFields "${n}" must be a foreign key or a many-to-many field.`);
    }
    const actionNames = new Set<string>();
    for (const a of options.actions ?? []) {
      const what = `Admin for ${model.tableName}: action "${String(a?.name)}"`;
      if (typeof a?.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.name)) throw new Error(`${what}: name must be letters, digits and _.`);
      if (a.name === 'delete_selected') throw new Error(`${what}: the name is the built-in "Delete selected" action's.`);
      if (actionNames.has(a.name)) throw new Error(`${what} is given twice.`);
      actionNames.add(a.name);
      if (typeof a.description !== 'string' || a.description.trim() === '') throw new Error(`${what} needs a description.`);
      if (typeof a.handler !== 'function') throw new Error(`${what} needs a handler function.`);
      for (const p of a.permissions ?? []) if (!['view', 'add', 'change', 'delete'].includes(p)) throw new Error(`${what}: permissions names "${String(p)}", which is not view, add, change or delete.`);
    }
    for (const s of options.searchFields ?? []) {
      const [head, rest] = s.replace(/^[\^=@]/, '').split('__', 2) as [string, string | undefined];
      const f = model.fields[head];
      if (!f) throw new Error(`Admin for ${model.tableName}: searchFields names "${s}", which is not a field.`);
      if (rest !== undefined && !(f instanceof RelationField) && !(f instanceof ManyToManyField)) throw new Error(`Admin for ${model.tableName}: searchFields "${s}" follows "${head}", which is not a relation.`);
    }
  }

  /** The model's name in URLs and route names (`book`). */
  get modelName(): string {
    return this.model.modelName;
  }

  /** Django's URL name of a page: `catalogue_book_changelist`, `…_add`, `…_change`, `…_delete`, `…_history`. */
  routeName(page: 'changelist' | 'add' | 'change' | 'delete' | 'history'): string {
    return `${this.appLabel}_${this.modelName}_${page}`;
  }

  /** The row's name (Django's `__str__`). */
  repr(row: Record<string, unknown>): string {
    const own = this.options.str;
    const text = own ? own(row as Row) : `${this.model.objectName} object (${String(row[this.model.primaryKey])})`;
    return String(text);
  }

  /**
   * Whether `user` may `action` this model: the `hasPermission` option when
   * given; else a superuser may do anything, and another staff user what
   * `granted` holds (`<table>.<action>_<model>`, from `auth_permission`
   * through the user's own permissions and groups).
   */
  hasPermission(user: User, action: AdminAction, granted: ReadonlySet<string> = new Set()): boolean {
    if (!user.isAuthenticated || !user.isActive || !user.isStaff) return false;
    if (this.options.hasPermission) return this.options.hasPermission(user, action);
    return user.isSuperuser || granted.has(`${this.model.tableName}.${action}_${this.modelName}`);
  }

  /** A field's human name with a capital (Django's form label: `capfirst(verbose_name)`). */
  label(name: string): string {
    const f = this.model.fields[name];
    const verbose = f?.options.verboseName ?? name.replaceAll('_', ' ');
    return verbose.charAt(0).toUpperCase() + verbose.slice(1);
  }

  /** A field's verbose name as Django's messages use it (lower case unless declared). */
  verboseFieldName(name: string): string {
    return this.model.fields[name]?.options.verboseName ?? name.replaceAll('_', ' ');
  }

  /** Whether Django's forms include the field: not the automatic key, not `autoNow`/`autoNowAdd`, not a `manyToMany` with a `through` model. */
  static editable(f: ModelField): boolean {
    if (f instanceof ManyToManyField) return f.autoCreated;
    if (f.kind === 'auto' || f.kind === 'bigAuto') return false;
    if (f.kind === 'datetime' && (f.options['autoNow'] === true || f.options['autoNowAdd'] === true)) return false;
    return true;
  }

  /** The form's fields: `fields`, else every editable field in declaration order (plus read-only ones). */
  formFields(): string[] {
    if (this.options.fields) return [...this.options.fields];
    if (this.options.fieldsets) return this.fieldsetFields();
    const readonly = new Set(this.options.readonlyFields ?? []);
    return Object.entries(this.model.fields)
      .filter(([n, f]) => ModelAdmin.editable(f) || readonly.has(n))
      .map(([n]) => n);
  }

  /** The fields of `fieldsets`, in order, lines flattened. */
  private fieldsetFields(): string[] {
    return (this.options.fieldsets ?? []).flatMap(([, o]) => (o?.fields ?? []).flatMap((f) => (typeof f === 'string' ? [f] : [...f])));
  }

  /** The form's groups: `fieldsets`, else one group without a heading of every form field. */
  formGroups(): Array<{ name: string | null; lines: string[][]; description?: string; classes: readonly string[] }> {
    const sets = this.options.fieldsets;
    if (!sets) return [{ name: null, lines: this.formFields().map((f) => [f]), classes: [] }];
    return sets.map(([name, o]) => ({
      name,
      lines: o.fields.map((f) => (typeof f === 'string' ? [f] : [...f])),
      ...(o.description !== undefined ? { description: o.description } : {}),
      classes: o.classes ?? [],
    }));
  }

  /**
   * The change list's actions `may` allows, in the select's order
   * (Django's `get_actions`): "Delete selected …" when `may('delete')`, then
   * each custom action whose permissions `may` all grant; none when
   * `actions` is `null`.
   */
  availableActions(may: (action: AdminAction) => boolean): Array<{ name: string; description: string; custom: ChangeListAction<Row> | null }> {
    if (this.options.actions === null) return [];
    const out: Array<{ name: string; description: string; custom: ChangeListAction<Row> | null }> = [];
    if (may('delete')) out.push({ name: 'delete_selected', description: `Delete selected ${this.model.verboseNamePlural}`, custom: null });
    for (const a of this.options.actions ?? []) if ((a.permissions ?? []).every((p) => may(p))) out.push({ name: a.name, description: a.description, custom: a });
    return out;
  }

  /** Whether the form's widget of `name` is an autocomplete. */
  isAutocomplete(name: string): boolean {
    return (this.options.autocompleteFields ?? []).includes(name);
  }

  /** Whether the form shows `name` as text only. */
  isReadonly(name: string): boolean {
    const f = this.model.fields[name];
    return (this.options.readonlyFields ?? []).includes(name) || !f || !ModelAdmin.editable(f);
  }
}

/**
 * The models the admin manages (Django's `admin.site`): register each with
 * its options, then mount the site with `adminRoutes({ site })`.
 *
 * @example
 * const site = new AdminSite()
 *   .register(Author, { searchFields: ['name'], str: (a) => a.name })
 *   .register(Book, { listDisplay: ['title', 'author'], listFilter: ['author'] });
 * createApp({ routes: [...apiRoutes, adminRoutes({ site })], database });
 */
export class AdminSite {
  private readonly admins = new Map<string, ModelAdmin>();
  private readonly known = new Map<string, AnyModel>();
  // How rows of tables that are not registered are named: users by username, permissions as Django's `__str__`.
  private readonly names = new Map<string, (row: Record<string, unknown>) => string>([
    ['trestle_user', (r) => String(r['username'])],
    ['auth_permission', (r) => `${String(r['content_type'])} | ${String(r['name'])}`],
  ]);

  /** The name of a row of `table`: its admin's `str`, else a known table's, else `null`. */
  reprOf(table: string, row: Record<string, unknown>): string | null {
    const admin = this.admins.get(table);
    if (admin) return admin.repr(row);
    const name = this.names.get(table);
    return name ? name(row) : null;
  }

  /** Registers `model` with its admin options; a table registers once. */
  register<M extends AnyModel>(model: M, options: ModelAdminOptions<RowOf<M>> = {}): this {
    if (this.admins.has(model.tableName)) throw new Error(`The model ${model.tableName} is already registered with the admin.`);
    const admin = new ModelAdmin(model, options as ModelAdminOptions, this);
    for (const other of this.admins.values()) {
      if (other.appLabel === admin.appLabel && other.modelName === admin.modelName) {
        throw new Error(`The models ${other.model.tableName} and ${model.tableName} have the same admin URL ${admin.appLabel}/${admin.modelName}/.`);
      }
    }
    this.admins.set(model.tableName, admin);
    this.known.set(model.tableName, model);
    // An inline's rows refer to the model: a delete lists them, and the autocomplete endpoint knows their fields.
    for (const i of admin.inlines) if (!this.known.has(i.model.tableName)) this.known.set(i.model.tableName, i.model);
    try {
      this.checkAutocomplete(false);
    } catch (err) {
      this.admins.delete(model.tableName);
      this.known.delete(model.tableName);
      throw err;
    }
    return this;
  }

  /**
   * Refuses an `autocompleteFields` entry whose target is registered
   * without `searchFields` (Django's admin.E040) and, when `complete` (the
   * site is mounted), one whose target is not registered (admin.E039).
   */
  checkAutocomplete(complete: boolean): void {
    for (const admin of this.admins.values()) {
      const uses: Array<[AnyModel, string]> = [
        ...(admin.options.autocompleteFields ?? []).map((n): [AnyModel, string] => [admin.model, n]),
        ...admin.inlines.flatMap((i) => (i.options.autocompleteFields ?? []).map((n): [AnyModel, string] => [i.model, n])),
      ];
      for (const [source, name] of uses) {
        const f = source.fields[name] as RelationField | ManyToManyField;
        const table = f.targetTable(source.tableName);
        const target = this.admins.get(table);
        if (!target) {
          if (complete) throw new Error(`Admin for ${admin.model.tableName}: autocompleteFields "${name}" needs an admin of ${table} registered.`);
          continue;
        }
        if (!target.options.searchFields?.length) throw new Error(`Admin for ${table} must define searchFields, because admin for ${admin.model.tableName} names it in autocompleteFields ("${name}").`);
      }
    }
  }

  /**
   * Models that are not registered but whose rows refer to registered ones:
   * a delete lists (and the database removes) their rows too, and refuses
   * when one of them protects the row.
   */
  declareModels(...models: AnyModel[]): this {
    for (const m of models) if (!this.known.has(m.tableName)) this.known.set(m.tableName, m);
    return this;
  }

  /**
   * Registers Django's groups (`auth_group`, with their permissions as a
   * multiple select), group memberships (`trestle_user_groups`) and the
   * permissions given to single users (`trestle_user_user_permissions`), so
   * superusers can give staff users their permissions from the admin.
   */
  registerPermissions(): this {
    return this.register(Group, { listDisplay: ['name'], searchFields: ['name'], str: (g) => g.name })
      .register(UserGroup, { listDisplay: ['user', 'group'], listFilter: ['group'], str: (m) => `${related(m, 'user', 'username')} in ${related(m, 'group', 'name')}` })
      .register(UserPermission, { listDisplay: ['user', 'permission'], str: (p) => `${related(p, 'user', 'username')}: ${related(p, 'permission', 'name')}` })
      .declareModels(Permission);
  }

  /** The registered models, in registration order. */
  get registry(): readonly ModelAdmin[] {
    return [...this.admins.values()];
  }

  /** The admin of a table, when registered. */
  adminFor(table: string): ModelAdmin | undefined {
    return this.admins.get(table);
  }

  /** A model the site knows (registered, declared or inline) by its app label and model name. */
  modelAt(appLabel: string, modelName: string): AnyModel | undefined {
    return [...this.known.values()].find((m) => {
      const cut = m.tableName.indexOf('_');
      return (cut > 0 ? m.tableName.slice(0, cut) : m.tableName) === appLabel && m.modelName === modelName;
    });
  }

  /** Every model the site knows, registered or declared. */
  get models(): readonly AnyModel[] {
    return [...this.known.values()];
  }
}
