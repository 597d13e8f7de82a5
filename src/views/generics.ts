import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { Pagination, PaginationClass, Source } from '../pagination/base.js';
import { ApiError, NotFound, ValidationError, ImproperlyConfigured } from '../exceptions.js';
import { Response } from '../response.js';
import { APIView } from './api-view.js';
import { Serializer, type InputOf, type Shape } from '../serializers/serializer.js';
import type { FilterBackend, FilterBackendClass } from '../filters/base.js';
import { findOneNow, isQueryBuilder, listAll } from './source.js';
import { converters, type PathConverter } from '../routing/converters.js';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AnyModel } from '../models/model.js';
import { isModelSaving, type ModelSaving } from '../models/saving.js';
import { loadRelated } from '../models/related.js';
import { markReused, selectColumns } from '../db/query-shapes.js';
import { isOwnExecutor } from '../db/direct.js';
import { isThenable } from '../utils/thenable.js';
import type { DeferredLookups } from '../serializers/deferred-lookups.js';

/** What `serialize` receives: the request (for `reverse`) and the view. */
export interface SerializeContext {
  readonly request: ApiRequest;
  readonly view: GenericAPIView;
}

export interface ValidateContext<T> {
  readonly request: ApiRequest;
  readonly partial: boolean;
  readonly instance: T | null;
  /** Set by the view's own `create` only: the related rows its insert may check alone (see deferred-lookups.ts). */
  readonly deferLookups?: DeferredLookups;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySerializer = Serializer<any>;
/** The validated input of a view's serializer (any object when it has none). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ViewInput<S> = S extends Serializer<infer F extends Shape> ? InputOf<F> : Record<string, any>;

/** Path converter of a lookup field by its model field kind. */
const INT_KINDS: ReadonlySet<string> = new Set(['auto', 'bigAuto', 'integer', 'bigInteger']);

/** What `getRelatedToLoad` answers for a view and serializer that load no relations. */
const NOTHING_TO_LOAD: { readonly selectRelated: readonly string[]; readonly prefetchRelated: readonly string[] } = Object.freeze({
  selectRelated: Object.freeze([]),
  prefetchRelated: Object.freeze([]),
});

/** A builder kept for the database it was built on (see `GenericAPIView.kept`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type KeptQueryset = { readonly db: Kysely<any>; readonly query: SelectQueryBuilder<any, any, any>; reused: boolean };

/**
 * The base of list/detail views over a source (an array or a Kysely select
 * builder), as DRF's `GenericAPIView`. Override `getQueryset` for the items,
 * `serialize` for their JSON, `validate` and `perform*` for writes — or set
 * `model` (and a model serializer) and override nothing.
 */
export class GenericAPIView<T = any, S extends AnySerializer = AnySerializer> extends APIView {
  /** Pagination for list responses; `null` switches it off, `undefined` = DEFAULT_PAGINATION_CLASS. */
  paginationClass?: PaginationClass | null;
  /**
   * The model this view lists and writes (DRF's `queryset = Book.objects.all()`).
   * With it, `getQueryset` defaults to every row of its table in
   * `meta.ordering`, `lookupField` to its primary key, the 404 message names
   * it (`No Book matches the given query.`), and `performCreate` /
   * `performUpdate` / `performDestroy` write through the request's model
   * serializer, each request in one transaction (none for a single
   * statement: `ModelSaving.writesOneStatement`).
   */
  model?: AnyModel;
  /**
   * The view's items, declared once: DRF's
   * `queryset = Item.objects.order_by('id')`. A function of the app's
   * database (the `db` service) answering a Kysely select builder; the
   * default `getQueryset` calls it once per database and hands every
   * request the same builder (Kysely builders are immutable), so its SQL,
   * and each page, count and lookup derived from it, are compiled once.
   * With `model` too, it replaces the model's default queryset (the model
   * still gives the lookup field, the 404 message and the writes). A
   * queryset that depends on the request (its user, a parameter) belongs
   * in a `getQueryset` override instead.
   *
   *     queryset = (db: Kysely<Tables>) => db.selectFrom('item').select(['id', 'name']).orderBy('id');
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  queryset?: (db: Kysely<any>) => SelectQueryBuilder<any, any, T>;
  /**
   * To-one relations (`author`, `author__publisher`) whose rows are loaded for
   * each page, each in one `WHERE pk IN (…)` query, and attached under the
   * field's name: DRF's `queryset.select_related('author')`. Needs `model`.
   */
  selectRelated?: readonly string[];
  /**
   * Many-to-many relations (`tags`) loaded for each page, one query per
   * relation through the join table, attached as arrays under the field's
   * name: DRF's `queryset.prefetch_related('tags')`. Needs `model`.
   */
  prefetchRelated?: readonly string[];
  /** The field objects are looked up by (with `model`: its primary key unless set). */
  lookupField = 'id';
  /** The path parameter holding the lookup value (defaults to `lookupField`, or `pk` when the route uses it). */
  lookupUrlKwarg?: string;
  /**
   * The path converter (`'int'`, `'str'`, `'slug'`, `'uuid'`, or one added
   * with `registerConverter`) a lookup value must pass before it reaches the
   * query, as DRF's `lookup_value_converter`; a value it refuses is a 404.
   * Defaults, with `model`, to the lookup field's kind (`'int'` for
   * automatic and integer keys, `'uuid'` for uuid fields, `'str'`
   * otherwise); without, to `'int'` when `lookupField` is `'id'` (the column
   * `addIdColumn` creates), `'str'` otherwise.
   */
  lookupValueConverter?: string;

