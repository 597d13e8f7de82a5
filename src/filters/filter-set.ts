import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { ImproperlyConfigured, ValidationError } from '../exceptions.js';
import type { OpenAPIParameter, Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { BaseFilterBackend, COLUMN_RE, isPostgresQuery, isQuery, valueAt, type AnyQuery, type FilterControl } from './base.js';
import { compareNullable } from './compare.js';
import { escapeLike, iequals, ilike } from './search.js';
import { foldCase } from '../utils/case-fold.js';
import { validDate } from '../utils/dates.js';
import { describePathError, modelFilterSet, type FiltersetFields } from './model-filters.js';
import { qualifyKey } from './ordering.js';
import { baseName, modelOf, PathError, pathCondition, type ModelPath } from './relations.js';

/** django-filter's lookups (`?year__gte=1970`); `exact` is the bare name (`?year=1974`). */
export type FilterLookup = 'exact' | 'iexact' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'range' | 'isnull' | 'icontains' | 'contains' | 'istartswith' | 'iendswith';

/** How a filter's value is read from the query string. */
export type FilterType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'time' | 'uuid' | { readonly choices: readonly string[] };

/**
 * What a filter derived from a model field (`filtersetFields` on a view with
 * a `model`) knows beyond its type.
 */
export interface ModelFilterInfo {
  /** The model field it reads, and the to-one relations followed to reach it (`author__name`). */
  readonly path: ModelPath;
  /** An integer column's bounds: values are rounded as Django rounds them for an `IntegerField` (up for `gte`/`lt`, towards zero otherwise). */
  readonly integer?: readonly [number, number];
  /** A decimal column: the value is bound as its text, so no digit is lost to a float. */
  readonly decimal?: boolean;
  /** A relation's key (django-filter's `ModelChoiceFilter`): a value that is not a key is `invalid_choice`. */
  readonly related?: boolean;
  /** A many-to-many's keys (`ModelMultipleChoiceFilter`): a value that is not a key is `invalid_pk_value`. */
  readonly many?: boolean;
  /** The related table and key a relation's values must exist in (the choice field's queryset). */
  readonly relatedTo?: { readonly table: string; readonly key: string };
  /** The type of the `exact` lookup when it differs (a field with `choices`: a `ChoiceFilter`). */
  readonly exactType?: FilterType;
}

/** One declared filter: its type, the column it reads and the lookups a client may use. */
export interface FilterSpec {
  readonly type: FilterType;
  /** The column (`year`, or `a.name` on a joined table); defaults to the filter's name. */
  readonly column?: string;
  /** Default `['exact']`. */
  readonly lookups?: readonly FilterLookup[];
  /** Shown in the browsable API and OpenAPI. */
  readonly label?: string;
}

/** A declared filter set: filter name → its spec (django-filter's `FilterSet`). */
export interface FilterSet {
  readonly filters: Readonly<Record<string, Readonly<Required<Omit<FilterSpec, 'label'>>> & { readonly label: string; readonly model?: ModelFilterInfo }>>;
}

/**
 * Declares a filter set, as a django-filter `FilterSet` with
 * `Meta.fields = {name: [lookups]}`: each lookup becomes a query
 * parameter, `name` for `exact` and `name__lookup` otherwise.
 *
 * @example
 * const BookFilters = filterSet({
 *   author: { type: 'integer', column: 'author_id', lookups: ['exact', 'in'] },
 *   year: { type: 'integer', lookups: ['exact', 'gte', 'lte', 'range'] },
 *   isbn: 'string',
 * });
 */
export function filterSet(spec: Readonly<Record<string, FilterSpec | FilterType>>): FilterSet {
  const filters: Record<string, FilterSet['filters'][string]> = {};
  for (const [name, raw] of Object.entries(spec)) {
    const s: FilterSpec = typeof raw === 'string' || !('type' in raw) ? { type: raw as FilterType } : raw;
    const column = s.column ?? name;
    if (!COLUMN_RE.test(column)) throw new ImproperlyConfigured(`Filter "${name}": invalid column "${column}"; use "column" or "table.column".`);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.includes('__')) throw new ImproperlyConfigured(`Invalid filter name "${name}".`);
    const lookups = s.lookups ?? ['exact'];
    for (const l of lookups) {
      if (!LOOKUPS.has(l)) throw new ImproperlyConfigured(`Filter "${name}": unknown lookup "${l}".`);
    }
    filters[name] = Object.freeze({ type: s.type, column, lookups: Object.freeze([...lookups]), label: s.label ?? name.replace(/_/g, ' ') });
  }
  return Object.freeze({ filters: Object.freeze(filters) });
}

