/**
 * Parsing and redaction of `DATABASE_URL` values.
 *
 * Accepted forms:
 * - `sqlite:./data/trestle.sqlite3` (relative to the working directory),
 *   `sqlite:/abs/path.sqlite3`, `sqlite:///abs/path.sqlite3`, `sqlite::memory:`
 * - `postgres://user:pass@host:port/db?options=…` and `postgresql://…`
 */

/** The URL used when neither the caller nor `DATABASE_URL` names one. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/trestle.sqlite3';

export type ParsedDatabaseUrl =
  | { dialect: 'sqlite'; filename: string; memory: boolean }
  | { dialect: 'postgres'; connectionString: string };

/**
 * Replaces the password of a URL with `***` so the URL can be shown in
 * errors and logs. Works on strings that are not valid URLs too.
 */
export function redactUrl(url: string): string {
  // scheme://user:password@host… — keep everything but the password.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):([^@/?#]*)@/i, (_m, head: string) => `${head}:***@`);
}

/** The password part of a URL, if any, so it can be scrubbed from driver messages. */
export function urlPassword(url: string): string | null {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:([^@/?#]*)@/i.exec(url);
  if (!match || !match[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** Classifies a database URL; throws for a scheme Trestle does not support. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  if (url.startsWith('sqlite:')) {
    let rest = url.slice('sqlite:'.length);
    if (rest.startsWith('//')) rest = rest.slice(2);
    if (rest === '' ) throw new Error(`Invalid database URL ${redactUrl(url)}: missing file name`);
    if (rest === ':memory:') return { dialect: 'sqlite', filename: ':memory:', memory: true };
    return { dialect: 'sqlite', filename: rest, memory: false };
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    return { dialect: 'postgres', connectionString: url };
  }
  throw new Error(
    `Unsupported database URL ${redactUrl(url)}: expected sqlite:<path>, sqlite::memory: or postgres://…`,
  );
}
