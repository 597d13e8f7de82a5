import type { Command } from '../command.js';
import { DatabaseSessionStore } from '../../sessions/database-store.js';

/**
 * `trestle clearsessions`: deletes expired sessions from the database, as
 * Django's command of the same name. Run it from cron; sessions in Redis
 * (REDIS_URL) expire on their own and need nothing.
 */
export const clearsessionsCommand: Command = {
  name: 'clearsessions',
  summary: 'Delete expired sessions from the database.',
  usage: 'clearsessions',
  help: [],
  options: {},
  async run(ctx) {
    const project = await ctx.project();
    const redisUrl = ctx.env['REDIS_URL'] ?? project.config.settings?.REDIS_URL ?? null;
    if (redisUrl) {
      ctx.print('Sessions are kept in Redis (REDIS_URL), which expires them itself: nothing to clear.');
      return 0;
    }
    const database = await ctx.database();
    let deleted: number;
    try {
      deleted = await new DatabaseSessionStore(database.db).clearExpired();
    } catch (err) {
      // PostgreSQL's undefined_table, SQLite's "no such table".
      const code = (err as { code?: unknown }).code;
      if (code === '42P01' || /no such table/.test(String((err as Error).message))) {
        ctx.print('The sessions table is not migrated yet: nothing to clear.');
        return 0;
      }
      throw err;
    }
    ctx.print(`Deleted ${deleted} expired session${deleted === 1 ? '' : 's'}.`);
    return 0;
  },
};
