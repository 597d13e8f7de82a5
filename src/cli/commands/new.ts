import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command.js';
import { CliError, UsageError } from '../command.js';
import { newProjectFiles } from '../new-project.js';

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Trestle's own package directory (three levels up from src/cli/commands or dist/cli/commands). */
function trestleRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

function readPackage(file: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch {
    return null;
  }
}

/**
 * How the new project should depend on Trestle, so that `npm install` in it
 * works: the way the project in the working directory already does, else
 * the way the running copy of Trestle was installed (the spec its owner's
 * package.json or lockfile records, e.g. the `file:` tarball `npx --package`
 * was given), else, for a source checkout, a `file:` path to the checkout.
 * Local paths are re-based to the new project's directory. Only a copy
 * installed from a registry gives the range `^<version>`.
 */
export function trestleSpecFor(cwd: string, target: string, own: { root: string; version: string }): string {
  return fromProject(cwd, target) ?? fromInstall(own.root, target) ?? fromCheckout(own.root, target) ?? `^${own.version}`;
}

/** The spec of the project around the working directory, if it depends on Trestle. */
function fromProject(cwd: string, target: string): string | null {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && dir !== target) {
      const pkg = readPackage(file);
      if (!pkg || pkg.name === 'trestle') return null;
      const spec = pkg.dependencies?.['trestle'] ?? pkg.devDependencies?.['trestle'];
      return spec ? rebase(spec, dir, target) : null;
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The spec the running copy was installed with, when it sits in a
 * `node_modules` (a project's, or npx's cache `~/.npm/_npx/<hash>/`).
 */
function fromInstall(root: string, target: string): string | null {
  const parent = dirname(root);
  if (basename(parent) !== 'node_modules') return null;
  const owner = dirname(parent);
  const pkg = readPackage(join(owner, 'package.json'));
  const spec = pkg?.dependencies?.['trestle'] ?? pkg?.devDependencies?.['trestle'];
  if (spec) return rebase(spec, owner, target);
  // A copy installed as another package's dependency: what the lockfile resolved.
  for (const lock of ['package-lock.json', join('node_modules', '.package-lock.json')]) {
    const locked = readLock(join(owner, lock))?.packages?.['node_modules/trestle']?.resolved;
    if (typeof locked === 'string') {
      if (/^https?:/.test(locked)) return null;
      return rebase(locked, owner, target);
    }
  }
  return null;
}

function readLock(file: string): { packages?: Record<string, { resolved?: unknown }> } | null {
  return readPackage(file) as { packages?: Record<string, { resolved?: unknown }> } | null;
}

/** A source checkout (not inside a node_modules): a `file:` path to it. */
function fromCheckout(root: string, target: string): string | null {
  if (root.split(sep).includes('node_modules')) return null;
  if (readPackage(join(root, 'package.json'))?.name !== 'trestle') return null;
  return rebase(`file:${root}`, root, target, true);
}

function rebase(spec: string, from: string, to: string, absoluteToo = false): string {
  const local = /^file:(.*)$/.exec(spec)?.[1] ?? (/^\.{0,2}\//.test(spec) ? spec : null);
  if (local === null || (isAbsolute(local) && !absoluteToo)) return spec;
  const path = relative(to, resolve(from, local)).split(sep).join('/');
  return `file:${path.startsWith('.') ? path : `./${path}`}`;
}

/** `trestle new myapi`: writes a small project to start from. */
export const newCommand: Command = {
  name: 'new',
  summary: 'Write a new project (config, one resource with its migration, one test)',
  usage: 'new <name>',
  help: [
    'Writes <name>/ in the working directory: package.json, tsconfig.json, trestle.config.ts,',
    'src/notes.ts (a notes resource), src/migrations.ts, src/routes.ts, src/commands.ts (a project',
    'command) and test/notes.test.ts.',
    'Then: cd <name> && npm install && npm start (serves on SQLite) and npm test.',
    'The project depends on Trestle the way the project in the working directory does, else the way',
    'this copy of Trestle was installed (a file: path to its tarball or checkout; ^version from a registry).',
  ],
  options: {},
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const name = args.positionals[0]!;
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name) || name.length > 214) {
      throw new UsageError(`Invalid project name "${name}": use lower-case letters, digits, ".", "_" and "-" (an npm package name).`);
    }
    const target = resolve(ctx.cwd, name);
    if (existsSync(target) && readdirSync(target).length > 0) {
      throw new CliError(`${target} already exists and is not empty.`);
    }
    const root = trestleRoot();
    const own = readPackage(join(root, 'package.json')) ?? {};
    const tools = { ...own.devDependencies, ...own.dependencies };
    const files = newProjectFiles({
      name,
      trestleSpec: trestleSpecFor(ctx.cwd, target, { root, version: own.version ?? '0.0.0' }),
      tsx: tools['tsx'] ?? 'latest',
      typescript: tools['typescript'] ?? 'latest',
      typesNode: tools['@types/node'] ?? 'latest',
    });
    for (const [file, text] of Object.entries(files)) {
      const path = join(target, file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    ctx.print(`Created ${name}/ (${Object.keys(files).length} files). Next:`);
    ctx.print(`  cd ${name}`);
    ctx.print('  npm install');
    ctx.print('  npm start       # http://127.0.0.1:8000/api/notes/');
    ctx.print('  npm test');
    return 0;
  },
};
