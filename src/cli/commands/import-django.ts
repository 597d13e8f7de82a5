import type { Command } from '../command.js';
import { CliError, UsageError } from '../command.js';
import {
  DJANGO_USER_COLUMNS,
  importDjango,
  openDjangoSource,
  UnrecognisedDjangoSchema,
  type DjangoUserColumns,
} from '../../users/django-import.js';
import { hasherLibrary, WEAK_DJANGO_HASHERS, type DjangoHasherName } from '../../users/django-hashers.js';
import { openTokens } from './token.js';

/**
 * `trestle import-django DATABASE_URL`: copies Django's users (with their
 * ids and password hashes) and DRF's token keys into this project's
 * database, so a DRF service moves to Trestle without logging anyone out.
 *
 * ```
 * $ trestle import-django postgres://django@db/shop --dry-run
 * $ trestle import-django sqlite:/srv/django/db.sqlite3
 * $ trestle import-django postgres://… --user-table accounts_user --column username=email
 * ```
 */
export const importDjangoCommand: Command = {
  name: 'import-django',
  summary: "Import users (ids, password hashes) and DRF token keys from a Django database.",
  usage: 'import-django DJANGO_DATABASE_URL [--dry-run] [--user-table T] [--column field=column]… [--token-table T | --no-tokens] [--batch-size N]',
  help: [
    'DJANGO_DATABASE_URL   the Django database to read: sqlite:/path/db.sqlite3 (opened read-only) or postgres://…',
    '                      (Trestle\'s own database is the usual --database-url / DATABASE_URL)',
    '--dry-run             count what would be imported, skipped and in conflict; write nothing',
    '--user-table T        the user table (default auth_user; a custom user model\'s table otherwise)',
    '--column field=col    read a Trestle user field from another column, e.g. --column username=email',
    `                      (fields: ${Object.keys(DJANGO_USER_COLUMNS).join(', ')})`,
    '--token-table T       DRF\'s token table (default authtoken_token; skipped if absent)',
    '--no-tokens           import users only',
    '--batch-size N        rows per transaction (default 500)',
    '',
    'Users already imported (same id and username) are skipped, so the command can be run again',
    'after a stop and changes nothing the second time. A user whose id or username is taken by',
    'another Trestle user is a conflict: reported, not imported, and the exit code is 1.',
  ],
  options: {
    'dry-run': { type: 'boolean' },
    'user-table': { type: 'string' },
    column: { type: 'string', multiple: true },
    'token-table': { type: 'string' },
    'no-tokens': { type: 'boolean' },
    'batch-size': { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const url = args.positionals[0]!;
    const columns = parseColumns(args.values['column'] as unknown as string[] | undefined);
    const batchText = args.values['batch-size'];
    const batchSize = batchText === undefined ? 500 : Number(batchText);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
      throw new UsageError('--batch-size takes a whole number from 1 to 100000.');
    }
    if (args.values['no-tokens'] && args.values['token-table'] !== undefined) {
      throw new UsageError('Give --token-table or --no-tokens, not both.');
    }
    const dryRun = args.values['dry-run'] === true;
    const { tokens } = await openTokens(ctx);
    const database = await ctx.database();
    let source;
    try {
      source = await openDjangoSource(url);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    ctx.warn(`Reading ${source.url}${dryRun ? ' (dry run: nothing is written)' : ''}; writing to ${database.url}`);
    let summary;
    try {
      summary = await importDjango(
        source,
        { db: database.db, dialect: database.dialect, tokens: args.values['no-tokens'] ? null : tokens },
        {
          userTable: typeof args.values['user-table'] === 'string' ? args.values['user-table'] : 'auth_user',
          columns,
          tokenTable: args.values['no-tokens'] ? null : typeof args.values['token-table'] === 'string' ? args.values['token-table'] : 'authtoken_token',
          dryRun,
          batchSize,
          progress: (line) => ctx.warn(line),
          conflict: (line) => ctx.warn(`conflict: ${line}`),
        },
      );
    } catch (err) {
      if (err instanceof UnrecognisedDjangoSchema) throw new CliError(err.message, 2);
      throw err;
    } finally {
      await source.close();
    }
    const verb = dryRun ? 'would import' : 'imported';
    const u = summary.users;
    ctx.print(`Users: ${u.total} read, ${verb} ${u.imported}, skipped ${u.skipped} (already imported), conflicts ${u.conflicts}.`);
    if (summary.tokens) {
      const t = summary.tokens;
      ctx.print(`Tokens: ${t.total} read, ${verb} ${t.imported}, skipped ${t.skipped} (already imported), conflicts ${t.conflicts}.`);
    }
    if (summary.permissions) {
      const p = summary.permissions;
      ctx.print(
        `Permissions: ${p.permissions.total} read, ${verb} ${p.permissions.imported}, skipped ${p.permissions.skipped}; ` +
          `groups: ${p.groups.total} read, ${verb} ${p.groups.imported}, skipped ${p.groups.skipped}` +
          (dryRun ? '.' : `; pairs written: ${p.groupPermissions} group permissions, ${p.memberships} memberships, ${p.userPermissions} user permissions.`),
      );
    }
    const hashers = Object.entries(summary.hashers).sort(([a], [b]) => a.localeCompare(b));
    if (hashers.length > 0) ctx.print(`Password hashes ${verb}: ${hashers.map(([name, n]) => `${name} ${n}`).join(', ')}.`);
    for (const [name, n] of hashers) {
      if ((WEAK_DJANGO_HASHERS as readonly string[]).includes(name)) {
        ctx.warn(
          `${n} user(s) have "${name}" hashes, which Trestle accepts only when the user store lists them: ` +
            `new KyselyUserStore(db, { djangoHashers: [...DEFAULT_DJANGO_HASHERS, '${name}'] }) (see docs/migrating-from-drf.md).`,
        );
      } else if (name === 'unknown') {
        ctx.warn(`${n} user(s) have hashes of no known hasher: they cannot log in with a password until it is reset.`);
      } else {
        const library = hasherLibrary(name as DjangoHasherName);
        if (library && !library.installed) {
          ctx.warn(`${n} user(s) have ${name} hashes: install ${library.packageName} so they can log in.`);
        }
      }
    }
    return u.conflicts > 0 || (summary.tokens?.conflicts ?? 0) > 0 ? 1 : 0;
  },
};

function parseColumns(values: string[] | undefined): Partial<DjangoUserColumns> {
  const columns: Partial<DjangoUserColumns> = {};
  for (const value of values ?? []) {
    const m = /^([a-z_]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
    if (!m || !(m[1]! in DJANGO_USER_COLUMNS)) {
      throw new UsageError(
        `--column takes field=column with a field among ${Object.keys(DJANGO_USER_COLUMNS).join(', ')}; got "${value}".`,
      );
    }
    columns[m[1] as keyof DjangoUserColumns] = m[2]!;
  }
  return columns;
}
