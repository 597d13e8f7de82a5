// A project's own commands, declared in trestle.config.ts, run through
// `main()` in-process like the built-in ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';

const TRESTLE = pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href;

let dir: string;
let url: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trestle-commands-'));
  url = `sqlite:${join(dir, 'db.sqlite3')}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const trestle = (...argv: string[]) => runMain(argv, { cwd: dir, env: { DATABASE_URL: url } });

function project(commands: string): void {
  writeFileSync(
    join(dir, 'trestle.config.mjs'),
    `import { CliError, UsageError, defineCommand } from ${JSON.stringify(TRESTLE)};
     export default { commands: [${commands}] };\n`,
  );
}

const GREET = `defineCommand({
  name: 'greet',
  summary: 'Greet a user by username.',
  usage: 'greet <username> [--shout]',
  help: ['--shout   in capitals'],
  options: { shout: { type: 'boolean', short: 's' } },
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const { users, log } = await ctx.services();
    const user = await users.getByUsername(args.positionals[0]);
    if (!user) throw new CliError('No user "' + args.positionals[0] + '".');
    const line = 'Hello, ' + user.username + '!';
    log(args.values.shout ? line.toUpperCase() : line);
    return 0;
  },
})`;

describe('project commands', () => {
  it('run with the project\'s services, options and positionals', async () => {
    project(GREET);
    expect((await trestle('migrate')).code).toBe(0);
    const created = await runMain(['createsuperuser', '--username', 'alice', '--email', '', '--password-stdin'], {
      cwd: dir,
      env: { DATABASE_URL: url },
      input: 'Tr0ub4dor&3-long\n',
    });
    expect(created.code, created.stderr).toBe(0);
    expect(await trestle('greet', 'alice')).toEqual({ code: 0, stdout: 'Hello, alice!\n', stderr: '' });
    expect(await trestle('greet', '-s', 'alice')).toEqual({ code: 0, stdout: 'HELLO, ALICE!\n', stderr: '' });
  });

  it('follow the built-in conventions: one line on stderr, exit 1 for CliError, 2 for usage mistakes', async () => {
    project(`${GREET}, defineCommand({ name: 'strict', summary: 'Refuses.', async run() { throw new UsageError('Say please.'); } })`);
    expect((await trestle('migrate')).code).toBe(0);
    expect(await trestle('greet', 'ghost')).toEqual({ code: 1, stdout: '', stderr: 'trestle greet: No user "ghost".\n' });
    expect(await trestle('greet')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'trestle greet: Missing argument. Usage: trestle greet <username> [--shout]\n',
    });
    expect(await trestle('greet', 'a', '--loud')).toMatchObject({ code: 2, stdout: '' });
    expect((await trestle('greet', 'a', '--loud')).stderr).toMatch(/^trestle greet: Unknown option '--loud'\. Run "trestle greet --help"\.\n$/);
    expect(await trestle('strict')).toEqual({ code: 2, stdout: '', stderr: 'trestle strict: Say please.\n' });
    // A command that needs the framework's tables says to migrate first, as the built-in ones do.
    const fresh = await runMain(['greet', 'alice'], { cwd: dir, env: { DATABASE_URL: `sqlite:${join(dir, 'fresh.sqlite3')}` } });
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toMatch(/^trestle greet: The database .* has unapplied migrations .*run "trestle migrate" first\.\n$/);
  });

  it('are listed by trestle help after the built-in ones, and have their own --help', async () => {
    project(GREET);
    for (const argv of [['help'], ['--help']]) {
      const help = await trestle(...argv);
      expect(help.code).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout).toMatch(/\n  migrate +Apply pending[^\n]*\n[\s\S]*\nProject commands \(trestle\.config\.ts\):\n  greet +Greet a user by username\.\n\nOptions for every command:/);
    }
    for (const argv of [['greet', '--help'], ['help', 'greet']]) {
      const help = await trestle(...argv);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: trestle greet <username> [--shout]\n\nGreet a user by username.\n\nOptions:\n  --shout   in capitals\n');
    }
    expect(await trestle('frobnicate')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'trestle: Unknown command "frobnicate". Run "trestle help" for the list.\n',
    });
  });

  it('are found through --config, and a bad declaration is one clear line', async () => {
    writeFileSync(join(dir, 'other.mjs'), `export default { commands: [{ name: 'ping', summary: 'Pong.', async run(ctx) { ctx.print('pong'); return 0; } }] };\n`);
    expect(await trestle('ping', '--config', 'other.mjs')).toEqual({ code: 0, stdout: 'pong\n', stderr: '' });
    expect(await trestle('--config=other.mjs', 'ping')).toEqual({ code: 0, stdout: 'pong\n', stderr: '' });

    project(`{ name: 'migrate', summary: 'Mine.', async run() { return 0; } }`);
    const clash = await trestle('anything');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toBe(`trestle: ${join(dir, 'trestle.config.mjs')}: the command "migrate" has the name of a built-in command.\n`);
    // help still lists the built-in commands, and says why the project's are missing.
    const help = await trestle('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('  migrate');
    expect(help.stderr).toBe(`Project commands are not listed: ${join(dir, 'trestle.config.mjs')}: the command "migrate" has the name of a built-in command.\n`);
  });
});
