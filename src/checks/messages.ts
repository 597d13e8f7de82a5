/** Django's check levels (`django.core.checks.messages`). */
export const DEBUG = 10;
export const INFO = 20;
export const WARNING = 30;
export const ERROR = 40;
export const CRITICAL = 50;

export type CheckLevel = number;

export interface CheckMessageOptions {
  hint?: string | null;
  /** What the message is about: a view (`BookList at /api/books/`), a setting, … */
  obj?: string | null;
  /** `area.E001`: errors `E`, warnings `W`, as Django's ids; silenced by SILENCED_SYSTEM_CHECKS. */
  id?: string | null;
}

/**
 * One finding of a system check, as Django's `CheckMessage`: a level, the
 * message, an optional hint, the object it is about and an id.
 *
 * @example
 * new CheckMessage(ERROR, "'orderingFields' names 'titel', which is not a column of table 'task'.", {
 *   obj: "TaskList (route 'task-list', /tasks/)", id: 'ordering.E001', hint: "Did you mean 'title'?",
 * });
 */
export class CheckMessage {
  readonly hint: string | null;
  readonly obj: string | null;
  readonly id: string | null;

  constructor(
    readonly level: CheckLevel,
    readonly msg: string,
    options: CheckMessageOptions = {},
  ) {
    this.hint = options.hint ?? null;
    this.obj = options.obj ?? null;
    this.id = options.id ?? null;
  }

  /** At or above `level` (ERROR by default): refuses start-up. */
  isSerious(level: CheckLevel = ERROR): boolean {
    return this.level >= level;
  }

  /** Listed by id in SILENCED_SYSTEM_CHECKS. */
  isSilenced(silenced: readonly string[]): boolean {
    return this.id !== null && silenced.includes(this.id);
  }

  /** Django's form: `obj: (id) msg`, then a tab-indented HINT line. */
  toString(): string {
    const id = this.id ? `(${this.id}) ` : '';
    const hint = this.hint ? `\n\tHINT: ${this.hint}` : '';
    return `${this.obj ?? '?'}: ${id}${this.msg}${hint}`;
  }
}

/** Shorthands, as Django's `Debug`, `Info`, `Warning`, `Error`, `Critical` classes. */
export const checkDebug = (msg: string, options?: CheckMessageOptions) => new CheckMessage(DEBUG, msg, options);
export const checkInfo = (msg: string, options?: CheckMessageOptions) => new CheckMessage(INFO, msg, options);
export const checkWarning = (msg: string, options?: CheckMessageOptions) => new CheckMessage(WARNING, msg, options);
export const checkError = (msg: string, options?: CheckMessageOptions) => new CheckMessage(ERROR, msg, options);
export const checkCritical = (msg: string, options?: CheckMessageOptions) => new CheckMessage(CRITICAL, msg, options);

/** The report of a run: what Django's `BaseCommand.check` prints. */
export interface CheckReport {
  /** The whole text (empty when there is nothing to say and no count was asked for). */
  text: string;
  /** True when an unsilenced message is at or above the fail level. */
  failed: boolean;
  /** Messages shown (not silenced). */
  visible: readonly CheckMessage[];
}

const GROUPS: readonly [string, (level: number) => boolean][] = [
  ['CRITICALS', (l) => l >= CRITICAL],
  ['ERRORS', (l) => l >= ERROR && l < CRITICAL],
  ['WARNINGS', (l) => l >= WARNING && l < ERROR],
  ['INFOS', (l) => l >= INFO && l < WARNING],
  ['DEBUGS', (l) => l < INFO],
];

/**
 * Formats messages exactly as Django's `BaseCommand.check`: grouped by level
 * (CRITICALS, ERRORS, WARNINGS, INFOS, DEBUGS), sorted within a group, under
 * "System check identified some issues:", prefixed "SystemCheckError: " when
 * the run fails; `countLine` adds "System check identified N issues (M
 * silenced)." as `manage.py check` does.
 */
export function formatReport(
  messages: readonly CheckMessage[],
  options: { silenced?: readonly string[]; failLevel?: CheckLevel; countLine?: boolean } = {},
): CheckReport {
  const silenced = options.silenced ?? [];
  const visible = messages.filter((m) => !m.isSilenced(silenced));
  let body = '';
  for (const [name, inGroup] of GROUPS) {
    const group = visible.filter((m) => inGroup(m.level));
    if (group.length === 0) continue;
    body += `\n${name}:\n${group.map(String).sort(pythonOrder).join('\n')}\n`;
  }
  const header = visible.length > 0 ? 'System check identified some issues:\n' : '';
  let footer = '';
  if (options.countLine) {
    if (visible.length > 0) footer += '\n';
    const count = visible.length === 0 ? 'no issues' : visible.length === 1 ? '1 issue' : `${visible.length} issues`;
    footer += `System check identified ${count} (${messages.length - visible.length} silenced).`;
  }
  const failed = visible.some((m) => m.isSerious(options.failLevel ?? ERROR));
  return { text: `${failed ? 'SystemCheckError: ' : ''}${header}${body}${footer}`, failed, visible };
}

/** Python's `sorted()` on str: by code point. */
function pythonOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Thrown by `app.ready()` (and so by `listen`) when a check finds an error:
 * the message is the whole report, one line per problem.
 */
export class SystemCheckError extends Error {
  override name = 'SystemCheckError';
  constructor(
    readonly report: string,
    readonly messages: readonly CheckMessage[],
  ) {
    super(report.replace(/^SystemCheckError: /, ''));
  }
}
