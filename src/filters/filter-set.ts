import { sql, type Expression, type SqlBool } from 'kysely';
import { ImproperlyConfigured, ValidationError } from '../exceptions.js';
import type { OpenAPIParameter, Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { BaseFilterBackend, COLUMN_RE, isPostgresQuery, isQuery, valueAt, type AnyQuery, type FilterControl } from './base.js';
import { compareNullable } from './compare.js';
import { escapeLike, iequals, ilike } from './search.js';
import { foldCase } from '../utils/case-fold.js';

/** django-filter's lookups (`?year__gte=1970`); `exact` is the bare name (`?year=1974`). */
export type FilterLookup = 'exact' | 'iexact' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'range' | 'isnull' | 'icontains' | 'contains' | 'istartswith' | 'iendswith';

/** How a filter's value is read from the query string. */
export type FilterType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | { readonly choices: readonly string[] };

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
  readonly filters: Readonly<Record<string, Readonly<Required<Omit<FilterSpec, 'label'>>> & { readonly label: string }>>;
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
   * name → lookups. Values are compared with the column's text, so only
   * text-style lookups are allowed here; declare `filterset` for typed
   * filters (numbers, dates, ranges).
   */
  filtersetFields?: readonly string[] | Readonly<Record<string, readonly FilterLookup[]>>;
}

interface Bound {
  readonly param: string;
  readonly name: string;
  readonly lookup: FilterLookup;
  readonly type: FilterType;
  readonly column: string;
  readonly label: string;
}

interface Condition {
  readonly f: Bound;
  readonly value: unknown;
}

const TEXT_LOOKUPS: ReadonlySet<FilterLookup> = new Set(['exact', 'iexact', 'in', 'isnull', 'icontains', 'contains', 'istartswith', 'iendswith']);

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

  /** The view's filter set, from `filterset` or `filtersetFields` (django-filter's `get_filterset_class`). */
  getFilterSet(view: APIView): FilterSet | null {
    const v = view as FilterSetView;
    if (v.filterset) return v.filterset;
    if (!v.filtersetFields) return null;
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
    this.filtersOf(view);
  }

  protected filtersOf(view: APIView): readonly Bound[] {
    let out = this.bound.get(view);
    if (out) return out;
    const set = this.getFilterSet(view);
    const list: Bound[] = [];
    for (const [name, f] of Object.entries(set?.filters ?? {})) {
      for (const lookup of f.lookups) {
        list.push({ param: lookup === 'exact' ? name : `${name}__${lookup}`, name, lookup, type: f.type, column: f.column, label: f.label });
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
        return n;
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

  filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> {
    const filters = this.filtersOf(view);
    if (filters.length === 0) return source;
    const conditions = this.conditions(req, filters);
    if (conditions.length === 0) return source;
    if (isQuery(source)) {
      const postgres = isPostgresQuery(source);
      let q: AnyQuery<T> = source;
      for (const c of conditions) q = q.where(sqlCondition(c, postgres));
      return q;
    }
    return (source as readonly T[]).filter((item) => conditions.every((c) => matches(c, valueAt(item, c.f.column))));
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

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(2000, m, 0)).getUTCDate();
  const leap = m === 2 && d === 29 ? (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 : true;
  return d <= days && leap;
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
    default:
      return { type: 'string' };
  }
}

// ------------------------------------------------------------------ SQL

function sqlCondition({ f, value }: Condition, postgres: boolean): Expression<SqlBool> {
  // Untyped (`filtersetFields`) filters compare the column's text, so no value is a type error on PostgreSQL.
  // A boolean filter reads the column as a boolean there: a no-op on `boolean` (its index serves), valid on integer 0/1.
  const col =
    f.type === 'string'
      ? sql`cast(${sql.ref(f.column)} as text)`
      : f.type === 'boolean' && postgres
        ? sql`cast(${sql.ref(f.column)} as boolean)`
        : sql.ref(f.column);
  const bind = (v: unknown) => (typeof v === 'boolean' && !postgres ? (v ? 1 : 0) : v);
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
  const cmp = (x: unknown) => compareNullable(v, x, false);
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
