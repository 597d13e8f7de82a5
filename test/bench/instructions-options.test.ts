/**
 * `npm run bench:instructions`'s options: `--help` prints the usage, and a
 * wrong option or value is refused with the reason and the usage (exit 2)
 * before any dataset is built or valgrind started. The tool runs at
 * import, so it is driven as the process it is.
 */
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
    [['--bogus'], /^Unknown option '--bogus'/],
  ])('%j is refused with the reason and the usage (exit 2)', async (args, reason) => {
    const { code, stdout, stderr } = await instructions(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(reason);
    expect(stderr).toContain('Usage: npm run bench:instructions -- [options]');
  });
});
