import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ProjectConfig } from '../project.js';
import { CliError } from './command.js';

/** A project config and the file it came from (`null`: no config file found). */
export interface LoadedProject {
  /** The config, its `migrations` including those of `migrationsDir`. */
  config: ProjectConfig;
  path: string | null;
  /** `migrationsDir` as an absolute path (null when the project names none). */
  migrationsDir?: string | null;
}

/** A migration file's name: `0001_initial.ts` (not `.d.ts`, nor a name starting with `_` or `.`). */
const MIGRATION_FILE = /^(?![_.])([^.]+)\.(?:ts|mts|js|mjs)$/;

/** File names looked for in the working directory, in order. */
export const CONFIG_FILE_NAMES = ['trestle.config.ts', 'trestle.config.mts', 'trestle.config.js', 'trestle.config.mjs'];

/**
 * Finds the project: `--config path`, else `TRESTLE_CONFIG`, else the first
 * `trestle.config.{ts,mts,js,mjs}` in the working directory. No file is not an
 * error (an empty project); a named file that does not exist is.
 */
export function findProjectFile(cwd: string, explicit: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const named = explicit ?? env['TRESTLE_CONFIG'];
  if (named) {
    const file = isAbsolute(named) ? named : resolve(cwd, named);
    if (!existsSync(file)) throw new CliError(`Config file not found: ${file}`);
    return file;
  }
  for (const name of CONFIG_FILE_NAMES) {
    const file = resolve(cwd, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/** Imports the project file (TypeScript through tsx) and checks its default export. */
export async function loadProject(cwd: string, explicit: string | undefined, env: NodeJS.ProcessEnv): Promise<LoadedProject> {
  const file = findProjectFile(cwd, explicit, env);
  if (!file) return { config: {}, path: null };
  let mod: { default?: unknown };
  try {
    mod = await importConfig(file);
  } catch (err) {
    throw new CliError(`Cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const config = unwrapDefault(mod.default);
  if (typeof config !== 'object' || config === null) {
    throw new CliError(`${file} must have a default export: export default defineProject({ … })`);
  }
  return withMigrationFiles(config as ProjectConfig, file);
}

/**
 * Imports the files of `migrationsDir` (relative to the config file), as the
 * config itself is imported, and adds their default exports to the
 * project's migrations under their file names without the extension.
 */
async function withMigrationFiles(config: ProjectConfig, file: string): Promise<LoadedProject> {
  if (config.migrationsDir === undefined) return { config, path: file, migrationsDir: null };
  if (typeof config.migrationsDir !== 'string' || config.migrationsDir === '') {
    throw new CliError(`${file}: "migrationsDir" must be a folder name, e.g. 'migrations'.`);
  }
  const dir = resolve(dirname(file), config.migrationsDir);
  const migrations = { ...(config.migrations ?? {}) };
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => MIGRATION_FILE.test(n) && !n.endsWith('.d.ts')).sort() : [];
  for (const name of names) {
    const key = MIGRATION_FILE.exec(name)![1]!;
    const path = resolve(dir, name);
    // `index.ts` gathers the folder's files for code that migrates outside the CLI (Python's `__init__.py`).
    if (key === 'index') continue;
    if (key in migrations) {
      // The project imported this file itself (a migration made of operations, under the file's name): the same migration.
      if (Array.isArray((migrations[key] as { operations?: unknown }).operations)) continue;
      throw new CliError(`${path}: a migration named "${key}" is also declared in ${file}.`);
    }
    let mod: { default?: unknown };
    try {
      mod = await importConfig(path);
    } catch (err) {
      throw new CliError(`Cannot load ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const m = unwrapDefault(mod.default) as { up?: unknown } | null | undefined;
    if (typeof m !== 'object' || m === null || typeof m.up !== 'function') {
      throw new CliError(`${path} must have a migration as its default export: export default migration({ operations: [ … ] })`);
    }
    migrations[key] = m as NonNullable<ProjectConfig['migrations']>[string];
  }
  return { config: { ...config, migrations }, path: file, migrationsDir: dir };
}

/**
 * Imports the config with the process's own module loader, so the project and
 * the CLI share one copy of Trestle's modules (`bin/trestle.js` registers tsx
 * for the whole process). Only when a TypeScript file is not loadable that way
 * (tsx not registered, or a .ts config in a CommonJS package) is tsx's
 * isolated `tsImport` used; views still work then, because `createApp` tells
 * view classes from instances without `instanceof`.
 */
async function importConfig(file: string): Promise<{ default?: unknown }> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as { default?: unknown };
  } catch (err) {
    // A .ts file outside a `"type": "module"` package is handed to Node's CommonJS
    // loader, which finds ES module syntax in it and refuses to require it from the
    // import already under way (ERR_REQUIRE_CYCLE_MODULE). The project's TypeScript
    // is then loaded as ES modules (as `import 'trestle'` needs: Trestle is one), on
    // this very loader: a second loader (tsx's `tsImport`) would load a second copy
    // of Trestle and Fastify beside the CLI's.
    const code = (err as { code?: unknown }).code;
    if (!file.endsWith('.ts') || typeof code !== 'string' || !REQUIRE_ESM_ERRORS.has(code)) throw err;
    loadTypeScriptAsModules();
    // Another URL than the failed import's, whose failure the loader keeps.
    return (await import(`${url}?as-module`)) as { default?: unknown };
  }
}

/** What Node's CommonJS loader answers when a file it was given is an ES module it cannot require there. */
const REQUIRE_ESM_ERRORS = new Set(['ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE']);

let typeScriptAsModules = false;

/**
 * A module hook (Node's `module.register`, run before tsx's) that has every
 * `.ts` file outside node_modules loaded as an ES module whatever the nearest
 * package.json says: the config and the files it imports (views, models,
 * migrations). tsx compiles a file in the format the hook asks for.
 */
function loadTypeScriptAsModules(): void {
  if (typeScriptAsModules) return;
  typeScriptAsModules = true;
  const hook = `export async function load(url, context, nextLoad) {
    const path = url.split(/[?#]/)[0];
    if (!url.startsWith('file:') || !path.endsWith('.ts') || path.includes('/node_modules/')) return nextLoad(url, context);
    const loaded = await nextLoad(url, { ...context, format: 'module' });
    return { ...loaded, format: 'module' };
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * A config compiled as CommonJS (a `.cts` file, or JavaScript transpiled
 * from ES modules) has its `export default` one level down.
 */
function unwrapDefault(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'default' in value && (value as { __esModule?: unknown }).__esModule) {
    return (value as { default: unknown }).default;
  }
  return value;
}