  /**
   * The serializer (`serializer({...})`): `serialize` renders items with it,
   * the default `validate` checks bodies with it, OPTIONS describes it under
   * `actions`, and OpenAPI builds the view's schemas from it. Give its type
   * as the view's second type argument (`ModelViewSet<Book, typeof
   * BookSerializer>`) and `performCreate`/`performUpdate` receive its
   * validated input type.
   */
  serializer?: S;
  /**
   * Serializers for some versions (`{ v1: BookV1Serializer }`): a request of
   * that version is validated, rendered and described (OPTIONS, forms) with
   * it instead of `serializer`, and OpenAPI shows each shape.
   */
  serializerByVersion?: Readonly<Record<string, AnySerializer>>;

  /** Filter backends run by `filterQueryset`, in order; `undefined` = DEFAULT_FILTER_BACKENDS. */
  filterBackends?: readonly FilterBackendClass[];

  private _paginator: Pagination<T> | null = null;
  private _lookupConverter: PathConverter | null = null;
  private _filterBackends: readonly FilterBackend[] = [];
  /**
   * The last builder of `modelQueryset` and of `queryset` on the app's own
   * executor, each with the database it was built on; one is declared
   * reused (`markReused`) once the same database asks again, so a view
   * whose `database` answers a new Kysely each time keeps nothing.
   * Transactions and plug-ins (other executors) get a new builder every
   * time, as before.
   */
  private readonly _kept: [model: KeptQueryset | null, declared: KeptQueryset | null] = [null, null];

  protected override onBind(app: AppContext): void {
    // `lookupField` is a plain field set to 'id': a model keyed otherwise looks up by its own key.
    this.lookupField = this.modelLookupField();
    const name = this.lookupConverterName();
    const converter = converters[name];
    if (!converter) throw new ImproperlyConfigured(`${this.constructor.name}.lookupValueConverter: unknown path converter "${name}".`);
    this._lookupConverter = converter;
    const cls = this.paginationClass === undefined ? app.settings.DEFAULT_PAGINATION_CLASS : this.paginationClass;
    this._paginator = cls ? (new cls(app) as Pagination<T>) : null;
    this._paginator?.checkConfiguration?.();
    this._filterBackends = (this.filterBackends ?? app.settings.DEFAULT_FILTER_BACKENDS).map((B) => new B(app));
    for (const backend of this._filterBackends) backend.checkView?.(this);
  }

  /** `lookupField`, or the model's primary key when it is the default `'id'` and the model has no `id`. */
  private modelLookupField(): string {
    const model = this.model;
    return model && this.lookupField === 'id' && !('id' in model.fields) ? model.primaryKey : this.lookupField;
  }

