import type { CommandContext } from './command.js';
import { CliError } from './command.js';
import { canPrompt, promptHidden, readStdin } from './prompt.js';

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
