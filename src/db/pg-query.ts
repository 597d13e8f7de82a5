/**
 * The query object the app's own PostgreSQL executor hands node-postgres:
 * its `Query`, without two costs it pays on every query that do not depend
 * on the query.
 *
 * - A query given as a config object (`{ name, text, values }`) is first
 *   copied with `Object.defineProperties(Object.create(…),
 *   Object.getOwnPropertyDescriptors(…))`, about 1.5 µs; this one is made
 *   from the text and given its name, values and callback directly.
 * - Each answer's row description is turned into parsers and an empty row to
 *   copy (`Result.addFields`), and each row is filled in by name; here the
 *   row builder for a statement's columns is made once per connection (an
 *   object literal with one slot per column, the parsers the connection's
 *   `getTypeParser` gives) and reused while the columns stay the same.
 *   Together about 40 µs of CPU per W6 cursor page in the bench's server
 *   (token lookup and a page of 21 rows; docs/decisions.md), far more than
 *   the same work timed alone.
 *
 * Rows come out as node-postgres makes them (but for the columns named
 * `EXACT_POSITION_PREFIX…`, see below): the same keys in the same
 * order, null for SQL NULL, each value through the connection's type
 * parser (a duplicate column name keeps its first place and its last
 * value, as there). Columns in binary format, a column named `__proto__`,
 * the second result of a multi-statement text, or a process that forbids
 * code generation from strings take node-postgres' own way. So does every
 * query when this node-postgres does not have the internals relied on
 * (checked once): then `createQuery` answers `null` and the caller sends a
 * config object as before.
 */
import type pg from 'pg';
import { loadPg } from './pg-module.js';

/**
 * Columns named with this prefix are the exact text of a cursor page's
 * ordering columns (src/pagination/source.ts): the row maker puts them in an
 * object of their own under `EXACT_POSITION`, not among the row's keys.
 */
export const EXACT_POSITION_PREFIX = '__trestle_position_';
/** Where a row keeps its `EXACT_POSITION_PREFIX` columns (invisible to `JSON.stringify` and `Object.keys`). */
export const EXACT_POSITION: unique symbol = Symbol('trestle.exactPosition');

type Parser = (raw: string) => unknown;
type RowBuilder = (values: readonly (string | null)[]) => Record<string, unknown>;
type Callback = (err: Error | null, result?: pg.QueryResult) => void;

/** A column as the row description gives it (pg-protocol's `Field`). */
interface FieldDescription {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format: string;
}

/** What this module reads and writes of node-postgres' `Query` beyond its declared API. */
interface QueryInternals {
  text: string;
  values: unknown[] | undefined;
  name: string | undefined;
  callback: Callback | undefined;
  _result: { rows: unknown[]; fields: unknown; command: string | null };
  _canceledDueToError: unknown;
}

interface RowShape {
  readonly fields: readonly FieldDescription[];
  readonly build: RowBuilder;
}

const MAX_SHAPES = 200;

/** One connection's row builders, by statement text. */
export class RowShapes {
  private readonly byText = new Map<string, RowShape | null>();

  constructor(private readonly client: pg.ClientBase) {}

  /** The builder for rows of `text` described by `fields`, or `null` to let node-postgres build them. */
  builderFor(text: string, fields: readonly FieldDescription[]): RowBuilder | null {
    const known = this.byText.get(text);
    if (known !== undefined && (known === null || sameColumns(known.fields, fields))) return known === null ? null : known.build;
    const build = compileRowBuilder(fields, this.client);
    if (this.byText.size >= MAX_SHAPES) this.byText.clear();
    this.byText.set(text, build === null ? null : { fields, build });
    return build;
  }
}

function sameColumns(a: readonly FieldDescription[], b: readonly FieldDescription[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || x.format !== y.format) return false;
  }
  return true;
}

