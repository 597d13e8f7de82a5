import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
} from 'kysely';
import { parseDatabaseUrl } from '../../db/url.js';
import { ModelMigration, stateOf } from '../../models/migration.js';
import type { Command } from '../command.js';
import { CliError } from '../command.js';
import { resolveDatabaseUrl } from '../context.js';

/**
 * `trestle sqlmigrate [app] <migration> [--backwards]`: the SQL a model
 * migration runs on the configured database's dialect, printed and not
 * run (Django's `sqlmigrate`); no connection is opened.
 */
export const sqlmigrateCommand: Command = {
  name: 'sqlmigrate',
  summary: "Print the SQL a project migration would run on the configured database, without running it.",
  usage: 'sqlmigrate [app] <migration> [--backwards]',
  help: [
    '<migration>      a project migration (a unique prefix is enough, e.g. 0002)',
    '--backwards      the SQL that unapplies it',
  ],
  options: { backwards: { type: 'boolean' } },
  positionals: { min: 1, max: 2 },
  async run(ctx, args) {
    const [label, wanted] = args.positionals.length === 2 ? (args.positionals as [string, string]) : ['app', args.positionals[0]!];
    if (label !== 'app') {
      throw new CliError(
        label === 'trestle' ? 'The framework\'s migrations are hand-written: "sqlmigrate" prints model migrations only.' : `No app with label "${label}": the project's app is "app".`,
      );
    }
    const project = await ctx.project();
    const migrations = project.config.migrations ?? {};
    const names = Object.keys(migrations).sort();
    const exact = names.filter((n) => n === wanted);
    const matches = exact.length > 0 ? exact : names.filter((n) => n.startsWith(wanted));
    if (matches.length === 0) throw new CliError(`Cannot find a migration matching "${wanted}" from app "app".`);
    if (matches.length > 1) throw new CliError(`More than one migration matches "${wanted}" in app "app": ${matches.join(', ')}.`);
    const name = matches[0]!;
    const m = migrations[name];
    if (!(m instanceof ModelMigration)) throw new CliError(`Migration app.${name} is hand-written (up/down code): its SQL is known only by running it.`);

    const dialect = parseDatabaseUrl(resolveDatabaseUrl(ctx.globals, ctx.env, project)).dialect;
    const before = stateOf(Object.fromEntries(names.filter((n) => n < name).map((n) => [n, migrations[n]!])));
    const recorded: CompiledQuery[] = [];
    const db = recordingKysely(dialect, recorded);
    ctx.print('BEGIN;');
    // Each operation's statements under its description, as Django prints them.
    const states = [before];
    for (const op of m.operations) states.push(op.stateForwards(states.at(-1)!));
    const order = args.values['backwards'] ? [...m.operations.keys()].reverse() : [...m.operations.keys()];
    for (const i of order) {
      const op = m.operations[i]!;
      recorded.length = 0;
      if (args.values['backwards']) await op.down(db, states[i]!, states[i + 1]!);
      else await op.up(db, states[i]!, states[i + 1]!);
      ctx.print('--');
      ctx.print(`-- ${op.describe()}`);
      ctx.print('--');
      for (const q of recorded) ctx.print(statement(q));
    }
    ctx.print('COMMIT;');
    return 0;
  },
};

/** A statement with its parameters, if any, in a trailing comment. */
function statement(q: CompiledQuery): string {
  const text = `${q.sql.trim()};`;
  return q.parameters.length > 0 ? `${text} -- parameters: ${JSON.stringify(q.parameters)}` : text;
}

/** A Kysely of `dialect` whose driver records each compiled statement and answers no rows. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function recordingKysely(dialect: 'sqlite' | 'postgres', recorded: CompiledQuery[]): Kysely<any> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery) {
      recorded.push(query);
      return { rows: [] as R[] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('sqlmigrate does not stream.');
    },
  };
  const driver: Driver = {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    async beginTransaction() {},
    async commitTransaction() {},
    async rollbackTransaction() {},
    async releaseConnection() {},
    async destroy() {},
  };
  const pg = dialect === 'postgres';
  const d: Dialect = {
    createAdapter: () => (pg ? new PostgresAdapter() : new SqliteAdapter()),
    createDriver: () => driver,
    createQueryCompiler: () => (pg ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    createIntrospector: (db) => (pg ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
  };
  return new Kysely({ dialect: d });
}
