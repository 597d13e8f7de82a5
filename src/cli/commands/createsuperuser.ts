import type { Command, CommandContext } from '../command.js';
import { CliError } from '../command.js';
import { obtainValidPassword } from '../password-input.js';
import { canPrompt, promptLine } from '../prompt.js';
import { DuplicateUsername } from '../../users/errors.js';

/**
 * `trestle createsuperuser`: a staff superuser, as Django's command.
 * Non-interactive use: `--username`, `--email` and `--password-stdin`, or
 * `--no-input` (password from `TRESTLE_SUPERUSER_PASSWORD`, else unusable).
 */
export const createsuperuserCommand: Command = {
  name: 'createsuperuser',
  summary: 'Create a superuser (staff, all permissions).',
  usage: 'createsuperuser [--username U] [--email E] [--password-stdin] [--no-input]',
  help: [
    '--username U        the username (asked for when omitted and a terminal is attached)',
    '--email E           the email address (may be empty)',
    '--password-stdin    read the password from stdin (one line)',
    '--no-input          ask nothing: username and email from the options or TRESTLE_SUPERUSER_USERNAME /',
    '                    TRESTLE_SUPERUSER_EMAIL; password from stdin, TRESTLE_SUPERUSER_PASSWORD, or unusable',
  ],
  options: {
    username: { type: 'string' },
    email: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    'no-input': { type: 'boolean' },
  },
  async run(ctx, args) {
    const noInput = args.values['no-input'] === true;
    const fromStdin = args.values['password-stdin'] === true;
    const users = await ctx.users();

    const username = await field(ctx, args.values['username'], 'TRESTLE_SUPERUSER_USERNAME', 'Username: ', noInput || fromStdin);
    if (!username) throw new CliError('A username is required: pass --username.');
    if (await users.getByUsername(username)) throw new DuplicateUsername(username);
    const email = (await field(ctx, args.values['email'], 'TRESTLE_SUPERUSER_EMAIL', 'Email address: ', noInput || fromStdin)) ?? '';

    // The password must pass AUTH_PASSWORD_VALIDATORS (Django's four by default).
    const user = { username, email };
    let password: string | null;
    if (fromStdin) password = await obtainValidPassword(ctx, { fromStdin: true, user, onWeak: 'ask-to-bypass' });
    else if (noInput) {
      const preset = ctx.env['TRESTLE_SUPERUSER_PASSWORD'];
      password = preset ? await obtainValidPassword(ctx, { fromStdin: false, preset, user, onWeak: 'ask-to-bypass' }) : null;
    } else password = await obtainValidPassword(ctx, { fromStdin: false, user, onWeak: 'ask-to-bypass' });

    await users.createSuperuser({ username, email, password });
    ctx.print('Superuser created successfully.');
    return 0;
  },
};

/** An option value, else (without input) an environment variable, else a question on the terminal. */
async function field(
  ctx: CommandContext,
  value: string | boolean | undefined,
  envName: string,
  question: string,
  noPrompt: boolean,
): Promise<string | undefined> {
  if (typeof value === 'string') return value.trim();
  if (noPrompt) return ctx.env[envName]?.trim() || undefined;
  if (!canPrompt(ctx.io)) {
    throw new CliError(
      `No terminal to ask "${question.replace(/: $/, '')}": pass --username and --email, with the password on stdin (--password-stdin), or use --no-input.`,
    );
  }
  return promptLine(ctx.io, question);
}

