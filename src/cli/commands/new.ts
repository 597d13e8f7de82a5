import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
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

/** Trestle's own package.json (three levels up from src/cli/commands or dist/cli/commands). */
function trestlePackage(): PackageJson {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'package.json');
  return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
}

/**
 * How the new project should depend on Trestle: the way the project in the
 * working directory already does (a tarball or directory path is re-based
 * to the new project's directory), else the registry range `^<version>`.
 */
export function trestleSpecFor(cwd: string, target: string, version: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && dir !== target) {
      let pkg: PackageJson;
      try {
        pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      } catch {
        break;
      }
      if (pkg.name === 'trestle') break;
      const spec = pkg.dependencies?.['trestle'] ?? pkg.devDependencies?.['trestle'];
      if (spec) return rebase(spec, dir, target);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  return `^${version}`;
}

function rebase(spec: string, from: string, to: string): string {
  const local = /^file:(.*)$/.exec(spec)?.[1] ?? (/^\.{0,2}\//.test(spec) ? spec : null);
  if (local === null || isAbsolute(local)) return spec;
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
    'src/notes.ts (a notes resource), src/migrations.ts, src/routes.ts and test/notes.test.ts.',
    'Then: cd <name> && npm install && npm start (serves on SQLite) and npm test.',
    'The project depends on Trestle the way the project in the working directory does, if any.',
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
    const own = trestlePackage();
    const tools = { ...own.devDependencies, ...own.dependencies };
    const files = newProjectFiles({
      name,
      trestleSpec: trestleSpecFor(ctx.cwd, target, own.version ?? '0.0.0'),
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