  /**
   * The name of the path converter lookup values pass (`lookupValueConverter`,
   * else the default for the lookup field); OpenAPI types the path parameter with it.
   */
  lookupConverterName(): string {
    if (this.lookupValueConverter !== undefined) return this.lookupValueConverter;
    const lookup = this.modelLookupField();
    const kind = this.model?.fields[lookup]?.kind;
    if (kind === undefined) return lookup === 'id' ? 'int' : 'str';
    return INT_KINDS.has(kind) ? 'int' : kind === 'uuid' ? 'uuid' : 'str';
  }

  /** The pagination instance shared by every request of this view, or `null`. */
  get paginator(): Pagination<T> | null {
    return this._paginator;
  }

  /**
   * The items this view works on: the builder `queryset` declares (made
   * once per database); else, with `model`, every row of its table
   * (`selectFrom(table).select(<the model's columns>)`), ordered by the model's
   * `meta.ordering` when it has one. An override may narrow it
   * (`super.getQueryset(req).where(…)`). With neither, views must override it.
   */
  getQueryset(req: ApiRequest): Source<T> | Promise<Source<T>> {
    const declared = this.queryset;
    if (declared === undefined) {
      if (this.model) return this.modelQueryset(req) as unknown as Source<T>;
      throw new ImproperlyConfigured(`${this.constructor.name} must set model or queryset, or override getQueryset().`);
    }
    const db = this.database(req);
    return this.kept(db, false) ?? this.keep(db, false, declared(db));
  }

  /**
   * Every row of `model`'s table in its `meta.ordering`, as a Kysely select
   * builder (what the default `getQueryset` returns), typed for narrowing in
   * an override: `return this.modelQueryset(req).where('year', '>=', 2000)`.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  modelQueryset(req: ApiRequest): SelectQueryBuilder<any, any, T> {
    const model = this.model;
    if (!model) throw new ImproperlyConfigured(`${this.constructor.name}.modelQueryset() needs model.`);
    const db = this.database(req);
    const last = this.kept(db, true);
    if (last !== null) return last;
    // Its columns by name, as Django selects them: only the model's columns (selectColumns says why).
    let query = selectColumns(db, model.tableName, model.columnNames());
    for (const term of model.meta.ordering ?? []) {
      const desc = term.startsWith('-');
      const name = desc ? term.slice(1) : term;
      query = query.orderBy(model.fields[name]?.columnName(name) ?? name, desc ? 'desc' : 'asc');
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return this.keep(db, true, query as unknown as SelectQueryBuilder<any, any, T>);
  }

  /**
   * The builder kept for `db` (from the model, or from `queryset`), or
   * `null`. Kysely builders are immutable: the same database gets the same
   * builder back, which is then declared reused, so what is compiled from
   * it (a lookup, a page, a count) is kept with it.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private kept(db: Kysely<any>, fromModel: boolean): SelectQueryBuilder<any, any, T> | null {
    const last = this._kept[fromModel ? 0 : 1]!;
    if (last === null || last.db !== db) return null;
    if (!last.reused) {
      markReused(last.query);
      last.reused = true;
    }
    return last.query;
  }

  /** Keeps `query`, built for `db`, for the next request (only on the app's own executor: a plug-in may keep state per query id, which a reused builder keeps). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private keep(db: Kysely<any>, fromModel: boolean, query: SelectQueryBuilder<any, any, T>): SelectQueryBuilder<any, any, T> {
    if (isQueryBuilder(query) && isOwnExecutor(db.getExecutor())) this._kept[fromModel ? 0 : 1] = { db, query, reused: false };
    return query;
  }

  /** The app's database (the `db` service), as model views read and write it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  protected database(req: ApiRequest): Kysely<any> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return req.app.services.get('db') as unknown as Kysely<any>;
  }

  /**
   * The relations to load for each page: the view's `selectRelated` and
   * `prefetchRelated` with those the request's serializer renders (a model
   * serializer's `relatedToLoad()`).
   */
  getRelatedToLoad(req: ApiRequest | null): { selectRelated: readonly string[]; prefetchRelated: readonly string[] } {
    const serializer = this.getSerializerClass(req);
    const wanted = isModelSaving(serializer) ? serializer.relatedToLoad() : NOTHING_TO_LOAD;
    const own = this.selectRelated ?? [];
    const ownPrefetch = this.prefetchRelated ?? [];
    // Most views load nothing: no lists are built for them.
    if (own.length + ownPrefetch.length + wanted.selectRelated.length + wanted.prefetchRelated.length === 0) return NOTHING_TO_LOAD;
    const selectRelated = [...own];
    const prefetchRelated = [...ownPrefetch];
    for (const name of wanted.selectRelated) if (!selectRelated.includes(name)) selectRelated.push(name);
    for (const name of wanted.prefetchRelated) if (!prefetchRelated.includes(name)) prefetchRelated.push(name);
    return { selectRelated, prefetchRelated };
  }

