/**
 * `npm run bench`'s options: `--help` prints the usage, and a wrong option
 * or value is refused with the reason and the usage (exit 2) before any
 * dataset is built or server started. The harness runs at import, so it is
 * driven as the process it is.
 */
import { describe, expect, it } from 'vitest';
import { runBenchScript } from '../helpers/bench-script.js';

const bench = (args: string[]) => runBenchScript('bench/run.ts', args);

describe('npm run bench options', () => {
  it('--help prints the usage and exits 0', async () => {
    const { code, stdout, stderr } = await bench(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run bench -- \[options\]/);
    expect(stdout).toContain('--only W1,W7');
    expect(stderr).toBe('');
  });

  it.each([
    [['--only', 'W9'], /^--only: no workload W9 \(there are W1, W2, .*W8, WORKERS\)/],
    [['--runs', '0'], /^--runs must be a whole number of rounds \(1 or more\), not 0/],
    [['--processes', '1.5'], /^--processes must be a whole number of server starts \(1 or more\), not 1\.5/],
    [['--connections', 'many'], /^--connections must be a whole number of connections \(1 or more\), not many/],
    [['--load', 'siege'], /^--load must be autocannon or wrk, not siege/],
    [['--bogus'], /^Unknown option '--bogus'/],
  ])('%j is refused with the reason and the usage (exit 2)', async (args, reason) => {
    const { code, stdout, stderr } = await bench(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(reason);
    expect(stderr).toContain('Usage: npm run bench -- [options]');
  });
});
