import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ChangeQuestion, detectChanges, type DetectOptions } from '../../models/autodetector.js';
import { stateOf } from '../../models/migration.js';
import type { AnyModel } from '../../models/model.js';
import type { Operation } from '../../models/operations.js';
import type { ProjectState } from '../../models/state.js';
import { writeMigration } from '../../models/writer.js';
import type { Command, CommandContext } from '../command.js';
import { CliError, UsageError } from '../command.js';
import { canPrompt, openQuestioner, type Questioner } from '../prompt.js';

/**
 * `trestle makemigrations [--name NAME] [--rename table.old=new]… [--check]
 * [--dry-run]`: diffs the project's models against the state its migrations
 * build and writes the next migration file into `migrationsDir`, as Django's
 * `makemigrations`.
 */
export const makemigrationsCommand: Command = {
  name: 'makemigrations',
  summary: "Write the next migration file from the changes to the project's models.",
  usage: 'makemigrations [--name NAME] [--rename table.old=new]... [--check] [--dry-run]',
  help: [
    '--name NAME              the migration\'s name after its number (default: "initial" first, then',
    '                         one made from the operations, as Django names them)',
    '--rename table.old=new   the field "old" of "table" was renamed to "new" (repeatable); a rename',
    '                         is never guessed: on a terminal it is asked ("Was … renamed to …? [y/N]"),',
    '                         elsewhere the command stops and names this option',
    '                         A non-null field added without a default asks for a one-off default on a',
    '                         terminal (existing rows get it, the field keeps none) and stops elsewhere',
    '--check                  write nothing; exit 1 and list the changes when the models differ from',
    '                         the migrations, 0 when they do not',
    '--dry-run                list the migration that would be written; write nothing',
  ],
  options: {
    name: { type: 'string' },
    rename: { type: 'string', multiple: true },
    check: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  },
  async run(ctx, args) {
    const project = await ctx.project();
    const name = args.values['name'] as string | undefined;
    if (name !== undefined && !/^[A-Za-z0-9_]+$/.test(name)) {
      throw new UsageError(`--name "${name}" is not a valid migration name: use letters, digits and "_".`);
    }
    const renames = parseRenames((args.values['rename'] as unknown as string[] | undefined) ?? []);
    if (!project.migrationsDir) {
      // Nothing declared and nowhere to record: as Django with no models, nothing to do.
      if ((project.config.models ?? []).length === 0) {
        ctx.print('No changes detected');
        return 0;
      }
      throw new CliError(`${project.path ?? 'The project'} names no migrations folder: add migrationsDir: 'migrations' to trestle.config.ts.`);
    }
    const migrations = project.config.migrations ?? {};
    const operations = await detectAsking(ctx, stateOf(migrations), project.config.models ?? [], renames);
    if (operations.length === 0) {
      ctx.print('No changes detected');
      return 0;
    }
    const names = Object.keys(migrations).sort();
    const number = nextNumber(names);
    const fileName = `${String(number).padStart(4, '0')}_${name ?? suggestName(operations, names.length === 0)}`;
    const file = join(project.migrationsDir, `${fileName}.ts`);
    if (fileName in migrations) throw new CliError(`A migration named ${fileName} exists already.`);
    ctx.print("Migrations for 'app':");
    ctx.print(`  ${relative(ctx.cwd, file)}`);
    for (const op of operations) ctx.print(`    - ${op.describe()}`);
    if (args.values['check']) return 1;
    if (args.values['dry-run']) return 0;
    const source = writeMigration(operations, { dependencies: names.length > 0 ? [names.at(-1)!] : [] });
    mkdirSync(project.migrationsDir, { recursive: true });
    writeFileSync(file, source, { flag: 'wx' });
    return 0;
  },
};

/**
 * Runs the autodetector, asking what it cannot decide as Django's
 * questioner does (a rename? a one-off default?) when stdin is a terminal,
 * and refusing in one line (the question and the option that answers it)
 * when it is not.
 */
async function detectAsking(ctx: CommandContext, from: ProjectState, models: readonly AnyModel[], renames: Record<string, string>): Promise<Operation[]> {
  const options: DetectOptions & { renames: Record<string, string>; notRenamed: string[]; oneOffDefaults: Record<string, unknown> } = { renames: { ...renames }, notRenamed: [], oneOffDefaults: {} };
  let questioner: Questioner | null = null;
  try {
    for (;;) {
      try {
        return detectChanges(from, models, options);
      } catch (err) {
        if (!(err instanceof ChangeQuestion)) throw err;
        if (!canPrompt(ctx.io)) throw new CliError(err.message);
        questioner ??= openQuestioner(ctx.io);
        if (err.kind === 'rename') await askRename(questioner, err, options);
        else options.oneOffDefaults[`${err.table}.${err.field}`] = await askDefault(questioner, err);
      }
    }
  } finally {
    questioner?.close();
  }
}