  /**
   * Attaches the related rows of `rows` (a page, or one object) under the
   * field names, one query per relation (`loadRelated`); nothing without
   * `model` or without relations to load.
   */
  async loadRelatedRows(req: ApiRequest, rows: T[]): Promise<T[]> {
    const model = this.model;
    if (!model || rows.length === 0) return rows;
    const load = this.getRelatedToLoad(req);
    if (load.selectRelated.length === 0 && load.prefetchRelated.length === 0) return rows;
    return loadRelated(this.database(req), model, rows as unknown as object[], load) as unknown as Promise<T[]>;
  }

  /** The filter backend instances of this view (built once, at bind). */
  get filterBackendInstances(): readonly FilterBackend[] {
    return this._filterBackends;
  }

  /**
   * Narrows and orders the queryset from query parameters: each filter
   * backend in turn, as DRF's `filter_queryset`. A backend may answer with a
   * promise (one that validates a value against the database); the result is
   * then a promise too.
   */
  filterQueryset(req: ApiRequest, source: Source<T>): Source<T> | Promise<Source<T>> {
    let out: Source<T> | Promise<Source<T>> = source;
    for (const backend of this._filterBackends) {
      out = out instanceof Promise ? out.then((s) => backend.filterQueryset(req, s, this)) : backend.filterQueryset(req, out, this);
    }
    return out;
  }

  /**
   * The serializer of a request, as DRF's `get_serializer_class()`: the
   * `serializerByVersion` entry of the request's version, else
   * `serializer`. Everything that needs a serializer asks this one method —
   * rendering (`serialize`), input validation (`validate`), OPTIONS and the
   * browsable API's forms — so an override (by `req.action`, by user) is
   * obeyed everywhere. OpenAPI, which has no request, calls it with `null`
   * and adds `serializerByVersion`'s shapes.
   */
  getSerializerClass(req: ApiRequest | null): AnySerializer | undefined {
    const version = req?.version;
    const table = this.serializerByVersion;
    if (table && version !== null && version !== undefined && Object.hasOwn(table, version)) return table[version];
    return this.serializer;
  }

  /** The JSON form of one item (the serializer's, if any); the request is in `ctx` for building links. */
  serialize(item: T, ctx: SerializeContext): unknown {
    const serializer = this.getSerializerClass(ctx.request);
    return serializer ? serializer.toRepresentation(item, ctx) : item;
  }

  serializeMany(items: readonly T[], req: ApiRequest): unknown[] {
    const ctx: SerializeContext = { request: req, view: this };
    const out = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) out[i] = this.serialize(items[i]!, ctx);
    return out;
  }

  /**
   * The object named by the URL, after object permissions; 404 when absent.
   * Without a promise when every step answers at once (the default
   * queryset's row read from SQLite, synchronous permissions): `await` it.
   */
  getObject(req: ApiRequest): T | Promise<T> {
    return this.filteredThen(req, (source) => this.objectIn(req, source));
  }

  /** `next` of the queryset after the filter backends; without a promise when both answered at once. */
  private filteredThen<R>(req: ApiRequest, next: (source: Source<T>) => R | Promise<R>): R | Promise<R> {
    const queryset = this.getQueryset(req);
    if (isThenable(queryset)) return queryset.then((q) => this.filteredFrom(req, q, next));
    return this.filteredFrom(req, queryset, next);
  }

