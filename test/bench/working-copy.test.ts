/**
 * The bench's per-server copy of a SQLite dataset (bench/lib/dataset.ts,
 * `workingCopy`): a file of its own, with the source's bytes, that a write
 * does not reach the source through, on tmpfs where the machine has one, and
 * gone after `dispose`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { workingCopy } from '../../bench/lib/dataset.js';

const dir = mkdtempSync(join(tmpdir(), 'trestle-working-copy-'));
const source = join(dir, 'source.sqlite3');
{
  const db = new Database(source);
  db.exec('create table book (id integer primary key, title text not null)');
  db.prepare('insert into book (title) values (?)').run('The Seeded Book');
  db.close();
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether /dev/shm has the room `workingCopy` asks of it: four times the file. */
function hasTmpfs(): boolean {
  try {
    const fs = statfsSync('/dev/shm');
    return fs.bavail * fs.bsize > 4 * statSync(source).size;
  } catch {
    return false;
  }
}

describe('workingCopy', () => {
  it('copies the dataset into a directory of its own; writes stay in the copy; dispose removes it', () => {
    const a = workingCopy(source, 'trestle');
    const b = workingCopy(source, 'fastify');
    try {
      expect(a.path).not.toBe(b.path);
      expect(dirname(a.path)).not.toBe(dirname(b.path));
      expect(a.path.endsWith('trestle.sqlite3')).toBe(true);
      expect(readFileSync(a.path).equals(readFileSync(source))).toBe(true);
      if (hasTmpfs()) expect(a.path.startsWith('/dev/shm/')).toBe(true);
      else console.log('working-copy test: no /dev/shm with room here, the copy is in the temporary directory');

      const db = new Database(a.path);
      db.prepare('insert into book (title) values (?)').run('The Bench Orchard');
      expect(db.prepare('select count(*) as n from book').get()).toEqual({ n: 2 });
      db.close();
      const seeded = new Database(source, { readonly: true });
      expect(seeded.prepare('select title from book').all()).toEqual([{ title: 'The Seeded Book' }]);
      seeded.close();
      const other = new Database(b.path, { readonly: true });
      expect(other.prepare('select count(*) as n from book').get()).toEqual({ n: 1 });
      other.close();
    } finally {
      a.dispose();
      b.dispose();
    }
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(dirname(a.path))).toBe(false);
    expect(existsSync(dirname(b.path))).toBe(false);
  });
});
