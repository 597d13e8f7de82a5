import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command, CommandContext } from '../command.js';
import { CliError, UsageError } from '../command.js';
import { resolveSettings } from '../../settings.js';
import { resolveSecretKey } from '../../secret-key.js';
import { settingsFromEnvironment } from './serve.js';
import { TokenStore } from '../../authtoken/token-store.js';
import { TokenError } from '../../authtoken/errors.js';
import { UserNotFound } from '../../users/errors.js';
import type { UserStore } from '../../users/store.js';

/**
 * `trestle token`: DRF's `drf_create_token`, plus bulk provisioning, the
 * lifecycle clean-up and importing keys from a DRF database.
 *
 * ```
 * $ trestle token alice          # prints alice's key, creating it if none
 * $ trestle token alice -r       # a new key; the old one stops working now
 * $ trestle token --all          # a token for every user without one
 * $ trestle token --purge-expired
 * $ trestle token --import-drf tokens.csv
 * ```
 */
export const tokenCommand: Command = {
  name: 'token',
  summary: "Print a user's API token (creating it), or regenerate, provision, purge or import tokens.",
  usage: 'token <username> [-r] | token --all | token --purge-expired | token --import-drf FILE',
  help: [
    '<username>            print the user\'s key on stdout, creating the token if none exists',
    '-r, --reset           regenerate the user\'s token (after a leak): the old key stops working',
    '--all                 create a token for every user that has none (progress on stderr)',
    '--purge-expired       delete expired tokens (TOKEN_TTL)',
    '--import-drf FILE     import keys from a CSV export of DRF\'s authtoken_token (columns: key,',
    '                      username or user_id, optional created); see docs/tokens.md',
  ],
  options: {
    reset: { type: 'boolean', short: 'r' },
    all: { type: 'boolean' },
    'purge-expired': { type: 'boolean' },
    'import-drf': { type: 'string' },
  },
  positionals: { min: 0, max: 1 },
  async run(ctx, args) {
    const username = args.positionals[0];
    const modes = [
      username !== undefined,
      args.values['all'] === true,
      args.values['purge-expired'] === true,
      typeof args.values['import-drf'] === 'string',
    ].filter(Boolean).length;
    if (modes !== 1) {
      throw new UsageError(`Give exactly one of <username>, --all, --purge-expired, --import-drf. Usage: trestle ${tokenCommand.usage}`);
    }
    if (args.values['reset'] && username === undefined) throw new UsageError('-r/--reset needs a <username>.');
    const { tokens, users } = await openTokens(ctx);
    if (username !== undefined) return printToken(ctx, tokens, users, username, args.values['reset'] === true);
    if (args.values['all']) return createAll(ctx, tokens);
    if (args.values['purge-expired']) {
      const n = await tokens.purgeExpired();
      ctx.print(`Deleted ${n} expired token${n === 1 ? '' : 's'}.`);
      return 0;
    }
    return importDrf(ctx, tokens, users, String(args.values['import-drf']));
  },
};

/** The token store with the project's settings and the secret the server uses. */
export async function openTokens(ctx: CommandContext): Promise<{ tokens: TokenStore; users: UserStore }> {
  const [project, users, database] = await Promise.all([ctx.project(), ctx.users(), ctx.database()]);
  // The same settings `trestle serve` builds, so both use one key; production never falls back to the key file.
  const settings = resolveSettings(settingsFromEnvironment(project.config.settings ?? {}, ctx.env));
  if (!settings.DEBUG && !settings.SECRET_KEY) {
    throw new CliError(
      'SECRET_KEY is not set and DEBUG is false (the default when NODE_ENV=production): set the SECRET_KEY environment variable to the key the server uses.',
    );
  }
  const tokens = new TokenStore(database.db, {
    secret: () => resolveSecretKey(settings, join(ctx.cwd, 'data'), { env: ctx.env, warn: ctx.warn }),
    mode: settings.TOKEN_MODE,
    ttlSeconds: settings.TOKEN_TTL,
  });
  return { tokens, users };
}

async function printToken(ctx: CommandContext, tokens: TokenStore, users: UserStore, username: string, reset: boolean): Promise<number> {
  const user = await users.getByUsername(username);
  if (!user) throw new UserNotFound(username);
  if (reset) {
    ctx.print((await tokens.regenerate(user)).key);
    return 0;
  }
  const existing = await tokens.get(user);
  if (existing && existing.key === null) {
    throw new CliError(
      `The token of user "${username}" exists but its key cannot be shown: it was stored under another SECRET_KEY. Run "trestle token ${username} -r" to replace it.`,
    );
  }
  ctx.print((await tokens.getOrCreate(user)).token.key);
  return 0;
}

async function createAll(ctx: CommandContext, tokens: TokenStore): Promise<number> {
  const result = await tokens.createMissing(({ done, total }) => {
    if (total > 500) ctx.warn(`Created ${done}/${total} tokens…`);
  });
  ctx.print(result.done === 0 ? 'Every user already has a token.' : `Created ${result.done} token${result.done === 1 ? '' : 's'}.`);
  return 0;
}

/**
 * Imports `key,username[,created]` (or `key,user_id[,created]`) rows. Users
 * must exist already; users that have a token keep it.
 */
async function importDrf(ctx: CommandContext, tokens: TokenStore, users: UserStore, file: string): Promise<number> {
  const path = resolve(ctx.cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const rows = parseCsv(text);
  const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
  const col = (name: string) => header.indexOf(name);
  const keyCol = col('key');
  const userCol = col('username') >= 0 ? col('username') : col('user_id');
  const byId = col('username') < 0;
  if (keyCol < 0 || userCol < 0) {
    throw new CliError(`${path}: the first line must name the columns "key" and "username" (or "user_id").`);
  }
  const createdCol = col('created');
  let imported = 0;
  let kept = 0;
  let failed = 0;
  for (const [i, row] of rows.entries()) {
    if (row.length === 1 && row[0] === '') continue;
    const line = i + 2;
    const key = row[keyCol] ?? '';
    const who = row[userCol] ?? '';
    const user = byId ? (/^\d+$/.test(who) ? await users.getById(Number(who)) : null) : await users.getByUsername(who);
    if (!user) {
      ctx.warn(`line ${line}: no user ${byId ? `with id ${who}` : `"${who}"`}; skipped.`);
      failed++;
      continue;
    }
    const createdText = createdCol >= 0 ? row[createdCol] : undefined;
    const created = createdText ? new Date(createdText) : undefined;
    try {
      const added = await tokens.importKey(user, key, created && !Number.isNaN(created.getTime()) ? { created } : {});
      if (added) imported++;
      else kept++;
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      ctx.warn(`line ${line}: ${err.message} Skipped.`);
      failed++;
    }
  }
  ctx.print(`Imported ${imported} token${imported === 1 ? '' : 's'}; ${kept} user(s) already had one; ${failed} row(s) skipped.`);
  return failed > 0 ? 1 : 0;
}

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
