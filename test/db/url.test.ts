import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl, redactUrl } from '../../src/db/url.js';

describe('database URLs', () => {
  it('redacts only the password', () => {
    expect(redactUrl('postgres://bob:s3cr%40t@db.example.com:5432/app?sslmode=require')).toBe(
      'postgres://bob:***@db.example.com:5432/app?sslmode=require',
    );
    expect(redactUrl('postgres://bob@host/db')).toBe('postgres://bob@host/db');
    expect(redactUrl('sqlite:./data/x.sqlite3')).toBe('sqlite:./data/x.sqlite3');
  });

  it('parses the SQLite forms', () => {
    expect(parseDatabaseUrl('sqlite:./data/trestle.sqlite3')).toEqual({ dialect: 'sqlite', filename: './data/trestle.sqlite3', memory: false });
    expect(parseDatabaseUrl('sqlite:/abs/x.db')).toMatchObject({ filename: '/abs/x.db' });
    expect(parseDatabaseUrl('sqlite:///abs/x.db')).toMatchObject({ filename: '/abs/x.db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toMatchObject({ filename: ':memory:', memory: true });
  });

  it('accepts postgres:// and postgresql://', () => {
    expect(parseDatabaseUrl('postgres://u@h/d').dialect).toBe('postgres');
    expect(parseDatabaseUrl('postgresql://u@h/d').dialect).toBe('postgres');
  });

  it('rejects other schemes, naming the redacted URL', () => {
    expect(() => parseDatabaseUrl('mysql://root:hunter2@h/d')).toThrow(/mysql:\/\/root:\*\*\*@h\/d/);
    expect(() => parseDatabaseUrl('mysql://root:hunter2@h/d')).not.toThrow(/hunter2/);
  });
});