const LOOKUPS: ReadonlySet<string> = new Set(['exact', 'iexact', 'in', 'gt', 'gte', 'lt', 'lte', 'range', 'isnull', 'icontains', 'contains', 'istartswith', 'iendswith']);

/** A view filtered by `FilterSetBackend`. */
export interface FilterSetView {
  /** The view's filter set (django-filter's `filterset_class`). */
  filterset?: FilterSet;
  /**
   * django-filter's `filterset_fields` shorthand: names (exact match) or
   * name → lookups. On a view with a `model`, each filter is typed from the
   * model field it names and may follow to-one relations (`author__name`),
   * as django-filter's `Meta.fields`. Without a model, values are compared
   * with the column's text, so only text-style lookups are allowed; declare
   * `filterset` for typed filters (numbers, dates, ranges).
   */
  filtersetFields?: FiltersetFields;
}

interface Bound {
  readonly param: string;
  readonly name: string;
  readonly lookup: FilterLookup;
  readonly type: FilterType;
  readonly column: string;
  readonly label: string;
  readonly model?: ModelFilterInfo;
}

interface Condition {
  readonly f: Bound;
  readonly value: unknown;
}

const TEXT_LOOKUPS: ReadonlySet<FilterLookup> = new Set(['exact', 'iexact', 'in', 'isnull', 'icontains', 'contains', 'istartswith', 'iendswith']);

/** The query parameters of a view's filters, by its list of them. */
const paramsByFilters = new WeakMap<readonly Bound[], ReadonlySet<string>>();

/** Whether the query string has a parameter of one of `filters`. */
function namesAnyFilter(query: Readonly<Record<string, string>>, filters: readonly Bound[]): boolean {
  let params: ReadonlySet<string> | undefined;
  for (const name in query) {
    if (params === undefined) {
      params = paramsByFilters.get(filters);
      if (params === undefined) paramsByFilters.set(filters, (params = new Set(filters.map((f) => f.param))));
    }
    if (params.has(name)) return true;
  }
  return false;
}

/**
 * django-filter's `DjangoFilterBackend`: the view's `filterset` (or
 * `filtersetFields`) read from the query string; parameters it does not
 * declare are ignored, an empty value skips its filter, and a value that
 * does not parse is a 400 with a field map, as django-filter.
 *
 * ```http
 * GET /api/books/?author=3&year__gte=1970&year__lte=1979 HTTP/1.1
 *
 * HTTP/1.1 400 Bad Request
 * {"year__gte": ["Enter a whole number."]}
 * ```
 */
export class FilterSetBackend extends BaseFilterBackend {
  /** Most values an `__in` (and `__range`) parameter may list. */
  maxInValues = 100;
  /** Longest text value accepted (Django's CharField `max_length` message when longer). */
  maxValueLength = 1000;
  messages = {
    integer: 'Enter a whole number.',
    number: 'Enter a number.',
    date: 'Enter a valid date.',
    datetime: 'Enter a valid date/time.',
    time: 'Enter a valid time.',
    uuid: 'Enter a valid UUID.',
    relatedChoice: 'Select a valid choice. That choice is not one of the available choices.',
    relatedPkValue: '“{value}” is not a valid value.',
    relatedManyChoice: 'Select a valid choice. {value} is not one of the available choices.',
    choice: 'Select a valid choice. {value} is not one of the available choices.',
    range: 'Range query expects two values.',
    nul: 'Null characters are not allowed.',
    maxLength: 'Ensure this value has at most {limit} characters (it has {length}).',
    maxValue: 'Ensure this value is less than or equal to {limit}.',
    minValue: 'Ensure this value is greater than or equal to {limit}.',
    maxItems: 'Ensure this field has no more than {limit} elements.',
  };
  /** Integer filters stay within a 32-bit column's range (no database overflow errors). */
  integerRange: readonly [number, number] = [-2147483648, 2147483647];

  private readonly bound = new WeakMap<APIView, readonly Bound[]>();
  /** Unknown names of a model view's `filtersetFields`, found at bind: the system check reports them before any request. */
  private readonly broken = new WeakMap<APIView, ImproperlyConfigured>();

