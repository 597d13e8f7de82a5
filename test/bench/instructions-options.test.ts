/**
 * `npm run bench:instructions`'s options: `--help` prints the usage, and a
 * wrong option or value is refused with the reason and the usage (exit 2)
 * before any dataset is built or valgrind started. The tool runs at
 * import, so it is driven as the process it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchScript } from '../helpers/bench-script.js';

const instructions = (args: string[]) => runBenchScript('bench/instructions.ts', args);

describe('npm run bench:instructions options', () => {
  it('--help prints the usage and exits 0', async () => {
    const { code, stdout, stderr } = await instructions(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run bench:instructions -- \[options\]/);
    expect(stdout).toContain('--windows K');
    expect(stdout).toContain('--functions N');
    expect(stdout).toContain('--node-flags');
    expect(stderr).toBe('');
  });

  it.each([
    [['--server', 'nginx'], /^--server must be trestle, fastify or node, not "nginx"\./],
    [['--window', '0'], /^--warm, --window, --windows and --functions must be whole numbers \(--window and --windows at least 1\)\./],
    [['--functions', 'many'], /^--warm, --window, --windows and --functions must be whole numbers/],
    [['--mix'], /^--mix needs --catalogue/],
    [['--catalogue', '--server', 'node'], /^--catalogue has a trestle and a fastify server only\./],
    [['--event', 'Bcm'], /^--event must be Ir, or with --cache-sim one of I1mr, .*Bim; not "Bcm"\./],
    [['--cache-sim', '--event', 'cycles'], /^--event must be Ir, or with --cache-sim one of/],
    [['--node-flags=--max-inlined-bytecode-size=0 inline'], /^--node-flags takes node's own flags, each starting with --; not "inline"\./],
    [['--bogus'], /^Unknown option '--bogus'/],
  ])('%j is refused with the reason and the usage (exit 2)', async (args, reason) => {
    const { code, stdout, stderr } = await instructions(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(reason);
    expect(stderr).toContain('Usage: npm run bench:instructions -- [options]');
  });

  it('--from reports a saved window again (--functions, --kinds) without valgrind, per request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'instructions-from-'));
    try {
      // Two requests: a builtin, SQLite, the server's JavaScript (named by the perf map) and Node's.
      writeFileSync(join(dir, 'perf.map'), ['1000 40 JS:*handle file:///x/build/example.mjs:10:1', '2000 10 JS:*nextTick node:internal/process/task_queues:103:18'].join('\n'));
      writeFileSync(join(dir, 'requests'), '2\n');
      writeFileSync(join(dir, 'callgrind.out'), [
        'version: 1',
        'positions: instr',
        'events: Ir I1mr D1mr D1mw Bcm Bim',
        'ob=(1) /usr/bin/node',
        'fn=(1) Builtins_LoadIC',
        '0x500 40 2 2 0 4 0',
        'ob=(2) /x/build/Release/better_sqlite3.node',
        'fn=(2) sqlite3VdbeExec',
        '0x700 200 6 8 2 10 4',
        'ob=(3) ???',
        'fn=(3) 0x0000000000001000',
        '0x1000 60 8 4 0 2 0',
        'fn=(4) 0x0000000000002000',
        '0x2000 20 0 0 0 0 0',
        'totals: 320 16 14 2 16 4',
      ].join('\n'));
      const { code, stdout, stderr } = await instructions(['--from', dir, '--kinds', '--functions', '2']);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`${dir}: 2 requests, with the cache simulation`);
      expect(stdout).toMatch(/by function:\n +100 {2}sqlite3VdbeExec \[better_sqlite3\.node\]\n +30 {2}JS:\*handle example\.mjs:10:1\n/);
      const kinds = stdout.slice(stdout.indexOf('by kind of code'));
      expect(kinds).toMatch(/\n *Ir +I1mr +D1mr +D1mw +Bcm +Bim\n/);
      expect(kinds).toMatch(/\nSQLite and better-sqlite3 +100 +3 +4 +1 +5 +2\n/);
      expect(kinds).toMatch(/\nthe server's own JavaScript +30 +4 +2 +0 +1 +0\n/);
      expect(kinds).toMatch(/\nV8's builtins +20 +1 +1 +0 +2 +0\n/);
      expect(kinds).toMatch(/\nNode's JavaScript +10 +0 +0 +0 +0 +0\n/);
      expect(kinds).toMatch(/\ntotal +160 +8 +7 +1 +8 +2\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--from a folder --save did not write is refused (exit 2)', async () => {
    const { code, stdout, stderr } = await instructions(['--from', '/nonexistent/instructions', '--kinds']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^--from \/nonexistent\/instructions: no requests there \(write it with --save \/nonexistent\/instructions\)\./);
  });
});
