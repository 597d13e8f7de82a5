/**
 * Related rows a model view's create leaves to the insert: to its foreign
 * key (SQLite), or to a guard in the insert itself (PostgreSQL).
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
 * On SQLite only where the database really checks: `PRAGMA foreign_keys`
 * on for the connection (a statement outside a transaction is checked when
 * it ends, deferrable or not), the column declared `REFERENCES` the
 * target's key — both read from the connection, again after any statement
 * that could change them (`ForeignKeyFacts`) — and an integer key given in
 * its canonical form. On PostgreSQL a refused insert would have used a
 * value of the table's sequence (the next book's id would differ from
 * DRF's), so the insert checks the row itself instead: `INSERT … SELECT …
 * WHERE EXISTS (SELECT 1 FROM author WHERE id = 7)` writes nothing and
 * takes no sequence value when author 7 is missing (`insertGuards`), and
 * the lookups left then run as above. See docs/decisions.md, "A create's
 * related rows left to the foreign key (SQLite)" and "A create's related
 * rows checked by the insert itself (PostgreSQL)".
 */
import { PostgresAdapter, type Kysely } from 'kysely';
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

/** A serializer's related fields that may leave their lookup: field → its name there and its foreign key. */
type Candidates = ReadonlyMap<{ readonly validators: readonly unknown[] }, { readonly name: string; readonly key: ForeignKeyTarget }>;

/** The lookup a field left, under the field's name in its serializer. */
interface LeftLookup {
  readonly name: string;
  readonly check: () => unknown;
}

type Fail = (err: unknown) => never;

/** A related row the insert itself must find (PostgreSQL): `table.key = id`. */
export interface InsertGuard {
  readonly table: string;
  readonly key: string;
  readonly id: number;
}

/** The related rows (`{ id: 7 }`) whose lookup was left to a guarded insert, and what the insert must find. */
const unchecked = new WeakMap<object, InsertGuard>();

/** The insert's guard found a related row missing: nothing was written (see `insertGuards`). */
export class RelatedRowMissing extends Error {
  constructor() {
    super('A related row the insert requires does not exist.');
    this.name = 'RelatedRowMissing';
  }
}

/** PostgreSQL's `integer`: a key outside it is looked up now, as before (the insert would refuse it with another error). */
const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;

/** One create's lookups left to the insert (see the module's comment). */
export class DeferredLookups {
  private readonly left: LeftLookup[] = [];

  /**
   * `fields`: the serializer's fields that may leave their lookup, with the
   * name each has there and its foreign key; `guarded`: the insert must
   * check the rows itself (PostgreSQL), not its foreign key.
   */
  constructor(
    private readonly fields: Candidates,
    private readonly guarded = false,
  ) {}

