import type { Kysely } from 'kysely';
import { createModel, type AnyModel, type ProjectState } from '../../src/models/index.js';

/**
 * Creates the models' tables by applying each one's `createModel` operation
 * directly, in order (the migrator's introspection would read every schema
 * of the server).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function createModelTables(db: Kysely<any>, models: readonly AnyModel[]): Promise<void> {
  let state: ProjectState = {};
  for (const m of models) {
    const op = createModel(m.tableName, m.fields, m.meta);
    const after = op.stateForwards(state);
    await op.up(db, state, after);
    state = after;
  }
}
