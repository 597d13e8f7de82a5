#!/usr/bin/env node
// The `trestle` command. tsx is registered for the whole process so a
// TypeScript project config (trestle.config.ts) loads with the same module
// instances as the CLI. In a source checkout (src/ present) the CLI runs the
// TypeScript sources, so they are never stale; an installed package runs its
// compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const entry = existsSync(source) ? source : join(root, 'dist', 'src', 'cli', 'main.js');
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