  private filteredFrom<R>(req: ApiRequest, queryset: Source<T>, next: (source: Source<T>) => R | Promise<R>): R | Promise<R> {
    const filtered = this.filterQueryset(req, queryset);
    return isThenable(filtered) ? filtered.then(next) : next(filtered);
  }

  private objectIn(req: ApiRequest, source: Source<T>): T | Promise<T> {
    const kwarg = this.lookupUrlKwarg ?? (this.lookupField in req.params ? this.lookupField : 'pk');
    let value: unknown = req.params[kwarg];
    if (value === undefined) {
      throw new ImproperlyConfigured(
        `Expected view ${this.constructor.name} to be called with a URL parameter named "${kwarg}".`,
      );
    }
    // A value of the wrong type or range never reaches SQL (PostgreSQL would refuse it, SQLite would coerce `1e3`).
    const converter = this._lookupConverter;
    if (typeof value === 'string' && converter) {
      if (!converter.regex.test(value)) throw this.objectNotFound();
      try {
        value = converter.toValue(value);
      } catch {
        throw this.objectNotFound();
      }
    }
    const column = this.model?.fields[this.lookupField]?.columnName(this.lookupField) ?? this.lookupField;
    const found = findOneNow(source, column, value);
    if (isThenable(found)) return found.then((obj) => this.permittedObject(req, obj));
    return this.permittedObject(req, found);
  }

  private permittedObject(req: ApiRequest, obj: T | undefined): T | Promise<T> {
    if (obj === undefined) throw this.objectNotFound();
    const checking = this.checkObjectPermissions(req, obj);
    if (isThenable(checking)) return checking.then(() => obj);
    return obj;
  }

  private objectNotFound(): NotFound {
    return new NotFound('No ' + this.itemName() + ' matches the given query.');
  }

  /** Used in the 404 message for a missing object: the model's `objectName`, else `object`. */
  protected itemName(): string {
    return this.model?.objectName ?? 'object';
  }

  /** The page's items, or `null` when this view does not paginate. */
  paginateQueryset(source: Source<T>, req: ApiRequest): T[] | null | Promise<T[] | null> {
    if (!this._paginator) return null;
    return this._paginator.paginate(source, req, this);
  }

  getPaginatedResponse(data: unknown[], req: ApiRequest): Response {
    if (!this._paginator) throw new ImproperlyConfigured('getPaginatedResponse() called on a view without pagination.');
    return this._paginator.paginatedResponse(data, req);
  }

  /**
   * Checks input for create/update; throws `ValidationError` with a field
   * map. The default runs the request's serializer (`getSerializerClass`; only the fields sent when
   * `ctx.partial`), or accepts any JSON object without one. An override
   * adds object-level checks (DRF's `validate(attrs)`) and must return every
   * required field when `ctx.partial` is false.
   */
  validate(data: unknown, ctx: ValidateContext<T>): Partial<ViewInput<S>> | Promise<Partial<ViewInput<S>>> {
    const serializer = this.getSerializerClass(ctx.request);
    if (serializer) {
      const options = {
        request: ctx.request,
        partial: ctx.partial,
        instance: ctx.instance,
        view: this,
        nonFieldErrorsKey: this.app.settings.NON_FIELD_ERRORS_KEY,
        deferLookups: ctx.deferLookups,
      };
      // Without a promise where the serializer's fields answer at once, unless its `validate` is its own.
      return (serializer.validate === Serializer.prototype.validate ? serializer.validateNow(data, options) : serializer.validate(data, options)) as
        | Partial<ViewInput<S>>
        | Promise<Partial<ViewInput<S>>>;
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      const kind = data === null ? 'NoneType' : Array.isArray(data) ? 'list' : typeof data === 'string' ? 'str' : typeof data;
      throw new ValidationError({
        [this.app.settings.NON_FIELD_ERRORS_KEY]: [`Invalid data. Expected a dictionary, but got ${kind}.`],
      });
    }
    return data as Partial<ViewInput<S>>;
  }

