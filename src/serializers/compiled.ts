import type { ErrorDetail } from '../exceptions.js';
import { FieldError, type Field, type FieldContext, type FieldFlags } from './field.js';
import { CharField, DateTimeField, IntegerField, canonicalUtc } from './fields.js';
import { HyperlinkedIdentityField, HyperlinkedRelatedField, linkTemplate, linkTurn } from './relations.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = Field<any, any, FieldFlags>;

/** A rendered field of a serializer: its name, the field, and the attribute path it reads (`null`: the instance itself). */
export type ReadableField = readonly [name: string, field: AnyField, path: readonly string[] | null];

/**
 * Goes on from field `start` the generic way, the representations of the
 * fields before it being `done`: where an attribute is missing (a default,
 * `null`, a key left out, or DRF's error).
 */
export type FinishRepresentation = (instance: unknown, ctx: FieldContext, start: number, done: readonly unknown[]) => Record<string, unknown>;

export type CompiledRepresentation = (instance: unknown, ctx: FieldContext) => Record<string, unknown>;

type Make = (F: readonly AnyField[], finish: FinishRepresentation, link: typeof linkTemplate, turn: typeof linkTurn, utc: typeof canonicalUtc) => CompiledRepresentation;

/**
 * Compiled makers by their source, shared by the serializers whose fields
 * read and convert alike (each gets its own fields), so a serializer
 * declared again is not compiled again.
 */
const makers = new Map<string, Make>();
const MAX_MAKERS = 500;

/**
 * The maker of a compiled function (`fn`, its name and parameters, with
 * `source` as its body), taking `params` and giving the fields `F` to the
 * body as `f0`, `f1`, …: from `cache` when a serializer compiled the same
 * source before, else made and kept. `null` when code generation from
 * strings is turned off.
 */
export function makerOf<M>(cache: Map<string, M>, params: readonly string[], fields: number, fn: string, source: string): M | null {
  let make = cache.get(source);
  if (make === undefined) {
    const consts = Array.from({ length: fields }, (_, i) => `const f${i} = F[${i}];`).join('\n');
    try {
      make = new Function(...params, `${consts}\nreturn function ${fn} {\n${source}\n};`) as M;
    } catch {
      // --disallow-code-generation-from-strings
      return null;
    }
    if (cache.size >= MAX_MAKERS) cache.clear();
    cache.set(source, make);
  }
  return make;
}

/** Past this many fields the generic loop is kept (the compiled source grows with the square of the count). */
const MAX_COMPILED_FIELDS = 64;

/**
 * A serializer's `toRepresentation` compiled for its fields: each attribute
 * read with a constant name, each field's conversion at a call site of its
 * own (so V8 sees one kind of field there, not every kind through one loop),
 * integers, strings, stored UTC times and integer hyperlinks converted in
 * line, and the result an object literal of one fixed shape, in the fields'
 * order. It gives what
 * the generic loop gives, value for value and key for key: a field whose
 * attribute is missing hands over to the generic loop from that field on
 * (`finish`), with the representations already made. `null` when the
 * fields cannot be compiled (too many, a `__proto__` field, or code
 * generation from strings turned off).
 */
export function compileRepresentation(readable: readonly ReadableField[], finish: FinishRepresentation): CompiledRepresentation | null {
  if (readable.length > MAX_COMPILED_FIELDS) return null;
  const lines: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < readable.length; i++) {
    const [name, field, path] = readable[i]!;
    if (name === '__proto__') return null;
    lines.push(`v = instance;`);
    for (const part of path ?? []) lines.push(`v = v === null || v === undefined ? v : v[${JSON.stringify(part)}];`);
    lines.push(`if (v === undefined) return finish(instance, ctx, ${i}, [${keys.map((_, j) => `o${j}`).join(', ')}]);`);
    lines.push(`let o${i};`, `if (v === null) o${i} = null;`, ...conversion(field, i));
    keys.push(`${JSON.stringify(name)}: o${i}`);
  }
  const source = [
    '"use strict";',
    'let v, k, t;',
    ...lines,
    `return { ${keys.join(', ')} };`,
  ].join('\n');
  const make = makerOf(makers, ['F', 'finish', 'link', 'turn', 'utc'], readable.length, 'representation(instance, ctx)', source);
  if (make === null) return null;
  return make(
    readable.map(([, field]) => field),
    finish,
    linkTemplate,
    linkTurn,
    canonicalUtc,
  );
}

