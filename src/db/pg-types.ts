/**
 * How the app's PostgreSQL connections turn column text into JavaScript
 * values: node-postgres' parsers (including any a project set with
 * `pg.types.setTypeParser`), except for the types whose value would change
 * on the way, which are read as SQLite holds them:
 *
 * - `date` (and `date[]`): the `'YYYY-MM-DD'` text. node-postgres makes a
 *   `Date` at local midnight, which moves a day for anyone reading it as
 *   UTC when the process runs east of UTC (`TZ=Europe/Berlin`).
 * - `json` and `jsonb` (and their arrays): the JSON text, as Django's
 *   PostgreSQL backend loads them (JSONField parses the text itself), so a
 *   JSON column reads the same on both databases and a JSON string value is
 *   not mistaken for the text of a JSON document.
 *
 * Given to the pool (`types`), not set process-wide: nothing global changes
 * when Trestle opens a database.
 */
import { loadPg } from './pg-module.js';

type Parser = (raw: string) => unknown;

/** PostgreSQL type OIDs (`pg_type.oid`) read as text. */
export const PG_TEXT_TYPES = Object.freeze({ date: 1082, json: 114, jsonb: 3802 });
/** Their array types. */
const PG_TEXT_ARRAY_TYPES: readonly number[] = [1182, 199, 3807];
/** `text[]`, whose parser splits an array literal into strings. */
const TEXT_ARRAY = 1009;

const identity: Parser = (raw) => raw;

/** The `types` option of the app's `pg.Pool`: `getTypeParser(oid, format)`. */
export interface PgTypeParsers {
  getTypeParser(oid: number, format?: string): Parser;
}

/** node-postgres' type parsers with Trestle's calendar dates and JSON text. */
export function trestlePgTypes(): PgTypeParsers {
  const types = loadPg().types;
  const text = new Set<number>(Object.values(PG_TEXT_TYPES));
  const arrays = new Set<number>(PG_TEXT_ARRAY_TYPES);
  return {
    getTypeParser(oid: number, format = 'text'): Parser {
      if (format === 'text') {
        if (text.has(oid)) return identity;
        if (arrays.has(oid)) return types.getTypeParser(TEXT_ARRAY as never, 'text') as Parser;
      }
      return types.getTypeParser(oid as never, format as 'text') as Parser;
    },
  };
}