/** `(values) => ({ "col": values[0] === null ? null : parse0(values[0]), … })`, or `null` where node-postgres must build the row. */
function compileRowBuilder(fields: readonly FieldDescription[], client: pg.ClientBase): RowBuilder | null {
  const parsers: Parser[] = [];
  const slots: string[] = [];
  const positions: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const { name, dataTypeID, format } = fields[i]!;
    if (format !== 'text' || name === '__proto__') return null;
    parsers.push(client.getTypeParser(dataTypeID, 'text') as Parser);
    (name.startsWith(EXACT_POSITION_PREFIX) ? positions : slots).push(`${JSON.stringify(name)}: v[${i}] === null ? null : p[${i}](v[${i}])`);
  }
  if (positions.length > 0) slots.push(`[x]: { ${positions.join(', ')} }`);
  const source = `return { ${slots.join(', ')} };`;
  let make = makers.get(source);
  if (make === undefined) {
    try {
      make = new Function('p', 'v', 'x', source) as Make;
    } catch {
      // --disallow-code-generation-from-strings
      return null;
    }
    if (makers.size >= MAX_MAKERS) makers.clear();
    makers.set(source, make);
  }
  const build = make;
  return (values) => build(parsers, values, EXACT_POSITION);
}

type Make = (p: readonly Parser[], v: readonly (string | null)[], x: symbol) => Record<string, unknown>;

/**
 * Compiled row makers by their source (the column names), shared by every
 * connection: each connection has its own parsers, but one function per
 * column list gets all the calls, so V8 optimises it once, not per connection.
 */
const makers = new Map<string, Make>();
const MAX_MAKERS = 500;

type DirectQueryClass = new (text: string, values: unknown[], name: string | undefined, shapes: RowShapes, callback: Callback) => pg.Submittable;

let directQueryClass: DirectQueryClass | null | undefined;

/** The subclass of this node-postgres' `Query`, or `null` when its internals are not the ones relied on. */
function queryClass(): DirectQueryClass | null {
  if (directQueryClass !== undefined) return directQueryClass;
  const Base = loadPg().Query as unknown as new (text: string) => object;
  const probe = new Base('select 1') as Partial<QueryInternals>;
  const proto = Base.prototype as Record<string, unknown>;
  const usable =
    probe.text === 'select 1' &&
    Array.isArray(probe._result?.rows) &&
    probe._result?.command === null &&
    '_canceledDueToError' in probe &&
    typeof proto['handleRowDescription'] === 'function' &&
    typeof proto['handleDataRow'] === 'function';
  directQueryClass = usable ? defineDirectQuery(Base) : null;
  return directQueryClass;
}

function defineDirectQuery(Base: new (text: string) => object): DirectQueryClass {
  const baseRowDescription = Base.prototype['handleRowDescription' as keyof object] as (this: object, msg: unknown) => void;
  const baseDataRow = Base.prototype['handleDataRow' as keyof object] as (this: object, msg: unknown) => void;
  class DirectQuery extends Base {
    private build: RowBuilder | null = null;
    private readonly shapes: RowShapes;

    constructor(text: string, values: unknown[], name: string | undefined, shapes: RowShapes, callback: Callback) {
      // A text, not a config object: node-postgres copies a config object property by property.
      super(text);
      const self = this as unknown as QueryInternals;
      self.values = values;
      self.name = name;
      self.callback = callback;
      this.shapes = shapes;
    }

    handleRowDescription(msg: { fields: FieldDescription[] }): void {
      const self = this as unknown as QueryInternals;
      const result = self._result;
      // A second result (several statements in one text) goes node-postgres' way.
      this.build = result.command === null ? this.shapes.builderFor(self.text, msg.fields) : null;
      if (this.build === null) baseRowDescription.call(this, msg);
      else result.fields = msg.fields;
    }

    handleDataRow(msg: { fields: (string | null)[] }): void {
      const build = this.build;
      if (build === null) {
        baseDataRow.call(this, msg);
        return;
      }
      const self = this as unknown as QueryInternals;
      if (self._canceledDueToError) return;
      let row: Record<string, unknown>;
      try {
        row = build(msg.fields);
      } catch (err) {
        // As node-postgres: a type parser's error fails the query once the server is ready again.
        self._canceledDueToError = err;
        return;
      }
      self._result.rows.push(row);
    }
  }
  return DirectQuery as unknown as DirectQueryClass;
}

/**
 * The query to hand `client.query` for `text` (prepared under `name` when
 * given), answering `callback`; `null` when this node-postgres needs a
 * config object instead.
 */
export function createQuery(text: string, values: unknown[], name: string | undefined, shapes: RowShapes, callback: Callback): pg.Submittable | null {
  const DirectQuery = queryClass();
  return DirectQuery === null ? null : new DirectQuery(text, values, name, shapes, callback);
}