  /**
   * The view's filter set, from `filterset` or `filtersetFields` (django-filter's
   * `get_filterset_class`); on a view with a `model`, `filtersetFields` are
   * typed from it (django-filter's `filterset_factory`), built once per view
   * class. Throws `ImproperlyConfigured` for a name the model does not have.
   */
  getFilterSet(view: APIView): FilterSet | null {
    const v = view as FilterSetView;
    if (v.filterset) return v.filterset;
    if (!v.filtersetFields) return null;
    const model = modelOf(view);
    if (model) {
      const cls = view.constructor;
      const cached = modelSets.get(cls);
      if (cached && cached.fields === v.filtersetFields && cached.model === model) return cached.set;
      let set: FilterSet;
      try {
        set = modelFilterSet(model, v.filtersetFields);
      } catch (err) {
        if (err instanceof PathError) throw new ImproperlyConfigured(`${cls.name}: ${describePathError('filtersetFields', err)}`);
        throw err;
      }
      modelSets.set(cls, { fields: v.filtersetFields, model, set });
      return set;
    }
    const spec: Record<string, FilterSpec> = {};
    const booleans = serializerBooleans(view);
    if (Array.isArray(v.filtersetFields)) {
      for (const name of v.filtersetFields as readonly string[]) spec[name] = { type: booleans.has(name) ? 'boolean' : 'string' };
    } else {
      for (const [name, lookups] of Object.entries(v.filtersetFields as Record<string, readonly FilterLookup[]>)) {
        for (const l of lookups) {
          if (!TEXT_LOOKUPS.has(l)) {
            throw new ImproperlyConfigured(`filtersetFields "${name}": lookup "${l}" needs a typed filter; declare it with filterSet({ ${name}: { type: …, lookups: [...] } }).`);
          }
        }
        spec[name] = { type: booleans.has(name) ? 'boolean' : 'string', lookups };
      }
    }
    return filterSet(spec);
  }

  checkView(view: APIView): void {
    try {
      this.filtersOf(view);
    } catch (err) {
      // A name the model does not have is reported by the system checks with every other name
      // (filters.E001) before any request is served; with that check silenced it is raised here.
      if (!(err instanceof ImproperlyConfigured) || !modelOf(view) || !isPathProblem(view) || this.checkSilenced('filters.E001')) throw err;
      this.broken.set(view, err);
    }
  }

  protected filtersOf(view: APIView): readonly Bound[] {
    let out = this.bound.get(view);
    if (out) return out;
    const broken = this.broken.get(view);
    if (broken) throw broken;
    const set = this.getFilterSet(view);
    const list: Bound[] = [];
    for (const [name, f] of Object.entries(set?.filters ?? {})) {
      for (const lookup of f.lookups) {
        const type = lookup === 'exact' && f.model?.exactType ? f.model.exactType : f.type;
        list.push({ param: lookup === 'exact' ? name : `${name}__${lookup}`, name, lookup, type, column: f.column, label: f.label, ...(f.model ? { model: f.model } : {}) });
      }
    }
    out = Object.freeze(list);
    this.bound.set(view, out);
    return out;
  }

