import {
  AliasNode,
  expressionBuilder,
  ColumnNode,
  IdentifierNode,
  ReferenceNode,
  SelectAllNode,
  SelectQueryNode,
  sql,
  TableNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { isPostgresQuery, type AnyQuery } from '../filters/base.js';

/** One table (or derived table) of a query's FROM and JOINs. */
export interface QuerySource {
  /** The name that qualifies its columns: the alias, else the table name. */
  readonly name: string;
  /** The table in the catalogue (`null` for a derived table). */
  readonly table: string | null;
  /** Its columns; `null` when they cannot be known (no such table yet, a CTE, raw SQL). */
  readonly columns: readonly string[] | null;
}

/** What a select query reads and returns, as far as it can be known without running it. */
export interface QueryColumns {
  readonly sources: readonly QuerySource[];
  /** The names of the columns each row has; `null` when one of them cannot be known. */
  readonly output: readonly string[] | null;
}

/** The columns of a table (`null`: not in the catalogue, or the catalogue could not be read). */
export type ColumnLookup = (schema: string | null, table: string) => Promise<readonly string[] | null>;

/**
 * The sources and output columns of a Kysely select builder: tables come
 * from the database's catalogue (through `lookup`), derived tables
 * (`selectFrom(sub.as('t'))`) from their own selections, recursively.
 * Whatever is not plain (raw SQL, a CTE, an unnamed expression) is `null`,
 * so a caller checks only what is known.
 */
export async function describeQuery(node: SelectQueryNode, lookup: ColumnLookup, ctes: ReadonlySet<string> = new Set()): Promise<QueryColumns> {
  const withNames = new Set(ctes);
  for (const cte of node.with?.expressions ?? []) withNames.add(cte.name.table.table.identifier.name);
  const sources: QuerySource[] = [];
  for (const from of [...(node.from?.froms ?? []), ...(node.joins ?? []).map((j) => j.table)]) {
    sources.push(await describeSource(from, lookup, withNames));
  }
  let output: string[] | null = [];
  for (const selection of node.selections ?? []) {
    const names = selectionNames(selection.selection, sources);
    if (names === null) {
      output = null;
      break;
    }
    output.push(...names);
  }
  return { sources, output };
}

async function describeSource(node: OperationNode, lookup: ColumnLookup, ctes: ReadonlySet<string>): Promise<QuerySource> {
  let alias: string | null = null;
  let inner = node;
  if (AliasNode.is(node) && IdentifierNode.is(node.alias)) {
    alias = node.alias.name;
    inner = node.node;
  }
  if (TableNode.is(inner)) {
    const table = inner.table.identifier.name;
    const schema = inner.table.schema?.name ?? null;
    const columns = schema === null && ctes.has(table) ? null : await lookup(schema, table);
    return { name: alias ?? table, table, columns };
  }
  if (SelectQueryNode.is(inner) && alias !== null) {
    const described = await describeQuery(inner, lookup, ctes);
    return { name: alias, table: null, columns: described.output };
  }
  return { name: alias ?? '', table: null, columns: null };
}

/** The output names of one selection, or `null` when unknowable. */
function selectionNames(selection: OperationNode, sources: readonly QuerySource[]): string[] | null {
  if (AliasNode.is(selection)) return IdentifierNode.is(selection.alias) ? [selection.alias.name] : null;
  if (SelectAllNode.is(selection)) return allColumns(sources);
  if (ColumnNode.is(selection)) return [selection.column.name];
  if (ReferenceNode.is(selection)) {
    if (ColumnNode.is(selection.column)) return [selection.column.column.name];
    if (SelectAllNode.is(selection.column)) {
      const table = selection.table?.table.identifier.name;
      const source = sources.find((s) => s.name === table);
      return source?.columns ? [...source.columns] : null;
    }
  }
  return null;
}

function allColumns(sources: readonly QuerySource[]): string[] | null {
  const out: string[] = [];
  for (const s of sources) {
    if (s.columns === null) return null;
    out.push(...s.columns);
  }
  return out;
}

/**
 * Reads a table's columns from the catalogue on the builder's own
 * connection (its executor runs the catalogue query in place of the
 * builder's), so a view whose builder comes from another database than the
 * app's is checked against the right one. SQLite: `pragma_table_info`;
 * PostgreSQL: `pg_attribute` of the relation `to_regclass` finds on the
 * search path. An unreadable catalogue answers `null` (nothing is checked).
 */
export async function catalogueColumns(qb: AnyQuery, schema: string | null, table: string): Promise<readonly string[] | null> {
  const postgres = isPostgresQuery(qb);
  // Kysely lets a plugin swap a select only for another select: built here, without an executor.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const eb = expressionBuilder<any, never>();
  const query = postgres
    ? eb
        .selectFrom('pg_attribute as a')
        .select(sql<string>`a.attname`.as('name'))
        .where(sql<boolean>`a.attrelid = to_regclass(${quoteName(schema, table)}) and a.attnum > 0 and not a.attisdropped`)
        .orderBy(sql`a.attnum`)
    : eb
        .selectFrom((schema === null ? sql`pragma_table_info(${table})` : sql`pragma_table_info(${table}, ${schema})`).as('p'))
        .select(sql<string>`p.name`.as('name'))
        .orderBy(sql`p.cid`);
  try {
    const rows = (await qb.withPlugin(new RunInstead(query.toOperationNode())).execute()) as { name?: unknown }[];
    const names = rows.map((r) => r.name).filter((n): n is string => typeof n === 'string');
    return names.length > 0 ? names : null;
  } catch {
    return null;
  }
}

function quoteName(schema: string | null, table: string): string {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return schema === null ? q(table) : `${q(schema)}.${q(table)}`;
}

/** A plugin that makes a builder's executor run another statement. */
class RunInstead implements KyselyPlugin {
  constructor(private readonly node: RootOperationNode) {}
  transformQuery(_args: PluginTransformQueryArgs): RootOperationNode {
    return this.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
