import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/** The repository's `bin/trestle.js`. */
export const TRESTLE_BIN = fileURLToPath(new URL('../../bin/trestle.js', import.meta.url));

/**
 * `node` arguments that run `bin/trestle.js` on this checkout's TypeScript
 * sources (the package's `trestle-source` export condition), as `npm run
 * trestle` does, so the CLI and the test projects share one copy of `src/`.
 */
export const TRESTLE_NODE_ARGS = ['--conditions=trestle-source', TRESTLE_BIN];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `trestle` binary in `cwd`. DATABASE_URL and TRESTLE_CONFIG
 * are removed from the inherited environment so only what the test passes
 * counts; `input` is written to stdin (which is then closed: no TTY).
 */
export function runTrestle(
  args: string[],
  options: { cwd: string; input?: string; env?: Record<string, string> },
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (!options.env?.['DATABASE_URL']) delete env['DATABASE_URL'];
  if (!options.env?.['TRESTLE_CONFIG']) delete env['TRESTLE_CONFIG'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TRESTLE_NODE_ARGS, ...args], { cwd: options.cwd, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Runs `trestle <args>` in-process through `main()` with `env` as its whole
 * environment. Output is collected until both streams have ended, so lines
 * written just before `main` returns are not lost.
 */
export async function runMain(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; /** stdin says it is a terminal (questions are asked) */ tty?: boolean },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { PassThrough } = await import('node:stream');
  const { finished } = await import('node:stream/promises');
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  if (options.tty) Object.assign(stdin, { isTTY: true });
  stdin.end(options.input ?? '');
  const code = await main(args, { stdin, stdout, stderr }, options.cwd, options.env ?? {});
  stdout.end();
  stderr.end();
  await Promise.all([finished(stdout), finished(stderr)]);
  return { code, stdout: out, stderr: err };
}
