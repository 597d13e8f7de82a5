import type { Command } from '../command.js';
import { UsageError } from '../command.js';
import { commandHelp, generalHelp } from '../help-text.js';
import { findCommand } from './index.js';

/** `trestle help [command]`. */
export const helpCommand: Command = {
  name: 'help',
  summary: 'Show help for all commands or for one.',
  usage: 'help [command]',
  help: [],
  options: {},
  positionals: { min: 0, max: 1 },
  async run(ctx, args) {
    const name = args.positionals[0];
    if (!name) {
      ctx.print(generalHelp());
      return 0;
    }
    const command = findCommand(name);
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    ctx.print(commandHelp(command));
    return 0;
  },
};
