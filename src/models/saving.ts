import type { Kysely } from 'kysely';
import type { ApiRequest } from '../request.js';
import type { AnyModel } from './model.js';
import type { DeferredLookups } from '../serializers/deferred-lookups.js';

/** What a model serializer's writes and a model view's reads receive besides the data. */
export interface SaveContext {
  readonly request: ApiRequest | null;
}

/**
 * What a model view needs from its serializer to write and to render rows
 * without a `perform*` of its own (DRF's `ModelSerializer.save()` split into
 * `create` and `update`). Both run on the connection they are given, which
 * the view opens as one transaction per request (unless `writesOneStatement`
 * says it needs none): a query on the app's `db`
 * instead would wait forever on SQLite (one connection, held by the
 * transaction) and miss the transaction's rows on PostgreSQL.
 */
export interface ModelSaving<Row = Record<string, unknown>> {
  readonly model: AnyModel;
  /** Inserts the validated data (and the many-to-many rows) and returns the new row. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  create(db: Kysely<any>, data: Record<string, unknown>, ctx: SaveContext): Promise<Row>;
  /**
   * `create` without a promise where the database answers at once; a model
   * view calls it instead of `create` when `writesOneStatement` says `create`
   * is the serializer's own (and `updateNow` instead of `update` likewise).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createNow?(db: Kysely<any>, data: Record<string, unknown>, ctx: SaveContext): Row | Promise<Row>;
  /** Writes the validated data (only the fields given, for PATCH) to `instance`'s row and returns the row as stored. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  update(db: Kysely<any>, instance: Row, data: Record<string, unknown>, ctx: SaveContext): Promise<Row>;
  /** `update` without a promise where the database answers at once, as `createNow`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  updateNow?(db: Kysely<any>, instance: Row, data: Record<string, unknown>, ctx: SaveContext): Row | Promise<Row>;
  /**
   * The relations the representation reads: to-one fields rendered nested
   * (`depth`) under `selectRelated`, many-to-many fields under
   * `prefetchRelated`. A model view loads them for a whole page in one
   * query per relation and attaches them to the rows under the field's name.
   */
  relatedToLoad(): { selectRelated: readonly string[]; prefetchRelated: readonly string[] };
  /**
   * True when `create` (or `update`) of `data` writes a single statement
   * and nothing else (reads after it aside). A model view then runs it on the
   * app's database without a transaction of its own: one statement is
   * atomic by itself, and the transaction's `BEGIN` and `COMMIT` cost more
   * than the write (on PostgreSQL two more round trips). Absent or `false`:
   * the view opens one transaction.
   */
  writesOneStatement?(method: 'create' | 'update', data: Record<string, unknown>): boolean;
  /**
   * The related rows a create on `db` may leave to the insert (see
   * src/serializers/deferred-lookups.ts), or `undefined`: asked by a
   * model view's own `create` before it validates.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  lookupsLeftToInsert?(db: Kysely<any>): DeferredLookups | undefined;
}

/** True when `value` offers `create`, `update` and `relatedToLoad` for `model` views. */
export function isModelSaving(value: unknown): value is ModelSaving {
  const v = value as Partial<ModelSaving> | null;
  return !!v && typeof v.create === 'function' && typeof v.update === 'function' && typeof v.relatedToLoad === 'function' && !!v.model;
}