  /**
   * Keeps `check` (the lookup `field` would have made, throwing its
   * `FieldError` when there is no such row) when `field` may leave it, its
   * value being `row` (the key `id` alone); false when it must look now.
   */
  leave(field: object, id: number, row: object, check: () => unknown): boolean {
    const found = this.fields.get(field as never);
    if (found === undefined) return false;
    if (this.guarded) {
      if (id < INT4_MIN || id > INT4_MAX) return false;
      unchecked.set(row, { table: found.key.table, key: found.key.key, id });
    }
    this.left.push({ name: found.name, check });
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
   * The insert failed: a foreign key's or the guard's refusal is the
   * fields' own `does_not_exist` once their lookups run; any other error
   * (or a foreign key's refusal no lookup explains) is thrown as it came.
   * A guard's refusal no lookup explains (the row was added since) is
   * `retry`, the insert again without the guard: DRF's read would have
   * found the row.
   */
  insertFailed<T>(err: unknown, data: Record<string, unknown>, retry: () => T | Promise<T>): T | Promise<T> {
    const guardRefused = err instanceof RelatedRowMissing;
    if (!this.pending || (!guardRefused && constraintViolation(err)?.kind !== 'foreign_key')) throw err;
    return afterLookups(this.run(), (more): T | Promise<T> => {
      if (Object.keys(more).length > 0) throw new ValidationError(more);
      if (!guardRefused) throw err;
      forgetInsertGuards(data);
      return retry();
    }) as T | Promise<T>;
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

/** What `lookupsLeftOn` concluded for a serializer's candidates on SQLite, and from which answers. */
interface Concluded {
  readonly facts: ForeignKeyFacts;
  readonly version: number;
  readonly fields: Candidates | null;
}
const concluded = new WeakMap<Candidates, Concluded>();
/** The same on PostgreSQL, where only the fields' own validators count. */
const guardable = new WeakMap<Candidates, Candidates | null>();

/**
 * The lookups a create on `db` into `table` may leave (see the module's
 * comment), or `undefined`: the fields of `candidates` without validators
 * of their own, on `db`'s own executor (not a transaction's or a plug-in's)
 * — on SQLite those whose key `table` declares, with foreign keys enforced
 * on the connection (worked out again only when its answers may have
 * changed, `ForeignKeyFacts.version`); on PostgreSQL all of them, the
 * insert checking the rows itself.
 */
export function lookupsLeftOn(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  table: string,
  candidates: Candidates,
): DeferredLookups | undefined {
  const executor = db.getExecutor();
  if (!isOwnExecutor(executor) || executor.plugins.length > 0) return undefined;
  if (executor.adapter instanceof PostgresAdapter) {
    let fields = guardable.get(candidates);
    if (fields === undefined || !stillWithoutValidators(fields)) guardable.set(candidates, (fields = withoutValidators(candidates, () => true)));
    return fields === null ? undefined : new DeferredLookups(fields, true);
  }
  const facts = foreignKeyFactsOf(executor);
  if (facts === undefined || !facts.enforced()) return undefined;
  let last = concluded.get(candidates);
  if (last === undefined || last.facts !== facts || last.version !== facts.version() || !stillWithoutValidators(last.fields)) {
    const keys = facts.declared(table);
    const declared = (key: ForeignKeyTarget): boolean => {
      const target = `${key.column}>${key.table.toLowerCase()}.`;
      return keys.has(target + key.key) || keys.has(`${target}*`);
    };
    last = { facts, version: facts.version(), fields: withoutValidators(candidates, declared) };
    concluded.set(candidates, last);
  }
  return last.fields === null ? undefined : new DeferredLookups(last.fields);
}

/** The candidates without validators of their own (one would see the key alone) whose key passes `checked`; `null` when none. */
function withoutValidators(candidates: Candidates, checked: (key: ForeignKeyTarget) => boolean): Candidates | null {
  const fields = new Map<{ readonly validators: readonly unknown[] }, { readonly name: string; readonly key: ForeignKeyTarget }>();
  for (const [field, found] of candidates) if (field.validators.length === 0 && checked(found.key)) fields.set(field, found);
  return fields.size > 0 ? fields : null;
}

/** Whether no field of `fields` has been given a validator since. */
function stillWithoutValidators(fields: Candidates | null): boolean {
  if (fields === null) return true;
  for (const field of fields.keys()) if (field.validators.length > 0) return false;
  return true;
}

// ------------------------------------------------------------------ the insert's guard (PostgreSQL)

/**
 * The rows a create's validated `data` holds whose lookup was left to a
 * guarded insert (`DeferredLookups.leave` on PostgreSQL), or `null`: the
 * insert must write nothing unless each exists.
 */
export function insertGuards(data: Record<string, unknown>): InsertGuard[] | null {
  let guards: InsertGuard[] | null = null;
  for (const key in data) {
    const value = data[key];
    if (value === null || typeof value !== 'object') continue;
    const guard = unchecked.get(value);
    if (guard !== undefined) (guards ??= []).push(guard);
  }
  return guards;
}

/** The related rows of `data` go to a plain insert from now on: their guards are dropped. */
function forgetInsertGuards(data: Record<string, unknown>): void {
  for (const key in data) {
    const value = data[key];
    if (value !== null && typeof value === 'object') unchecked.delete(value);
  }
}
