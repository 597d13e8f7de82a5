import type { DialectName } from '../db/dialect.js';
import type { ModelField } from './fields.js';

/**
 * The column type of a field on each database, as Django's backends map
 * field kinds (`django/db/backends/postgresql/base.py` and
 * `sqlite3/base.py` `data_types`), with Trestle's storage conventions on
 * SQLite: timestamps as ISO-8601 UTC text (`varchar(32)`) and booleans as
 * integer 0/1, as the framework's own tables store them.
 */
export function columnType(f: ModelField, dialect: DialectName, target?: ModelField): string {
  const o = f.options;
  const pg = dialect === 'postgres';
  switch (f.kind) {
    case 'auto':
      return pg ? 'serial' : 'integer';
    case 'bigAuto':
      return pg ? 'bigserial' : 'integer';
    case 'char':
    case 'email':
    case 'url':
    case 'slug':
      return `varchar(${Number(o['maxLength'])})`;
    case 'text':
      return 'text';
    case 'integer':
      return 'integer';
    case 'bigInteger':
      return 'bigint';
    case 'float':
      return pg ? 'double precision' : 'real';
    case 'decimal':
      return pg ? `numeric(${Number(o['maxDigits'])}, ${Number(o['decimalPlaces'])})` : 'decimal';
    case 'boolean':
      return pg ? 'boolean' : 'integer';
    case 'date':
      return 'date';
    case 'datetime':
      return pg ? 'timestamptz' : 'varchar(32)';
    case 'time':
      return 'time';
    case 'uuid':
      return pg ? 'uuid' : 'char(32)';
    case 'json':
      return pg ? 'jsonb' : 'text';
    case 'foreignKey':
    case 'oneToOne':
      // The column has the type of the target's key, without its sequence (Django's `rel_db_type`).
      if (!target || target.kind === 'auto') return 'integer';
      if (target.kind === 'bigAuto') return 'bigint';
      return columnType(target, dialect);
    case 'manyToMany':
      throw new Error('A manyToMany field has no column: its rows are in a join table.');
  }
}

/** The SQL default expression for "now" in the column's storage format. */
export function nowDefault(dialect: DialectName): string {
  // SQLite's strftime gives exactly `Date#toISOString()`'s shape, so text comparisons stay ordered.
  return dialect === 'postgres' ? 'now()' : "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
}

/** A constant default as the value the column stores (booleans are 0/1 on SQLite, JSON is its text). */
export function storedDefault(f: ModelField, value: unknown, dialect: DialectName): unknown {
  if (f.kind === 'boolean' && dialect === 'sqlite') return value ? 1 : 0;
  if (f.kind === 'json') return JSON.stringify(value);
  if (value instanceof Date) return f.kind === 'datetime' ? value.toISOString() : value.toISOString().slice(0, 10);
  return value;
}

let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()` for the time now and later (the text up to
 * the second is made once per second and reused): what `autoNow` and
 * `autoNowAdd` store.
 */
export function isoTime(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    const text = new Date(second * 1000).toISOString();
    if (text.length !== 24) return new Date(ms).toISOString(); // a year outside 0000-9999
    isoPrefix = text.slice(0, 20);
    isoSecond = second;
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
