// Packs this checkout with `npm pack` and installs the tarball into a fresh
// project outside the repository, the way a user would. Used by
// package.test.ts, once per run: packing and installing is the slow part.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a user's shell would give a child: this run's npm
 * lifecycle variables removed (an inherited `npm_config_local_prefix` would
 * point a nested `npm install` back at the repository), the npm cache kept.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_cafile']);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.toLowerCase().startsWith('npm_') && !keep.has(key.toLowerCase())) continue;
    if (['NODE_OPTIONS', 'DATABASE_URL', 'TRESTLE_CONFIG', 'INIT_CWD', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'TEST', 'NODE_ENV'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to completion; never rejects on a non-zero exit. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Fails with the command's output when it did not exit 0. */
export async function runOk(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.code} in ${options.cwd}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/** A server process and the origin it listens on. */
export interface Server {
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a long-running command and waits until its output names the
 * http://host:port it listens on.
 */
export function startServer(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Server> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so `npm start` and the node it runs stop together.
    detached: true,
  });
  let output = '';
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    await closed;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer): void => {
      output += d.toString('utf8');
      const match = /https?:\/\/(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\]):(\d+)/.exec(output);
      if (match && match[1] !== '0') resolve({ origin: `http://127.0.0.1:${match[1]}`, output: () => output, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`${command} ${args.join(' ')} exited ${code} before listening:\n${output}`)));
  });
}

/** Where the installed package lives, and the project that installed it. */
export interface InstalledPackage {
  /** The temporary directory (outside the repository) holding everything. */
  root: string;
  /** The `npm pack` tarball. */
  tarball: string;
  /** A `"type": "module"` project with the tarball, typescript and @types/node installed. */
  project: string;
  /** The installed package's version. */
  version: string;
}

function repoPackageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * `npm pack` in the checkout (its `prepare` script builds dist/), then
 * `npm install <tarball> typescript @types/node` in an empty project under
 * the system temp directory. Install scripts are skipped and better-sqlite3's
 * native addon is copied from this checkout's build of the very same version
 * (compiling it again costs a minute of CPU and proves nothing about Trestle);
 * any other version is rebuilt.
 */
export async function packAndInstall(): Promise<InstalledPackage> {
  const root = mkdtempSync(join(tmpdir(), 'trestle-package-'));
  const packed = await runOk('npm', ['pack', '--json', '--pack-destination', root], { cwd: REPO });
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; version: string }>;
  const tarball = join(root, info[0]!.filename);
  const project = join(root, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }, null, 2));
  await runOk(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      tarball,
      `typescript@${repoPackageVersion('typescript')}`,
      `@types/node@${repoPackageVersion('@types/node')}`,
    ],
    { cwd: project },
  );
  const sqlite = join(project, 'node_modules', 'better-sqlite3');
  const built = join(REPO, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const installedVersion = (JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string }).version;
  if (installedVersion === repoPackageVersion('better-sqlite3') && existsSync(built)) {
    mkdirSync(join(sqlite, 'build', 'Release'), { recursive: true });
    copyFileSync(built, join(sqlite, 'build', 'Release', 'better_sqlite3.node'));
  } else {
    await runOk('npm', ['rebuild', 'better-sqlite3'], { cwd: project });
  }
  return { root, tarball, project, version: info[0]!.version };
}