  /**
   * Writes a new item and returns it. With `model`: the request's model
   * serializer's `create`, in one transaction (a failing write — a
   * constraint, a many-to-many row — leaves nothing behind), or without one
   * when it writes one statement (`ModelSaving.writesOneStatement`).
   */
  performCreate(req: ApiRequest, data: ViewInput<S>): T | Promise<T> {
    const saving = this.modelSaving(req, 'performCreate');
    const ctx = { request: req };
    const values = data as Record<string, unknown>;
    const db = this.database(req);
    // One statement is atomic by itself: no BEGIN/COMMIT around it (see `ModelSaving.writesOneStatement`).
    if (saving.writesOneStatement?.('create', values) === true) {
      return (saving.createNow ? saving.createNow(db, values, ctx) : saving.create(db, values, ctx)) as T | Promise<T>;
    }
    return db.transaction().execute(async (trx) => saving.create(trx, values, ctx)) as Promise<T>;
  }

  /**
   * PUT and PATCH: with PATCH only the fields sent are present. With
   * `model`: the request's model serializer's `update`, in one transaction
   * (none when it writes one statement).
   */
  performUpdate(req: ApiRequest, instance: T, data: Partial<ViewInput<S>>): T | Promise<T> {
    const saving = this.modelSaving(req, 'performUpdate');
    const ctx = { request: req };
    const row = instance as Record<string, unknown>;
    const values = data as Record<string, unknown>;
    const db = this.database(req);
    if (saving.writesOneStatement?.('update', values) === true) {
      return (saving.updateNow ? saving.updateNow(db, row, values, ctx) : saving.update(db, row, values, ctx)) as T | Promise<T>;
    }
    return db.transaction().execute(async (trx) => saving.update(trx, row, values, ctx)) as Promise<T>;
  }

  /**
   * Deletes the item. With `model`: its row, by primary key, in one
   * statement (rows that refer to it go as their foreign keys' `onDelete`
   * says, in the database, join rows of many-to-many fields included).
   */
  performDestroy(req: ApiRequest, instance: T): void | Promise<void> {
    const model = this.model;
    if (!model) throw new ImproperlyConfigured(`${this.constructor.name} must set model or override performDestroy().`);
    const pk = model.primaryKey;
    return this.database(req)
      .deleteFrom(model.tableName)
      .where(model.fields[pk]!.columnName(pk), '=', (instance as Record<string, unknown>)[pk])
      .execute()
      .then(() => undefined);
  }

  /** The request's serializer, which must save `model` rows for the default `perform*`. */
  private modelSaving(req: ApiRequest, method: string): ModelSaving {
    const model = this.model;
    const name = this.constructor.name;
    if (!model) throw new ImproperlyConfigured(`${name} must set model or override ${method}().`);
    const serializer = this.getSerializerClass(req);
    if (!isModelSaving(serializer)) {
      throw new ImproperlyConfigured(
        `${name} has model ${model.objectName} but its serializer cannot save rows: give it a model serializer ` +
          `(modelSerializer(${model.objectName}, …)) or override ${method}().`,
      );
    }
    return serializer;
  }

  /** Headers for a 201: `Location` when the item has a `url`. */
  getSuccessHeaders(data: unknown): Record<string, string> {
    const url = (data as Record<string, unknown> | null)?.[this.app.settings.URL_FIELD_NAME];
    return typeof url === 'string' ? { Location: url } : {};
  }

  /**
   * OPTIONS, with DRF's `actions`: for POST and PUT, when the view allows
   * them and this client would pass the permission checks (and, for PUT,
   * the object exists), the serializer's fields.
   */
  override async options(req: ApiRequest): Promise<Response> {
    const body = this.metadata();
    const serializer = this.getSerializerClass(req);
    if (serializer) {
      const actions: Record<string, unknown> = {};
      for (const method of ['PUT', 'POST'] as const) {
        if (!this.allowedMethods.includes(method)) continue;
        const probe = Object.create(req, { method: { value: method } }) as ApiRequest;
        try {
          await this.checkPermissions(probe);
          if (method === 'PUT') await this.getObject(probe);
        } catch (err) {
          if (err instanceof ApiError) continue;
          throw err;
        }
        actions[method] = serializer.describe();
      }
      if (Object.keys(actions).length > 0) body['actions'] = actions;
    }
    return new Response(body);
  }

