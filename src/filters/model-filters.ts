import { ImproperlyConfigured } from '../exceptions.js';
import { closestMatch } from '../checks/difflib.js';
import type { ModelField, RelationTarget } from '../models/fields.js';
import type { FilterLookup, FilterSet, FilterType, ModelFilterInfo } from './filter-set.js';
import { modelLabel, PathError, relationTarget, resolvePath, type ModelPath } from './relations.js';

/** django-filter's `filterset_fields`: names (each `exact`) or name → lookups. */
export type FiltersetFields = readonly string[] | Readonly<Record<string, readonly FilterLookup[]>>;

const LOOKUPS: ReadonlySet<string> = new Set(['exact', 'iexact', 'in', 'gt', 'gte', 'lt', 'lte', 'range', 'isnull', 'icontains', 'contains', 'istartswith', 'iendswith']);

const INT32: readonly [number, number] = [-2147483648, 2147483647];
const INT53: readonly [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/**
 * The filter type of a model field, as django-filter's
 * `FILTER_FOR_DBFIELD_DEFAULTS` maps field classes: integers, floats and
 * decimals are `NumberFilter`s (`Enter a number.`), booleans
 * `BooleanFilter`s, dates `DateFilter`s, date-times `IsoDateTimeFilter`s,
 * text-like fields `CharFilter`s, a UUID a `UUIDFilter`, a relation a
 * `ModelChoiceFilter` over the related key. `null` for a kind without a
 * filter (`json`).
 */
function filterFor(model: RelationTarget, f: ModelField): { type: FilterType; info: Omit<ModelFilterInfo, 'path'> } | null {
  switch (f.kind) {
    case 'auto':
    case 'integer':
      return { type: 'number', info: { integer: INT32 } };
    case 'bigAuto':
    case 'bigInteger':
      return { type: 'number', info: { integer: INT53 } };
    case 'float':
      return { type: 'number', info: {} };
    case 'decimal':
      return { type: 'number', info: { decimal: true } };
    case 'boolean':
      return { type: 'boolean', info: {} };
    case 'date':
      return { type: 'date', info: {} };
    case 'datetime':
      return { type: 'datetime', info: {} };
    case 'time':
      return { type: 'time', info: {} };
    case 'uuid':
      return { type: 'uuid', info: {} };
    case 'char':
    case 'text':
    case 'email':
    case 'url':
    case 'slug':
      return { type: 'string', info: {} };
    case 'foreignKey':
    case 'oneToOne':
    case 'manyToMany': {
      const target = relationTarget(model, f);
      const key = target ? target.fields[target.primaryKey] : undefined;
      const keyKind = key?.kind ?? 'auto';
      const many = {
        ...(f.kind === 'manyToMany' ? { many: true } : {}),
        ...(target && key ? { relatedTo: { table: target.tableName, key: key.columnName(target.primaryKey) } } : {}),
      };
      if (keyKind === 'uuid') return { type: 'uuid', info: { related: true, ...many } };
      if (keyKind === 'auto' || keyKind === 'bigAuto' || keyKind === 'integer' || keyKind === 'bigInteger') {
        return { type: 'integer', info: { related: true, ...many, integer: keyKind === 'auto' || keyKind === 'integer' ? INT32 : INT53 } };
      }
      return { type: 'string', info: { related: true, ...many } };
    }
    default:
      return null;
  }
}

/** A `PathError` as the configuration error it is, with Django's list of choices or a "did you mean". */
export function describePathError(setting: string, err: PathError): string {
  const close = err.candidates.length > 0 ? closestMatch(err.segment, err.candidates) : null;
  const hint =
    close !== null
      ? ` Did you mean '${close}'?`
      : err.candidates.length > 0
        ? ` Choices are: ${err.candidates.map((c) => `'${c}'`).join(', ')}.`
        : '';
  return `${setting} refers to '${err.path}': ${err.message}${hint}`;
}

/**
 * The filter set django-filter's `filterset_factory(model, fields=…)` builds:
 * one filter per name and lookup, typed from the model field it names (a
 * relation path such as `author__name` is followed through to-one
 * relations). A field with `choices` gets a `ChoiceFilter` for `exact`.
 * Throws `PathError` for a name the model does not have and
 * `ImproperlyConfigured` for an unknown lookup or a field kind no filter
 * reads.
 */
export function modelFilterSet(model: RelationTarget, fields: FiltersetFields): FilterSet {
  const entries: [string, readonly FilterLookup[]][] = Array.isArray(fields)
    ? (fields as readonly string[]).map((n) => [n, ['exact']])
    : Object.entries(fields as Readonly<Record<string, readonly FilterLookup[]>>);
  const filters: Record<string, FilterSet['filters'][string]> = {};
  for (const [name, lookups] of entries) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ImproperlyConfigured(`Invalid filtersetFields name "${String(name)}".`);
    const path: ModelPath = resolvePath(model, name);
    // A path ending on a many-to-many (`tags`) filters by the related keys, as django-filter's ModelMultipleChoiceFilter.
    const lastHop = path.hops[path.hops.length - 1];
    const endsOnManyToMany = lastHop?.through !== undefined && name.split('__').pop() === lastHop.field;
    const declaring = endsOnManyToMany ? (path.hops.length > 1 ? path.hops[path.hops.length - 2]!.target : model) : path.model;
    const made = filterFor(declaring, endsOnManyToMany ? declaring.fields[lastHop.field]! : path.field);
    if (!made) {
      throw new ImproperlyConfigured(`filtersetFields '${name}': ${modelLabel(path.model)}.${path.path.split('__').pop()} is a '${path.field.kind}' field, which no filter reads; declare the filter with filterSet().`);
    }
    if (!Array.isArray(lookups) || lookups.length === 0) throw new ImproperlyConfigured(`filtersetFields '${name}': give a list of lookups.`);
    for (const l of lookups) {
      if (!LOOKUPS.has(l)) throw new ImproperlyConfigured(`filtersetFields '${name}': unknown lookup "${String(l)}".`);
    }
    const choices = path.field.options.choices;
    const choiceType: FilterType | null = choices && choices.length > 0 ? { choices: choices.map(([v]) => String(v)) } : null;
    const label = String(path.field.options.verboseName ?? name.replace(/__/g, ' ').replace(/_/g, ' '));
    // `exact` on a field with choices is a ChoiceFilter; other lookups keep the field's own filter.
    const info: ModelFilterInfo = Object.freeze({ ...made.info, path, ...(choiceType !== null ? { exactType: choiceType } : {}) });
    filters[name] = Object.freeze({ type: made.type, column: path.column, lookups: Object.freeze([...lookups]), label, model: info });
  }
  return Object.freeze({ filters: Object.freeze(filters) });
}
