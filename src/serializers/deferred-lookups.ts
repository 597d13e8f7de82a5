/**
 * Related rows a model view's create leaves to the database's foreign key.
 *
 * DRF validates `{"author": ".../authors/7/"}` by reading author 7, then
 * inserts the book, whose foreign key makes the database check author 7
 * again. Where nothing but the insert ever sees the validated author — the
 * model view's own `create`, `validate` and `performCreate`, the model
 * serializer's own `validate`, `create` and `createNow`, no
 * serializer-level validators but unique-together ones (they compare the
 * key), no many-to-many field, the field built by the model serializer with
 * its default queryset (every row of the target) and no validators of its
 * own — a create on SQLite lets the constraint answer alone: the field's
 * value is the row's key (`{ id: 7 }`, all `create` reads of it), and the
 * read the field would have made is kept here. It runs, as the field would
 * have run it, whenever anything refuses the request before the row is
 * written — another field, a serializer-level validator, or the insert's
 * foreign key — so the response is DRF's in every case: the field's own
 * `does_not_exist` message among the other fields' errors, in field order.
 *
 * Only where the database really checks: SQLite with `PRAGMA foreign_keys`
 * on for the connection (a statement outside a transaction is checked when
 * it ends, deferrable or not), the column declared `REFERENCES` the
 * target's key — both read from the connection, again after any statement
 * that could change them (`ForeignKeyFacts`) — and an integer key given in
 * its canonical form. PostgreSQL keeps the read: a refused insert there has
 * used a value of the table's sequence, and the next book's id would differ
 * from DRF's. See docs/decisions.md, "A create's related rows left to the
 * foreign key (SQLite)".
 */
import type { Kysely } from 'kysely';
import { constraintViolation } from '../db/constraint-errors.js';
import { foreignKeyFactsOf, isOwnExecutor, type ForeignKeyFacts } from '../db/direct.js';
import { ValidationError, type ErrorDetail } from '../exceptions.js';
import { isThenable } from '../utils/thenable.js';
import { FieldError } from './field.js';

/** A related field the model serializer built on a foreign key: its column and what the column refers to. */
export interface ForeignKeyTarget {
  readonly column: string;
  readonly table: string;
  readonly key: string;
}

/** The lookup a field left, under the field's name in its serializer. */
interface LeftLookup {
  readonly name: string;
  readonly check: () => unknown;
}

type Fail = (err: unknown) => never;

/** One create's lookups left to the insert (see the module's comment). */
export class DeferredLookups {
  private readonly left: LeftLookup[] = [];

  /** `fields`: the serializer's fields that may leave their lookup, by the name each has there. */
  constructor(private readonly fields: ReadonlyMap<object, string>) {}

  /**
   * Keeps `check` (the lookup `field` would have made, throwing its
   * `FieldError` when there is no such row) when `field` may leave it;
   * false when it must look now.
   */
  leave(field: object, check: () => unknown): boolean {
    const name = this.fields.get(field);
    if (name === undefined) return false;
    this.left.push({ name, check });
    return true;
  }

  /** Whether any lookup was left. */
  get pending(): boolean {
    return this.left.length > 0;
  }

  /**
   * The fields' validation failed (a `FieldError` of a field map): the
   * lookups left run too, and their errors join the others in `order`
   * (the serializer's fields), as DRF reports them together.
   */
  fieldsFailed(err: unknown, order: readonly string[], failed: Fail): never | Promise<never> {
    if (!(err instanceof FieldError) || !this.pending || !isErrorMap(err.detail)) return failed(err);
    const detail = err.detail;
    return afterLookups(this.run(), (more) => failed(new FieldError(inOrder(order, detail, more))));
  }

  /**
   * A serializer-level validator refused: DRF never runs those when a
   * field failed, so a lookup that fails now answers alone.
   */
  validatorsFailed(err: unknown, failed: Fail): never | Promise<never> {
    if (!this.pending) return failed(err);
    return afterLookups(this.run(), (more) => failed(Object.keys(more).length > 0 ? new FieldError(more) : err));
  }

  /**
   * The insert failed: a foreign key's refusal is the fields' own
   * `does_not_exist` once their lookups run; any other error (or a refusal
   * no lookup explains) is thrown as it came.
   */
  insertFailed(err: unknown): never | Promise<never> {
    if (!this.pending || constraintViolation(err)?.kind !== 'foreign_key') throw err;
    return afterLookups(this.run(), (more) => {
      if (Object.keys(more).length === 0) throw err;
      throw new ValidationError(more);
    });
  }