  // ----------------------------------------------------- the actions (mixins)

  /**
   * GET a list; without a promise when each step answers at once (a page
   * and its count read from SQLite): a step that answers at once is not
   * awaited, as each await is a turn of the microtask queue.
   */
  list(req: ApiRequest): Response | Promise<Response> {
    return this.filteredThen(req, (source) => this.listOf(req, source));
  }

  private listOf(req: ApiRequest, source: Source<T>): Response | Promise<Response> {
    const page = this.paginateQueryset(source, req);
    if (isThenable(page)) return page.then((p) => this.listPage(req, source, p));
    return this.listPage(req, source, page);
  }

  private listPage(req: ApiRequest, source: Source<T>, page: T[] | null): Response | Promise<Response> {
    if (page === null) return this.listUnpaginated(req, source);
    const rows = this.relatedRowsOf(req, page);
    if (isThenable(rows)) return rows.then((r) => this.getPaginatedResponse(this.serializeMany(r, req), req));
    return this.getPaginatedResponse(this.serializeMany(rows, req), req);
  }

  private async listUnpaginated(req: ApiRequest, source: Source<T>): Promise<Response> {
    return new Response(this.serializeMany(await this.loadRelatedRows(req, await listAll(source)), req));
  }

  /** `loadRelatedRows`, without a promise when the built-in one has nothing to load (no model, no rows, no relations). */
  private relatedRowsOf(req: ApiRequest, rows: T[]): T[] | Promise<T[]> {
    if (this.loadRelatedRows === GenericAPIView.prototype.loadRelatedRows) {
      if (!this.model || rows.length === 0) return rows;
      const load = this.getRelatedToLoad(req);
      if (load.selectRelated.length === 0 && load.prefetchRelated.length === 0) return rows;
    }
    return this.loadRelatedRows(req, rows);
  }

  /** GET one object; without a promise when `getObject` and the related rows answer at once. */
  retrieve(req: ApiRequest): Response | Promise<Response> {
    const obj = this.getObject(req);
    if (isThenable(obj)) return obj.then((o) => this.retrieved(req, o));
    return this.retrieved(req, obj);
  }

  private retrieved(req: ApiRequest, obj: T): Response | Promise<Response> {
    return this.withRelatedRows(req, obj, (loaded) => new Response(this.serialize(loaded, { request: req, view: this })));
  }

  /** POST: validate, write, answer 201; without a promise when each step answers at once (SQLite). */
  create(req: ApiRequest): Response | Promise<Response> {
    const deferLookups = this.lookupsLeftToInsert(req);
    const data = this.validate(req.data, { request: req, partial: false, instance: null, deferLookups });
    if (isThenable(data)) return data.then((d) => this.createValid(req, d, deferLookups));
    return this.createValid(req, data, deferLookups);
  }

  /**
   * The related fields whose lookup this create may leave to the insert
   * (see deferred-lookups.ts): only with this class's own
   * `validate` and `performCreate`, so nothing but the model serializer's
   * own insert sees the validated related rows.
   */
  private lookupsLeftToInsert(req: ApiRequest): DeferredLookups | undefined {
    const own = GenericAPIView.prototype;
    if (this.model === undefined || this.validate !== own.validate || this.performCreate !== own.performCreate) return undefined;
    const serializer = this.getSerializerClass(req);
    return isModelSaving(serializer) ? serializer.lookupsLeftToInsert?.(this.database(req)) : undefined;
  }

