import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { ImproperlyConfigured, ValidationError } from '../exceptions.js';
import type { OpenAPIParameter, Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import type { APIView } from '../views/api-view.js';
import { BaseFilterBackend, COLUMN_RE, isPostgresQuery, isQuery, valueAt, type AnyQuery, type AppContext, type FilterControl } from './base.js';
import { searchSmartSplit } from './search-terms.js';
import { foldCase } from '../utils/case-fold.js';
import { SQLITE_FOLD_FUNCTION } from '../db/sqlite-functions.js';
import { describePathError } from './model-filters.js';
import { baseName, modelOf, PathError, pathCondition, resolvePath, type ModelPath } from './relations.js';

/** A view searched by `SearchFilter`. */
export interface SearchView {
  /**
   * Columns a `?search=` term is matched against (any one may match; every
   * term must match). Prefixes, as DRF: `^` starts with, `=` exact, `@`
   * full-text (PostgreSQL), `$` regular expression (PostgreSQL); none:
   * contains. All case-insensitive, for any script (see `foldCase`). On a
   * view with a `model`, `author__name` follows the model's to-one relations
   * (a subquery: no join, no repeated rows); otherwise `table.column` (or
   * `author__name`) reaches a table the builder joins.
   */
  searchFields?: readonly string[];
}

type Lookup = 'icontains' | 'istartswith' | 'iexact' | 'search' | 'iregex';

interface SearchField {
  readonly column: string;
  readonly lookup: Lookup;
  /** A model view's relation path (`author__name`): searched through a subquery. */
  readonly path?: ModelPath;
}

/**
 * DRF's `SearchFilter`: the `search` query parameter (`SEARCH_PARAM`),
 * split into terms as DRF splits them (commas and whitespace; a quoted
 * phrase is one term).
 *
 * ```http
 * GET /api/books/?search=le%20guin,"dark%20matter" HTTP/1.1
 * ```
 *
 * Each term must match at least one of the view's `searchFields`. LIKE
 * wildcards in terms (`%`, `_`) match literally and NULs are dropped. A
 * parameter longer than `maxSearchLength` characters or with more than
 * `maxTerms` terms is a 400, so no request asks the database for more than
 * a bounded query.
 *
 * @example
 * class BookList extends ListAPIView<Book> {
 *   override filterBackends = [SearchFilter];
 *   searchFields = ['^title', 'author.name', '=isbn'];
 * }
 */
export class SearchFilter extends BaseFilterBackend {
  searchParam: string;
  searchDescription = 'A search term.';
  /** Most terms one search may have (DRF has no bound). */
  maxTerms = 10;
  /** Longest search parameter accepted, in characters. */
  maxSearchLength = 500;
  tooLongMessage = 'Ensure this field has no more than {max_length} characters.';
  tooManyTermsMessage = 'Ensure this field has no more than {max_terms} terms.';
  invalidRegexMessage = 'Invalid regular expression.';
  lookupPrefixes: Readonly<Record<string, Lookup>> = { '^': 'istartswith', '=': 'iexact', '@': 'search', $: 'iregex' };

  constructor(app: AppContext) {
    super(app);
    this.searchParam = app.settings.SEARCH_PARAM;
  }

  /** The view's `searchFields` (DRF's `get_search_fields`). */
  getSearchFields(view: APIView, _req: ApiRequest | null): readonly string[] {
    return (view as SearchView).searchFields ?? [];
  }

  checkView(view: APIView): void {
    for (const f of this.getSearchFields(view, null)) {
      try {
        this.parseField(f, view);
      } catch (err) {
        // A relation path the model does not have is reported by the system checks (search.E001) with every
        // other name before any request is served; with that check silenced it is raised here.
        if (!(err instanceof ImproperlyConfigured && err.cause instanceof PathError) || this.checkSilenced('search.E001')) throw err;
      }
    }
  }

  /** The request's terms, NULs stripped (as DRF 3.14); 400 for an over-long parameter or too many terms. */
  getSearchTerms(req: ApiRequest): string[] {
    // No text column holds a NUL (PostgreSQL refuses one in a query), so it can only be noise.
    const raw = (req.query[this.searchParam] ?? '').replaceAll('\0', '');
    if (raw.length > this.maxSearchLength) {
      throw new ValidationError({ [this.searchParam]: [this.tooLongMessage.replace('{max_length}', String(this.maxSearchLength))] });
    }
    const terms = searchSmartSplit(raw);
    if (terms.length > this.maxTerms) {
      throw new ValidationError({ [this.searchParam]: [this.tooManyTermsMessage.replace('{max_terms}', String(this.maxTerms))] });
    }
    return terms;
  }

  protected parseField(field: string, view: APIView | null = null): SearchField {
    const lookup = this.lookupPrefixes[field[0] ?? ''];
    const bare = lookup ? field.slice(1) : field;
    const model = view ? modelOf(view) : null;
    if (model && bare.includes('__')) {
      try {
        return { column: bare, lookup: lookup ?? 'icontains', path: resolvePath(model, bare) };
      } catch (err) {
        if (!(err instanceof PathError)) throw err;
        throw new ImproperlyConfigured(`${view!.constructor.name}: ${describePathError('searchFields', err)}`, { cause: err });
      }
    }
    const column = bare.replace(/__/g, '.');
    if (!COLUMN_RE.test(column)) {
      throw new ImproperlyConfigured(`Invalid search field "${field}": use "column" or "table.column", with an optional ^ = @ $ prefix.`);
    }
    return { column, lookup: lookup ?? 'icontains' };
  }

  filterQueryset<T>(req: ApiRequest, source: Source<T>, view: APIView): Source<T> {
    const names = this.getSearchFields(view, req);
    if (names.length === 0 || req.query[this.searchParam] === undefined) return source;
    const terms = this.getSearchTerms(req);
    if (terms.length === 0) return source;
    const fields = names.map((f) => this.parseField(f, view));
    if (fields.some((f) => f.lookup === 'iregex')) {
      for (const t of terms) {
        try {
          new RegExp(t, 'u');
        } catch {
          throw new ValidationError({ [this.searchParam]: [this.invalidRegexMessage] });
        }
      }
    }
    if (isQuery(source)) return this.filterQuery(source, fields, terms);
    return this.filterArray(source as readonly T[], fields, terms);
  }

  private filterQuery<T>(qb: AnyQuery<T>, fields: readonly SearchField[], terms: readonly string[]): AnyQuery<T> {
    const postgres = isPostgresQuery(qb);
    const base = baseName(qb);
    let out = qb;
    for (const term of terms) {
      const any = fields.map((f) =>
        f.path ? pathCondition(f.path, base, (column) => condition({ column, lookup: f.lookup }, term, postgres)) : condition(f, term, postgres),
      );
      out = out.where(sql<SqlBool>`(${sql.join(any, sql` or `)})`);
    }
    return out;
  }

  private filterArray<T>(items: readonly T[], fields: readonly SearchField[], terms: readonly string[]): T[] {
    if (fields.some((f) => f.lookup === 'iregex')) {
      // A client's regular expression run by the JS engine could block the event loop.
      throw new ImproperlyConfigured('SearchFilter: "$" (regex) search fields need a PostgreSQL query, not an array.');
    }
    const folded = terms.map(foldCase);
    return items.filter((item) =>
      folded.every((term) =>
        fields.some((f) => {
          const v = valueAt(item, f.path ? f.column.replace(/__/g, '.') : f.column);
          if (v === null || v === undefined) return false;
          const text = foldCase(v instanceof Date ? v.toISOString() : String(v));
          switch (f.lookup) {
            case 'istartswith':
              return text.startsWith(term);
            case 'iexact':
              return text === term;
            case 'search':
              return words(term).every((w) => text.includes(w));
            default:
              return text.includes(term);
          }
        }),
      ),
    );
  }

  override schemaParameters(view: APIView): OpenAPIParameter[] {
    if (this.getSearchFields(view, null).length === 0) return [];
    return [{ name: this.searchParam, required: false, in: 'query', description: this.searchDescription, schema: { type: 'string' } }];
  }

  override htmlContext(req: ApiRequest, view: APIView): FilterControl | null {
    if (this.getSearchFields(view, req).length === 0) return null;
    return { kind: 'search', param: this.searchParam, term: req.query[this.searchParam] ?? '' };
  }
}

function words(term: string): string[] {
  const out = term.split(/\s+/).filter(Boolean);
  return out.length > 0 ? out : [term];
}

/** `%`, `_` and the escape character itself match literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Letters outside ASCII whose simple upper case is an ASCII letter (`ı` → `I`, `ſ` → `S`); no others exist. */
const FOLDS_TO_ASCII = [
  ['\u0131', 'I'],
  ['\u017f', 'S'],
] as const;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * `column` compared with `value` ignoring case, the same on both dialects:
 * the column's text and the value are folded with each character's simple
 * upper case (see `foldCase`). PostgreSQL folds both with `upper()`, as
 * Django's `iexact` / `icontains` do. SQLite's `upper()` knows ASCII only,
 * so there the column goes through `trestle_upper` (registered by
 * `openDatabase`) and the value is folded here by the same function. An
 * ASCII value (most searches) can only meet ASCII letters, `ı` and `ſ`, so
 * SQLite's own case rules decide it (LIKE's for a pattern, `upper()` for
 * `=`) and `trestle_upper` (a call into JavaScript per row, about three
 * times the cost) runs only for rows holding `ı` when the value has an `I`,
 * or `ſ` when it has an `S`.
 */