async function askRename(q: Questioner, question: ChangeQuestion, options: { renames: Record<string, string>; notRenamed: string[] }): Promise<void> {
  const old = question.candidates[0]!;
  const answer = await q.ask(`Was ${question.table}.${old} renamed to ${question.table}.${question.field}? [y/N] `);
  if (answer === null) throw new CliError('Aborted: no answer.');
  if (/^y(es)?$/i.test(answer)) options.renames[`${question.table}.${old}`] = question.field;
  else options.notRenamed.push(`${question.table}.${old}=${question.field}`);
}

async function askDefault(q: Questioner, question: ChangeQuestion): Promise<unknown> {
  const intro =
    `It is impossible to add a non-nullable field '${question.field}' to ${question.table} without specifying a default. ` +
    'This is because the database needs something to populate existing rows.\n' +
    'Please select a fix:\n' +
    ' 1) Provide a one-off default now (will be set on all existing rows)\n' +
    ' 2) Quit and give the field a default (or null: true) in the model\n';
  let prompt = intro + 'Select an option: ';
  for (;;) {
    const choice = await q.ask(prompt);
    if (choice === null || choice === '2') throw new CliError(`${question.table}.${question.field} needs a default: nothing was written.`);
    if (choice === '1') break;
    prompt = 'Please select a valid option: ';
  }
  let ask = 'Please enter the default value as JSON (42, "text", true, null …).\nType \'exit\' to exit this prompt\n>>> ';
  for (;;) {
    const text = await q.ask(ask);
    if (text === null || text === 'exit') throw new CliError(`${question.table}.${question.field} needs a default: nothing was written.`);
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null) return value;
      ask = 'A non-nullable field needs a value other than null.\n>>> ';
    } catch {
      ask = `Invalid JSON: ${text}\n>>> `;
    }
  }
}

/** `table.old=new` options as `detectChanges`'s `renames`. */
function parseRenames(values: readonly string[]): Record<string, string> {
  const renames: Record<string, string> = {};
  for (const value of values) {
    const m = /^([^.=\s]+)\.([^.=\s]+)=([^.=\s]+)$/.exec(value);
    if (!m) throw new UsageError(`--rename "${value}" must be table.old=new.`);
    renames[`${m[1]}.${m[2]}`] = m[3]!;
  }
  return renames;
}

/** One more than the highest leading number of the existing migrations (Django's numbering). */
function nextNumber(names: readonly string[]): number {
  let highest = 0;
  for (const n of names) {
    const m = /^(\d+)_/.exec(n);
    if (m) highest = Math.max(highest, Number(m[1]));
  }
  return highest + 1;
}

/** Django's `Migration.suggest_name`: "initial", else the operations' name fragments, else `auto_<timestamp>`. */
export function suggestName(operations: readonly Operation[], initial: boolean): string {
  if (initial) return 'initial';
  const fragments = operations.map(nameFragment).map((f) => f.toLowerCase().replace(/\W+/g, '_'));
  if (fragments.length === 0 || fragments.some((f) => f === '')) return `auto_${timestamp(new Date())}`;
  let suggested = fragments[0]!;
  for (const fragment of fragments.slice(1)) {
    const longer = `${suggested}_${fragment}`;
    if (longer.length > 52) return `${suggested}_and_more`;
    suggested = longer;
  }
  return suggested;
}

/** Django's `migration_name_fragment` of each operation, with table names for model names. */
function nameFragment(op: Operation): string {
  const [table, second, third] = op.args as [string, unknown, unknown];
  switch (op.type) {
    case 'createModel':
      return table;
    case 'deleteModel':
      return `delete_${table}`;
    case 'addField':
      return `${table}_${String(second)}`;
    case 'removeField':
      return `remove_${table}_${String(second)}`;
    case 'alterField':
      return `alter_${table}_${String(second)}`;
    case 'renameField':
      return `rename_${String(second)}_${table}_${String(third)}`;
    case 'addIndex':
    case 'addConstraint':
      return `${table}_${String((second as { name?: string }).name ?? '')}`;
    case 'removeIndex':
    case 'removeConstraint':
      return `remove_${table}_${String(second)}`;
    default:
      return '';
  }
}

function timestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}`;
}