  private createValid(req: ApiRequest, data: Partial<ViewInput<S>>, deferred: DeferredLookups | undefined): Response | Promise<Response> {
    // Non-partial validation returned every required field.
    let obj: T | Promise<T>;
    if (deferred === undefined || !deferred.pending) obj = this.performCreate(req, data as ViewInput<S>);
    else {
      // A foreign key's (or the insert's guard's) refusal is the related field's own error once its lookup runs.
      const values = data as Record<string, unknown>;
      const retry = () => this.performCreate(req, data as ViewInput<S>);
      try {
        obj = this.performCreate(req, data as ViewInput<S>);
        if (isThenable(obj)) obj = obj.then(undefined, (err: unknown) => deferred.insertFailed(err, values, retry));
      } catch (err) {
        obj = deferred.insertFailed(err, values, retry);
      }
    }
    if (isThenable(obj)) return obj.then((o) => this.created(req, o));
    return this.created(req, obj);
  }

  private created(req: ApiRequest, obj: T): Response | Promise<Response> {
    return this.withRelatedRows(req, obj, (loaded) => {
      const body = this.serialize(loaded, { request: req, view: this });
      return new Response(body, { status: 201, headers: this.getSuccessHeaders(body) });
    });
  }

  /** `answer` of `obj` with its related rows attached (`relatedRowsOf`); without a promise when none were read, or read at once. */
  private withRelatedRows(req: ApiRequest, obj: T, answer: (loaded: T) => Response): Response | Promise<Response> {
    const loaded = this.relatedRowsOf(req, [obj]);
    return isThenable(loaded) ? loaded.then((rows) => answer(rows[0]!)) : answer(loaded[0]!);
  }

  /** PUT (PATCH with `partial`); without a promise when each step answers at once (SQLite). */
  update(req: ApiRequest, partial = false): Response | Promise<Response> {
    const instance = this.getObject(req);
    if (isThenable(instance)) return instance.then((i) => this.updateFound(req, i, partial));
    return this.updateFound(req, instance, partial);
  }

  private updateFound(req: ApiRequest, instance: T, partial: boolean): Response | Promise<Response> {
    const data = this.validate(req.data, { request: req, partial, instance });
    if (isThenable(data)) return data.then((d) => this.updateValid(req, instance, d));
    return this.updateValid(req, instance, data);
  }

  private updateValid(req: ApiRequest, instance: T, data: Partial<ViewInput<S>>): Response | Promise<Response> {
    const obj = this.performUpdate(req, instance, data);
    if (isThenable(obj)) return obj.then((o) => this.retrieved(req, o));
    return this.retrieved(req, obj);
  }

  partialUpdate(req: ApiRequest): Response | Promise<Response> {
    return this.update(req, true);
  }

  async destroy(req: ApiRequest): Promise<Response> {
    const instance = await this.getObject(req);
    await this.performDestroy(req, instance);
    return new Response(null, { status: 204 });
  }
}

/** GET a list. */
export class ListAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.list(req); }
}
/** GET one object. */
export class RetrieveAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.retrieve(req); }
}
/** POST to create. */
export class CreateAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  post(req: ApiRequest) { return this.create(req); }
}
/** PUT / PATCH one object. */
export class UpdateAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  put(req: ApiRequest) { return this.update(req); }
  patch(req: ApiRequest) { return this.partialUpdate(req); }
}
/** DELETE one object. */
export class DestroyAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  delete(req: ApiRequest) { return this.destroy(req); }
}
/** GET a list, POST to create. */
export class ListCreateAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.list(req); }
  post(req: ApiRequest) { return this.create(req); }
}
/** GET, PUT, PATCH one object. */
export class RetrieveUpdateAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.retrieve(req); }
  put(req: ApiRequest) { return this.update(req); }
  patch(req: ApiRequest) { return this.partialUpdate(req); }
}
/** GET, DELETE one object. */
export class RetrieveDestroyAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.retrieve(req); }
  delete(req: ApiRequest) { return this.destroy(req); }
}
/** GET, PUT, PATCH, DELETE one object. */
export class RetrieveUpdateDestroyAPIView<T = any, S extends AnySerializer = AnySerializer> extends GenericAPIView<T, S> {
  get(req: ApiRequest) { return this.retrieve(req); }
  put(req: ApiRequest) { return this.update(req); }
  patch(req: ApiRequest) { return this.partialUpdate(req); }
  delete(req: ApiRequest) { return this.destroy(req); }
}