function foldedCompare(column: string, op: 'like' | '=', value: string, postgres: boolean): Expression<SqlBool> {
  const text = sql`cast(${sql.ref(column)} as text)`;
  const compare = (lhs: RawBuilder<unknown>, rhs: unknown) =>
    op === 'like' ? sql<SqlBool>`${lhs} like ${rhs} escape '\\'` : sql<SqlBool>`${lhs} = ${rhs}`;
  if (postgres) return compare(sql`upper(${text})`, sql`upper(${value})`);
  const folded = foldCase(value);
  const exact = compare(sql`${sql.raw(SQLITE_FOLD_FUNCTION)}(${text})`, folded);
  if (!ASCII.test(folded)) return exact;
  // SQLite's LIKE already ignores the case of ASCII letters (and only theirs, as
  // its upper() changes only them), and converts its operand to text as CAST does:
  // `column LIKE 'PATTERN'` is `upper(cast(column as text)) LIKE 'PATTERN'`, without
  // a new string per row. `=` has no such rule.
  const ascii = op === 'like' ? sql<SqlBool>`${sql.ref(column)} like ${folded} escape '\\'` : compare(sql`upper(${text})`, folded);
  // `ı` and `ſ` can only make a difference where the value holds the letter they fold to.
  const rare = FOLDS_TO_ASCII.filter(([, to]) => folded.includes(to)).map(([c]) => sql`instr(${text}, ${sql.lit(c)})`);
  if (rare.length === 0) return ascii;
  return sql<SqlBool>`(${ascii} or ((${sql.join(rare, sql` or `)}) and ${exact}))`;
}