  /** The request's conditions; throws one `ValidationError` with every bad parameter. */
  protected conditions(req: ApiRequest, filters: readonly Bound[]): Condition[] {
    const errors: Record<string, string[]> = {};
    const out: Condition[] = [];
    for (const f of filters) {
      const raw = req.query[f.param];
      if (raw === undefined || raw === '') continue;
      try {
        const value = this.clean(f, raw);
        if (value !== SKIP) out.push({ f, value });
      } catch (err) {
        if (!(err instanceof FilterValueError)) throw err;
        errors[f.param] = [err.message];
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return out;
  }

  protected clean(f: Bound, raw: string): unknown {
    if (raw.includes('\0')) throw new FilterValueError(this.messages.nul);
    if (f.lookup === 'isnull') return booleanValue(raw);
    if (f.lookup === 'in' || f.lookup === 'range') {
      const parts = raw.split(',');
      if (parts.length > this.maxInValues) throw new FilterValueError(fill(this.messages.maxItems, { limit: this.maxInValues }));
      if (f.lookup === 'range' && parts.length !== 2) throw new FilterValueError(this.messages.range);
      const values = parts.map((p) => (p.trim() === '' && f.type !== 'string' ? null : this.cleanOne(f, p)));
      return f.lookup === 'in' ? values.filter((v) => v !== null && v !== SKIP) : values;
    }
    return this.cleanOne(f, raw);
  }

  /** One value, as Django's form field for the type cleans it. */
  protected cleanOne(f: Bound, raw: string): unknown {
    const type = f.type;
    if (f.model?.related) return this.cleanKey(f, raw);
    if (typeof type === 'object') {
      if (!type.choices.includes(raw)) throw new FilterValueError(fill(this.messages.choice, { value: raw }));
      return raw;
    }
    const text = raw.trim();
    switch (type) {
      case 'integer': {
        if (!/^[+-]?\d{1,30}(\.0*)?$/.test(text)) throw new FilterValueError(this.messages.integer);
        const n = Number(text.replace(/\.0*$/, ''));
        if (n > this.integerRange[1]) throw new FilterValueError(fill(this.messages.maxValue, { limit: this.integerRange[1] }));
        if (n < this.integerRange[0]) throw new FilterValueError(fill(this.messages.minValue, { limit: this.integerRange[0] }));
        return n;
      }
      case 'number': {
        if (text.length > 100 || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new FilterValueError(this.messages.number);
        const n = Number(text);
        if (!Number.isFinite(n)) throw new FilterValueError(this.messages.number);
        const bounds = f.model?.integer;
        if (bounds) {
          // Django's IntegerField takes a fractional value: rounded up for gte/lt, towards zero otherwise.
          const whole = f.lookup === 'gte' || f.lookup === 'lt' ? Math.ceil(n) : Math.trunc(n);
          if (whole > bounds[1]) throw new FilterValueError(fill(this.messages.maxValue, { limit: bounds[1] }));
          if (whole < bounds[0]) throw new FilterValueError(fill(this.messages.minValue, { limit: bounds[0] }));
          return whole === 0 ? 0 : whole;
        }
        if (f.model?.decimal) return text.replace(/^\+/, '');
        return n;
      }
      case 'uuid': {
        const hex = uuidHex(text);
        if (hex === null) throw new FilterValueError(this.messages.uuid);
        return hyphenated(hex);
      }
      case 'time': {
        const t = parseTime(text);
        if (t === null) throw new FilterValueError(this.messages.time);
        return t;
      }
      case 'boolean': {
        const b = booleanValue(raw);
        return b;
      }
      case 'date': {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
        if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw new FilterValueError(this.messages.date);
        return text;
      }
      case 'datetime': {
        const d = parseIsoDateTime(text);
        if (d === null) throw new FilterValueError(this.messages.datetime);
        return d.toISOString();
      }
      default: {
        if (raw.length > this.maxValueLength) {
          throw new FilterValueError(fill(this.messages.maxLength, { limit: this.maxValueLength, length: raw.length }));
        }
        return raw;
      }
    }
  }

  /** A relation's key, as django-filter's `ModelChoiceFilter` reads it: anything else is `invalid_choice`. */
  protected cleanKey(f: Bound, raw: string): unknown {
    const text = raw.trim();
    const invalid = () => new FilterValueError(f.model?.many ? fill(this.messages.relatedPkValue, { value: raw }) : this.messages.relatedChoice);
    if (f.type === 'integer') {
      if (!/^[+-]?\d{1,20}$/.test(text)) throw invalid();
      const n = Number(text);
      const bounds = f.model?.integer ?? this.integerRange;
      if (n < bounds[0] || n > bounds[1]) throw invalid();
      return n;
    }
    if (f.type === 'uuid') {
      const hex = uuidHex(text);
      if (hex === null) throw invalid();
      return hyphenated(hex);
    }
    if (raw.length > this.maxValueLength) throw invalid();
    return raw;
  }

  filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> | Promise<Source<T>> {
    const filters = this.filtersOf(view);
    if (filters.length === 0) return source;
    // Most requests name none of the filters: the source as it is, without a lookup per filter.
    if (this.conditions === FilterSetBackend.prototype.conditions && !namesAnyFilter(req.query, filters)) return source;
    const conditions = this.conditions(req, filters);
    if (conditions.length === 0) return source;
    const keyed = isQuery(source) ? conditions.filter((c) => c.f.model?.relatedTo && c.f.lookup !== 'isnull') : [];
    if (keyed.length > 0) return this.checkKeys(req, view, source as AnyQuery, keyed).then(() => this.apply(source, conditions));
    return this.apply(source, conditions);
  }

  /**
   * As django-filter's `ModelChoiceFilter` (its field's `queryset.get(pk=…)`):
   * a relation's value must be a key of the related table, else a 400 for
   * every parameter that names a missing one. One query per such parameter,
   * on the view's database.
   */
  protected async checkKeys(req: ApiRequest, view: APIView, source: AnyQuery, conditions: readonly Condition[]): Promise<void> {
    const postgres = isPostgresQuery(source);
    const db = databaseOf(req, view);
    const errors: Record<string, string[]> = {};
    for (const c of conditions) {
      const target = c.f.model!.relatedTo!;
      const wanted = (c.f.lookup === 'in' || c.f.lookup === 'range' ? (c.value as unknown[]) : [c.value]).filter((v) => v !== null && v !== undefined);
      if (wanted.length === 0) continue;
      const rows = (await db
        .selectFrom(sql`${sql.table(target.table)}`.as('trestle_key'))
        .select(sql`${sql.ref(`trestle_key.${target.key}`)}`.as('key'))
        .where(sqlCondition({ f: { ...c.f, lookup: 'in', column: `trestle_key.${target.key}` }, value: wanted }, postgres))
        .execute()) as { key: unknown }[];
      const found = new Set(rows.map((r) => normalKey(c.f.type, r.key)));
      const missing = wanted.find((v) => !found.has(normalKey(c.f.type, v)));
      if (missing === undefined) continue;
      errors[c.f.param] = [c.f.model!.many ? fill(this.messages.relatedManyChoice, { value: missing }) : this.messages.relatedChoice];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  private apply<T>(source: Source<T>, conditions: readonly Condition[]): Source<T> {
    if (isQuery(source)) {
      const postgres = isPostgresQuery(source);
      const base = baseName(source);
      let q: AnyQuery<T> = source;
      for (const c of conditions) {
        const path = c.f.model?.path;
        if (!path) q = q.where(sqlCondition(c, postgres));
        else if (path.hops.length === 0) q = q.where(sqlCondition({ f: { ...c.f, column: qualifyKey(c.f.column, source) }, value: c.value }, postgres));
        else {
          const orNull = c.f.lookup === 'isnull' && c.value === true;
          q = q.where(pathCondition(path, base, (column) => sqlCondition({ f: { ...c.f, column }, value: c.value }, postgres), orNull));
        }
      }
      return q;
    }
    return (source as readonly T[]).filter((item) => conditions.every((c) => matches(c, valueAt(item, arrayPath(c.f)))));
  }

  override schemaParameters(view: APIView): OpenAPIParameter[] {
    return this.filtersOf(view).map((f) => {
      const base = schemaFor(f.lookup === 'isnull' ? 'boolean' : f.type);
      const p: OpenAPIParameter = { name: f.param, required: false, in: 'query', schema: base };
      if (f.lookup === 'in' || f.lookup === 'range') {
        p.schema = { type: 'array', items: base, ...(f.lookup === 'range' ? { minItems: 2, maxItems: 2 } : {}) };
        p.style = 'form';
        p.explode = false;
        p.description = f.lookup === 'in' ? 'Multiple values may be separated by commas.' : 'Two values separated by a comma: from,to.';
      }
      return p;
    });
  }

  override htmlContext(req: ApiRequest, view: APIView): FilterControl | null {
    const filters = this.filtersOf(view);
    if (filters.length === 0) return null;
    return {
      kind: 'filters',
      fields: filters.map((f) => ({
        param: f.param,
        label: f.lookup === 'exact' ? f.label : `${f.label} ${f.lookup.replace(/^i/, '')}`,
        type: f.lookup === 'isnull' ? 'boolean' : typeof f.type === 'object' ? 'choice' : f.type,
        value: req.query[f.param] ?? '',
        ...(typeof f.type === 'object' ? { choices: f.type.choices } : {}),
      })),
    };
  }
}

/**
 * Columns the view's serializer declares as `boolean()` (by source, or by
 * name when the source is the name): django-filter makes a model's
 * BooleanField a BooleanFilter in the `filterset_fields` shorthand, and the
 * serializer is where a Trestle view declares its fields' kinds.
 */
function serializerBooleans(view: APIView): ReadonlySet<string> {
  const fields = (view as { serializer?: { fields?: Record<string, { kind?: string; source?: string }> } }).serializer?.fields;
  const out = new Set<string>();
  for (const [name, field] of Object.entries(fields ?? {})) {
    if (field?.kind === 'boolean') out.add(field.source && field.source !== '*' ? field.source : name);
  }
  return out;
}

class FilterValueError extends Error {}

/** The database a view reads (a model view's `database(req)`), else the app's `db`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function databaseOf(req: ApiRequest, view: APIView): Kysely<any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const own = (view as unknown as { database?: (req: ApiRequest) => Kysely<any> }).database;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return typeof own === 'function' ? own.call(view, req) : (req.app.services.get('db') as unknown as Kysely<any>);
}

/** A key as a set compares it: numbers and strings alike, UUIDs as their hex digits. */
function normalKey(type: FilterType, v: unknown): string {
  const text = String(v);
  return type === 'uuid' ? text.toLowerCase().replace(/-/g, '') : text;
}

/** Model filter sets, once per view class. */
const modelSets = new WeakMap<object, { fields: unknown; model: unknown; set: FilterSet }>();

/** Whether building the view's model filter set fails on a name (rather than on a lookup). */
function isPathProblem(view: APIView): boolean {
  const model = modelOf(view);
  const fields = (view as FilterSetView).filtersetFields;
  if (!model || !fields || (view as FilterSetView).filterset) return false;
  try {
    modelFilterSet(model, fields);
    return false;
  } catch (err) {
    return err instanceof PathError;
  }
}

/** Where an array item holds a filter's value: the column, or the loaded relations' path (`author.name`). */
function arrayPath(f: Bound): string {
  const path = f.model?.path;
  if (!path || path.hops.length === 0) return f.column;
  return [...path.hops.map((h) => h.field), path.path.split('__').pop()!].join('.');
}

/** The 32 hex digits of a UUID in any of the forms Python's `uuid.UUID` reads (hyphens, braces, `urn:uuid:`), lower case. */
function uuidHex(text: string): string | null {
  const hex = text.replace(/^urn:/i, '').replace(/^uuid:/i, '').replace(/^\{|\}$/g, '').replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

function hyphenated(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Django's TimeField input formats (`%H:%M:%S`, `%H:%M:%S.%f`, `%H:%M`), as `HH:MM:SS[.ffffff]`. */
function parseTime(text: string): string | null {
  const m = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?$/.exec(text);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) return null;
  const two = (v: string | undefined) => (v ?? '0').padStart(2, '0');
  return `${two(m[1])}:${two(m[2])}:${two(m[3])}${m[4] ? `.${m[4].padEnd(6, '0')}` : ''}`;
}

const SKIP = Symbol('skip');

function fill(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
}

/** django-filter's BooleanWidget: true/false/1/0 (any case); anything else skips the filter. */
function booleanValue(raw: string): boolean | typeof SKIP {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return SKIP;
}

/** ISO 8601 date or date-time (Django's `parse_datetime` plus plain dates); no offset means UTC. */
function parseIsoDateTime(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i.exec(text);
  if (!m) return null;
  const [y, mo, d, h = '00', mi = '00', s = '00'] = [m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]];
  if (!validDate(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const frac = (m[7] ?? '').padEnd(3, '0').slice(0, 3);
  let tz = m[8] ?? 'Z';
  if (/^[+-]\d{2}$/.test(tz)) tz += ':00';
  else if (/^[+-]\d{4}$/.test(tz)) tz = `${tz.slice(0, 3)}:${tz.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h.padStart(2, '0')}:${mi}:${s}.${frac}${tz.toUpperCase()}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function schemaFor(type: FilterType): Record<string, unknown> {
  if (typeof type === 'object') return { type: 'string', enum: [...type.choices] };
  switch (type) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'time':
      return { type: 'string', format: 'time' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    default:
      return { type: 'string' };
  }
}

// ------------------------------------------------------------------ SQL

function sqlCondition({ f, value }: Condition, postgres: boolean): Expression<SqlBool> {
  // Untyped (`filtersetFields`) filters compare the column's text, so no value is a type error on PostgreSQL.
  // A boolean filter reads the column as a boolean there: a no-op on `boolean` (its index serves), valid on integer 0/1.
  // A UUID on SQLite is text with or without hyphens: both sides compare as 32 lower-case hex digits.
  const sqliteUuid = f.type === 'uuid' && !postgres;
  const col =
    f.type === 'string'
      ? sql`cast(${sql.ref(f.column)} as text)`
      : f.type === 'boolean' && postgres
        ? sql`cast(${sql.ref(f.column)} as boolean)`
        : sqliteUuid
          ? sql`replace(lower(cast(${sql.ref(f.column)} as text)), '-', '')`
          : sql.ref(f.column);
  const bind = (v: unknown) => (typeof v === 'boolean' && !postgres ? (v ? 1 : 0) : sqliteUuid && typeof v === 'string' ? v.replace(/-/g, '') : v);
  switch (f.lookup) {
    case 'isnull':
      return value ? sql<SqlBool>`${sql.ref(f.column)} is null` : sql<SqlBool>`${sql.ref(f.column)} is not null`;
    case 'in': {
      const list = value as unknown[];
      if (list.length === 0) return sql<SqlBool>`1 = 0`;
      return sql<SqlBool>`${col} in (${sql.join(list.map((v) => sql`${bind(v)}`))})`;
    }
    case 'range': {
      const [a, b] = value as unknown[];
      // BETWEEN x AND NULL matches nothing, as in Django.
      return sql<SqlBool>`${col} between ${bind(a) ?? null} and ${bind(b) ?? null}`;
    }
    case 'gt':
      return sql<SqlBool>`${col} > ${bind(value)}`;
    case 'gte':
      return sql<SqlBool>`${col} >= ${bind(value)}`;
    case 'lt':
      return sql<SqlBool>`${col} < ${bind(value)}`;
    case 'lte':
      return sql<SqlBool>`${col} <= ${bind(value)}`;
    case 'iexact':
      return iequals(f.column, String(value), postgres);
    case 'icontains':
      return ilike(f.column, `%${escapeLike(String(value))}%`, postgres);
    case 'istartswith':
      return ilike(f.column, `${escapeLike(String(value))}%`, postgres);
    case 'iendswith':
      return ilike(f.column, `%${escapeLike(String(value))}`, postgres);
    case 'contains':
      // LIKE is case-insensitive for ASCII on SQLite; instr() is exact on both.
      return postgres
        ? sql<SqlBool>`strpos(cast(${sql.ref(f.column)} as text), ${String(value)}) > 0`
        : sql<SqlBool>`instr(cast(${sql.ref(f.column)} as text), ${String(value)}) > 0`;
    default:
      return sql<SqlBool>`${col} = ${bind(value)}`;
  }
}

// ------------------------------------------------------------------ arrays

function comparable(type: FilterType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof type === 'object' || type === 'string') return v instanceof Date ? v.toISOString() : String(v);
  if (type === 'integer' || type === 'number') return typeof v === 'number' ? v : Number(v);
  if (type === 'boolean') return v === true || v === 1 || v === '1' || v === 't' || v === 'true' || v === 1n;
  if (type === 'datetime') return v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
  if (type === 'uuid') return String(v).toLowerCase().replace(/-/g, '');
  if (type === 'time') return String(v);
  return v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
}

function matches({ f, value }: Condition, raw: unknown): boolean {
  if (f.lookup === 'isnull') return (raw === null || raw === undefined) === value;
  let v: unknown;
  try {
    v = comparable(f.type, raw);
  } catch {
    return false;
  }
  if (v === null) return false;
  const cmp = (x: unknown) => compareNullable(v, f.type === 'uuid' && typeof x === 'string' ? x.replace(/-/g, '') : x, false);
  switch (f.lookup) {
    case 'in':
      return (value as unknown[]).some((x) => cmp(x) === 0);
    case 'range': {
      const [a, b] = value as unknown[];
      return a !== null && b !== null && cmp(a) >= 0 && cmp(b) <= 0;
    }
    case 'gt':
      return cmp(value) > 0;
    case 'gte':
      return cmp(value) >= 0;
    case 'lt':
      return cmp(value) < 0;
    case 'lte':
      return cmp(value) <= 0;
    case 'iexact':
      return foldCase(String(v)) === foldCase(String(value));
    case 'icontains':
      return foldCase(String(v)).includes(foldCase(String(value)));
    case 'istartswith':
      return foldCase(String(v)).startsWith(foldCase(String(value)));
    case 'iendswith':
      return foldCase(String(v)).endsWith(foldCase(String(value)));
    case 'contains':
      return String(v).includes(String(value));
    default:
      return cmp(value) === 0;
  }
}
