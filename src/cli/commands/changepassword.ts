import type { Command } from '../command.js';
import { obtainValidPassword } from '../password-input.js';
import { UserNotFound } from '../../users/errors.js';

/** `trestle changepassword <username>`: sets a user's password. */
export const changepasswordCommand: Command = {
  name: 'changepassword',
  summary: "Change a user's password.",
  usage: 'changepassword <username> [--password-stdin]',
  help: ['--password-stdin    read the new password from stdin (one line) instead of asking twice'],
  options: { 'password-stdin': { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const username = args.positionals[0]!;
    const users = await ctx.users();
    const user = await users.getByUsername(username);
    if (!user) throw new UserNotFound(username);
    const password = await obtainValidPassword(ctx, {
      fromStdin: args.values['password-stdin'] === true,
      user: { username: user.username, email: user.email },
      onWeak: 'retry',
    });
    await users.setPassword(user.pk, password);
    ctx.print(`Password changed successfully for user "${user.username}".`);
    return 0;
  },
};
