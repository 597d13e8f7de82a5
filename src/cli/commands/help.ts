import type { Command } from '../command.js';
import { projectCommands } from '../project-commands.js';
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
    const builtIn = name ? findCommand(name) : undefined;
    if (builtIn) {
      ctx.print(commandHelp(builtIn));
      return 0;
    }
    // The project's commands too; a project that cannot load still gets the built-in list.
    let project: Command[] = [];
    try {
      project = projectCommands(await ctx.project());
    } catch (err) {
      if (name) throw err;
      ctx.warn(`Project commands are not listed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!name) {
      ctx.print(generalHelp(project));
      return 0;
    }
    const command = project.find((c) => c.name === name);
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    ctx.print(commandHelp(command));
    return 0;
  },
};