  /** Runs each lookup left, once: the errors by field name, in the order the fields were validated. */
  private run(): Record<string, ErrorDetail> | Promise<Record<string, ErrorDetail>> {
    const left = this.left.splice(0);
    const errors: Record<string, ErrorDetail> = {};
    const waiting: Promise<void>[] = [];
    const failedWith = (name: string, err: unknown) => {
      if (!(err instanceof FieldError)) throw err;
      errors[name] = err.detail;
    };
    for (const { name, check } of left) {
      try {
        const found = check();
        if (isThenable(found)) waiting.push(Promise.resolve(found).then(() => undefined, (err: unknown) => failedWith(name, err)));
      } catch (err) {
        failedWith(name, err);
      }
    }
    if (waiting.length === 0) return errors;
    // Keys in field order, whichever lookup answered first.
    return Promise.all(waiting).then(() => inOrder(left.map((l) => l.name), {}, errors));
  }
}

function afterLookups<R>(errors: Record<string, ErrorDetail> | Promise<Record<string, ErrorDetail>>, then: (errors: Record<string, ErrorDetail>) => R): R | Promise<R> {
  return isThenable(errors) ? errors.then(then) : then(errors);
}

function isErrorMap(detail: ErrorDetail): detail is Record<string, ErrorDetail> {
  return detail !== null && typeof detail === 'object' && !Array.isArray(detail);
}

/** `a` and `b` merged, keys in `order` first (then any others of `a`, then of `b`). */
function inOrder(order: readonly string[], a: Record<string, ErrorDetail>, b: Record<string, ErrorDetail>): Record<string, ErrorDetail> {
  const out: Record<string, ErrorDetail> = {};
  for (const name of order) {
    if (Object.hasOwn(a, name)) out[name] = a[name]!;
    else if (Object.hasOwn(b, name)) out[name] = b[name]!;
  }
  for (const name in a) if (!Object.hasOwn(out, name)) out[name] = a[name]!;
  for (const name in b) if (!Object.hasOwn(out, name)) out[name] = b[name]!;
  return out;
}

/** A key as the integer a lookup by it would find, when given in its canonical form; else `null`. */
export function integerKey(key: unknown): number | null {
  if (typeof key === 'number') return Number.isSafeInteger(key) ? key : null;
  if (typeof key === 'string' && key.length <= 15 && /^(?:0|-?[1-9][0-9]*)$/.test(key)) return Number(key);
  return null;
}

// ------------------------------------------------------------------ where the database checks

type Candidates = ReadonlyMap<{ readonly validators: readonly unknown[] }, { readonly name: string; readonly key: ForeignKeyTarget }>;

/** What `checkedByDatabase` concluded for a serializer's candidates, and from which answers. */
interface Concluded {
  readonly facts: ForeignKeyFacts;
  readonly version: number;
  readonly fields: ReadonlyMap<object, string> | null;
}
const concluded = new WeakMap<Candidates, Concluded>();

/**
 * The fields of `candidates` (field → its name and foreign key), those
 * without validators of their own, whose key `table` declares on `db`'s own
 * SQLite connection with foreign keys enforced; `null` when none, or not
 * here (PostgreSQL, a transaction's or a plug-in's executor, keys not
 * enforced). Worked out again only when the connection's answers may have
 * changed (`ForeignKeyFacts.version`).
 */
export function checkedByDatabase(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  table: string,
  candidates: Candidates,
): ReadonlyMap<object, string> | null {
  const executor = db.getExecutor();
  if (!isOwnExecutor(executor) || executor.plugins.length > 0) return null;
  const facts = foreignKeyFactsOf(executor);
  if (facts === undefined || !facts.enforced()) return null;
  const last = concluded.get(candidates);
  if (last !== undefined && last.facts === facts && last.version === facts.version() && stillWithoutValidators(last.fields)) return last.fields;
  const fields = fieldsChecked(facts.declared(table), candidates);
  concluded.set(candidates, { facts, version: facts.version(), fields });
  return fields;
}

function fieldsChecked(keys: ReadonlySet<string>, candidates: Candidates): ReadonlyMap<object, string> | null {
  if (keys.size === 0) return null;
  const fields = new Map<object, string>();
  for (const [field, { name, key }] of candidates) {
    // A validator of the field's own would see the key alone.
    if (field.validators.length > 0) continue;
    const target = `${key.column}>${key.table.toLowerCase()}.`;
    if (keys.has(target + key.key) || keys.has(`${target}*`)) fields.set(field, name);
  }
  return fields.size > 0 ? fields : null;
}

/** Whether no field of `fields` has been given a validator since. */
function stillWithoutValidators(fields: ReadonlyMap<object, string> | null): boolean {
  if (fields === null) return true;
  for (const field of fields.keys()) if ((field as { validators: readonly unknown[] }).validators.length > 0) return false;
  return true;
}
