/**
 * A model serializer's insert parameters built by a function compiled for
 * one shape of validated data: the same keys in the same order, each value
 * of the same kind. The generic way (`ModelSerializer.createNow`) walks the
 * data five times — column names looked up per key, the model's fills, the
 * empty strings, the storable forms, the insert's shape matched column by
 * column — each a property access whose name changes from one iteration to
 * the next (a megamorphic lookup in V8). Compiled, each value is read with a
 * constant name and checked for the kind the insert was compiled for, and
 * anything else (another key, another kind, a value left undefined) hands
 * the request back to the generic way.
 */
import { isoTime } from '../models/column-types.js';
import { makerOf } from './compiled.js';

/** Where one parameter of an insert comes from. */
export type InsertSource =
  /** The validated data's `name`, a related row's `relatedKey` attribute when a relation. */
  | { readonly from: 'data'; readonly name: string; readonly relatedKey: string | null }
  /** Now, as `autoNow`/`autoNowAdd` fill it. */
  | { readonly from: 'now' }
  /** Django's `''` for an omitted string field. */
  | { readonly from: 'empty' };

/** The kind of a parameter, as the insert's compiled SQL was made for it. */
export type ValueKind = 'string' | 'number' | 'bigint' | 'null';

/** The parameters for one shape of data, or `null` when `data` has another shape. */
export type InsertParameters = (data: Record<string, unknown>) => unknown[] | null;

export interface InsertPlan {
  /** The keys that were `undefined` (written as no column): still required to be. */
  readonly absent: readonly string[];
  /** Each parameter's source and kind, in the insert's column order. */
  readonly parameters: readonly (readonly [InsertSource, ValueKind])[];
}

const KIND_CHECK: Record<ValueKind, string> = {
  string: 'typeof x !== "string"',
  number: 'typeof x !== "number"',
  bigint: 'typeof x !== "bigint"',
  null: 'x !== null',
};

/**
 * Compiles `plan` into a function of the data: the parameters in order, as
 * the generic way would bind them (a related row as its key, a boolean as
 * 1/0, a date as its stored text), or `null` when a value is missing or of
 * another kind. `null` when functions cannot be compiled here
 * (`--disallow-code-generation-from-strings`).
 */
export function compileInsertParameters(
  plan: InsertPlan,
  relatedKey: (value: unknown, key: string) => unknown,
  storableValue: (value: unknown) => unknown,
): InsertParameters | null {
  const lines: string[] = ['let x;'];
  for (const key of plan.absent) lines.push(`if (d[${JSON.stringify(key)}] !== undefined) return null;`);
  const names: string[] = [];
  plan.parameters.forEach(([source, kind], i) => {
    switch (source.from) {
      case 'data':
        lines.push(`x = d[${JSON.stringify(source.name)}];`, 'if (x === undefined) return null;');
        if (source.relatedKey !== null) lines.push(`x = K(x, ${JSON.stringify(source.relatedKey)});`);
        break;
      case 'now':
        lines.push('x = N();');
        break;
      case 'empty':
        lines.push('x = "";');
        break;
    }
    lines.push('if (typeof x === "boolean" || x instanceof Date) x = S(x);', `if (${KIND_CHECK[kind]}) return null;`, `const p${i} = x;`);
    names.push(`p${i}`);
  });
  lines.push(`return [${names.join(', ')}];`);
  const make = makerOf(insertMakers, ['K', 'S', 'N'], 0, 'insertParameters(d)', lines.join('\n'));
  return make === null ? null : make(relatedKey, storableValue, now);
}

type MakeInsert = (k: (value: unknown, key: string) => unknown, s: (value: unknown) => unknown, n: () => string) => InsertParameters;
const insertMakers = new Map<string, MakeInsert>();
const now = (): string => isoTime();

/** Whether `data`'s keys (`for…in`, own and inherited) are `keys`, in order. */
export function hasKeys(data: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in data) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}