/** The statements giving `o<i>` from a value `v` neither null nor undefined, as `field.toRepresentation(v, ctx)`. */
function conversion(field: AnyField, i: number): string[] {
  const f = `f${i}`;
  const o = `o${i}`;
  const generic = `${o} = ${f}.toRepresentation(v, ctx);`;
  if (field.toRepresentation === IntegerField.prototype.toRepresentation) {
    return [`else if (typeof v === "number") ${o} = Math.trunc(v);`, `else ${generic}`];
  }
  if (field.toRepresentation === CharField.prototype.toRepresentation) {
    return [`else if (typeof v === "string") ${o} = v;`, `else ${generic}`];
  }
  if (field.toRepresentation === DateTimeField.prototype.toRepresentation) {
    // Stored text already in UTC (see `canonicalUtc`).
    return [`else if (typeof v === "string" && (t = utc(v)) !== null) ${o} = t;`, `else ${generic}`];
  }
  if (field instanceof HyperlinkedIdentityField && field.toRepresentation === HyperlinkedIdentityField.prototype.toRepresentation) {
    // The key: the lookup attribute of the instance, or the value itself.
    return [
      `else {`,
      `  k = typeof v === "object" ? v[${JSON.stringify(field.link.lookupField)}] : v;`,
      `  if (${integerLink('k', f)}) ${o} = t[0] + k + t[1];`,
      `  else ${generic}`,
      `}`,
    ];
  }
  if (field instanceof HyperlinkedRelatedField && field.toRepresentation === HyperlinkedRelatedField.prototype.toRepresentation) {
    // A number is the key itself (a foreign-key column).
    return [`else if (${integerLink('v', f)}) ${o} = t[0] + v + t[1];`, `else ${generic}`];
  }
  return [`else ${generic}`];
}

/**
 * The condition under which `hyperlink` puts key `k` in its field's
 * template, with the template in `t`: the one made in this request's turn,
 * else `linkTemplate`'s.
 */
function integerLink(k: string, f: string): string {
  return (
    `typeof ${k} === "number" && ${k} >= 0 && Number.isSafeInteger(${k}) && typeof ${f}.link.viewName === "string" && ctx.request && ` +
    `(${f}.linkSlot.turn === turn.turn && turn.request === ctx.request ? (t = ${f}.linkSlot.template) : (t = link(${f}.link, ${f}.linkSlot, ctx.request))) !== null`
  );
}

/** A writable field of a serializer: its name and the field. */
export type WritableField = readonly [name: string, field: AnyField];

/**
 * Goes on from writable field `i`, whose converted value `pending` (maybe a
 * promise) and validators are awaited, with the fields before it done
 * (`out`, `errors`): where a field waits.
 */
export type InternalLater = (
  input: Record<string, unknown>,
  ctx: FieldContext,
  i: number,
  pending: unknown,
  out: Record<string, unknown>,
  errors: Record<string, ErrorDetail>,
) => Promise<unknown>;

export type CompiledInternal = (input: Record<string, unknown>, ctx: FieldContext) => unknown;

type MakeInternal = (F: readonly AnyField[], later: InternalLater, fieldError: typeof FieldError, hasOwn: typeof Object.hasOwn) => CompiledInternal;

const internalMakers = new Map<string, MakeInternal>();

/**
 * A serializer's validation of a body's fields (its `toInternal` on a dict)
 * compiled for its writable fields, as `compileRepresentation` is for its
 * output: each value read with a constant name, each field's `toInternal`
 * called at a site of its own, the validated data built with constant keys
 * in the fields' order. It gives what the generic loop gives, key for key
 * and message for message; the first field whose value is a promise or that
 * has validators hands over to `later`, which goes on the generic way.
 * `null` when the fields cannot be compiled (too many, a `__proto__` field,
 * or code generation from strings turned off).
 */
export function compileInternal(writable: readonly WritableField[], later: InternalLater): CompiledInternal | null {
  if (writable.length > MAX_COMPILED_FIELDS) return null;
  const lines: string[] = [];
  for (let i = 0; i < writable.length; i++) {
    const name = writable[i]![0];
    if (name === '__proto__') return null;
    const k = JSON.stringify(name);
    const f = `f${i}`;
    lines.push(
      `g = hasOwn(input, ${k}) ? input[${k}] : undefined;`,
      `if (g === undefined) {`,
      `  if (!partial) {`,
      `    if (${f}.hasDefault) out[${k}] = ${f}.getDefault();`,
      `    else if (${f}.required) (errors ??= {})[${k}] = [${f}.message("required")];`,
      `  }`,
      `} else if (g === null) {`,
      `  if (${f}.allowNull) out[${k}] = null;`,
      `  else (errors ??= {})[${k}] = [${f}.message("null")];`,
      `} else {`,
      `  ok = true;`,
      `  try { v = ${f}.toInternal(g, ctx); } catch (e) { if (!(e instanceof FieldError)) throw e; (errors ??= {})[${k}] = e.detail; ok = false; }`,
      `  if (ok) {`,
      // isThenable, written out: this site's own read of \`then\` sees this field's values only.
      `    if ((typeof v === "object" && v !== null ? v instanceof Promise || typeof v.then === "function" : typeof v === "function" && typeof v.then === "function") || ${f}.validators.length > 0) {`,
      `      return later(input, ctx, ${i}, v, out, errors ?? {});`,
      `    }`,
      `    out[${k}] = v;`,
      `  }`,
      `}`,
    );
  }
  const source = [
    '"use strict";',
    'const out = {};',
    'const partial = ctx.partial;',
    'let g, v, ok, errors = null;',
    ...lines,
    'if (errors !== null) throw new FieldError(errors);',
    'return out;',
  ].join('\n');
  const make = makerOf(internalMakers, ['F', 'later', 'FieldError', 'hasOwn'], writable.length, 'internal(input, ctx)', source);
  if (make === null) return null;
  return make(
    writable.map(([, field]) => field),
    later,
    FieldError,
    Object.hasOwn,
  );
}
