import type { CommandContext } from './command.js';
import { CliError } from './command.js';
import { canPrompt, promptHidden, promptLine, readStdin } from './prompt.js';
import { resolveSettings } from '../settings.js';
import { validatePassword, type PasswordUser } from '../users/password-validation.js';

/**
 * Gets a new password from stdin (`--password-stdin`) or by asking twice on
 * the terminal without echo. The value is returned to the caller only; it is
 * never printed.
 */
export async function obtainNewPassword(ctx: CommandContext, fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const password = await readStdin(ctx.io);
    if (password === '') throw new CliError('The password read from stdin is empty.');
    return password;
  }
  if (!canPrompt(ctx.io)) {
    throw new CliError('No terminal to ask for the password: pass it on stdin with --password-stdin.');
  }
  const first = await promptHidden(ctx.io, 'Password: ');
  const second = await promptHidden(ctx.io, 'Password (again): ');
  if (first !== second) throw new CliError("Passwords don't match.");
  if (first === '') throw new CliError('Blank passwords are not allowed.');
  return first;
}

/** How a rejected password is handled on a terminal (Django's two commands differ). */
export type OnWeakPassword = 'ask-to-bypass' | 'retry';

/** Tries on a terminal before `changepassword` gives up, as Django's MAX_TRIES. */
const MAX_TRIES = 3;

/**
 * A new password that passes the project's AUTH_PASSWORD_VALIDATORS. From
 * stdin (or `preset`, e.g. an environment variable) a weak password is a
 * one-line failure listing every problem; on a terminal the problems are
 * shown and the password asked again (`retry`, up to three times, as
 * Django's changepassword) or the user may keep it (`ask-to-bypass`, as
 * Django's createsuperuser).
 */
export async function obtainValidPassword(
  ctx: CommandContext,
  options: { fromStdin: boolean; preset?: string; user: PasswordUser; onWeak: OnWeakPassword },
): Promise<string> {
  const settings = resolveSettings((await ctx.project()).config.settings);
  const check = (password: string) => validatePassword(password, options.user, settings.AUTH_PASSWORD_VALIDATORS);
  if (options.preset !== undefined || options.fromStdin) {
    const password = options.preset ?? (await obtainNewPassword(ctx, true));
    const problems = check(password);
    if (problems.length > 0) throw new CliError(problems.join(' '));
    return password;
  }
  for (let attempt = 1; ; attempt++) {
    const password = await obtainNewPassword(ctx, false);
    const problems = check(password);
    if (problems.length === 0) return password;
    for (const line of problems) ctx.warn(line);
    if (options.onWeak === 'ask-to-bypass') {
      const answer = await promptLine(ctx.io, 'Bypass password validation and create user anyway? [y/N]: ');
      if (answer.trim().toLowerCase().startsWith('y')) return password;
    } else if (attempt >= MAX_TRIES) {
      throw new CliError(`Aborting password change for user "${options.user.username ?? ''}" after ${MAX_TRIES} attempts`);
    }
  }
}