/** `column` matches `pattern` (a LIKE pattern; a backslash escapes), ignoring case for any script. */
export function ilike(column: string, pattern: string, postgres: boolean): Expression<SqlBool> {
  return foldedCompare(column, 'like', pattern, postgres);
}

/** `column` equals `value`, ignoring case for any script. */
export function iequals(column: string, value: string, postgres: boolean): Expression<SqlBool> {
  return foldedCompare(column, '=', value, postgres);
}

function condition(f: SearchField, term: string, postgres: boolean): Expression<SqlBool> {
  switch (f.lookup) {
    case 'istartswith':
      return ilike(f.column, `${escapeLike(term)}%`, postgres);
    case 'iexact':
      return iequals(f.column, term, postgres);
    case 'search':
      if (postgres) return sql<SqlBool>`to_tsvector(coalesce(cast(${sql.ref(f.column)} as text), '')) @@ plainto_tsquery(${term})`;
      // SQLite has no full-text operator on plain tables: every word of the term must be contained.
      return sql<SqlBool>`(${sql.join(words(term).map((w) => ilike(f.column, `%${escapeLike(w)}%`, false)), sql` and `)})`;
    case 'iregex':
      if (!postgres) throw new ImproperlyConfigured('SearchFilter: "$" (regex) search fields need PostgreSQL.');
      return sql<SqlBool>`cast(${sql.ref(f.column)} as text) ~* ${term}`;
    default:
      return ilike(f.column, `%${escapeLike(term)}%`, postgres);
  }
}
