import type { Kysely, Migration } from 'kysely';
import type { Operation } from './operations.js';
import { EMPTY_STATE, type ProjectState } from './state.js';

/** What a migration file declares. */
export interface ModelMigrationOptions {
  /** Migrations this one needs applied first, by name (recorded; the migrator applies in name order). */
  dependencies?: readonly string[];
  operations: readonly Operation[];
}

/**
 * A migration made of operations: `export default migration({ operations: [createModel(…)] })`.
 * It is a Kysely `Migration` once `bindModelMigrations` has given it the
 * state the earlier migrations build; `migrate` does that for a project's
 * migrations, beside which hand-written `{ up(db), down(db) }` keep working.
 */
export class ModelMigration implements Migration {
  readonly dependencies: readonly string[];
  readonly operations: readonly Operation[];

  constructor(options: ModelMigrationOptions, private readonly before: ProjectState | null = null) {
    this.dependencies = Object.freeze([...(options.dependencies ?? [])]);
    this.operations = Object.freeze([...options.operations]);
  }

  /** The same migration, run from `state` (the state its predecessors build). */
  from(state: ProjectState): ModelMigration {
    return new ModelMigration({ dependencies: this.dependencies, operations: this.operations }, state);
  }

  /** The state after this migration, given the state before it. */
  stateForwards(state: ProjectState): ProjectState {
    return this.operations.reduce((s, op) => op.stateForwards(s), state);
  }

  // Own properties, not methods: Kysely's migrator copies a migration's own properties.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly up = async (db: Kysely<any>): Promise<void> => {
    let state = this.requireState();
    for (const op of this.operations) {
      const after = op.stateForwards(state);
      await op.up(db, state, after);
      state = after;
    }
  };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly down = async (db: Kysely<any>): Promise<void> => {
    const states: ProjectState[] = [this.requireState()];
    for (const op of this.operations) states.push(op.stateForwards(states[states.length - 1]!));
    for (let i = this.operations.length - 1; i >= 0; i--) await this.operations[i]!.down(db, states[i]!, states[i + 1]!);
  };

  private requireState(): ProjectState {
    if (!this.before) throw new Error('A model migration runs through migrate(), which replays the migrations before it.');
    return this.before;
  }
}

/** Declares a migration made of operations (a generated migration file's default export). */
export function migration(options: ModelMigrationOptions): ModelMigration {
  return new ModelMigration(options);
}

/**
 * The state the model migrations among `migrations` build, replayed in name
 * order in memory (no database); hand-written migrations add nothing to it.
 */
export function stateOf(migrations: Record<string, Migration>, upTo?: string): ProjectState {
  let state = EMPTY_STATE;
  for (const name of Object.keys(migrations).sort()) {
    if (upTo !== undefined && name > upTo) break;
    const m = migrations[name];
    if (m instanceof ModelMigration) state = m.stateForwards(state);
  }
  return state;
}

/** Gives every model migration the state its predecessors (in name order) build. */
export function bindModelMigrations(migrations: Record<string, Migration>): Record<string, Migration> {
  if (!Object.values(migrations).some((m) => m instanceof ModelMigration)) return migrations;
  let state = EMPTY_STATE;
  const out: Record<string, Migration> = {};
  for (const name of Object.keys(migrations).sort()) {
    const m = migrations[name]!;
    if (m instanceof ModelMigration) {
      out[name] = m.from(state);
      state = m.stateForwards(state);
    } else out[name] = m;
  }
  return out;
}
