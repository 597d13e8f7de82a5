#!/usr/bin/env node
// The `trestle` command.
//
// The CLI must run on the very copy of Trestle the project imports, or two
// copies of every class exist and `instanceof ApiError` fails. So the CLI is
// found the way the project's `import 'trestle'` is: through the package's
// `exports`, resolved from the working directory (the project's own
// dependency), else from this package itself. Nothing here guesses from the
// files present; a source checkout runs its TypeScript only under
// `node --conditions=trestle-source` (what `npm run trestle` does).
//
// tsx is registered for the whole process so a TypeScript project config
// (trestle.config.ts) loads through the same module loader as the CLI.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();

/** The CLI module of the `trestle` the project in `cwd` depends on, if any. */
function projectCli(cwd) {
  try {
    return pathToFileURL(createRequire(join(cwd, 'package.json')).resolve('trestle/cli')).href;
  } catch {
    return null;
  }
}

let cli;
try {
  cli = await import(projectCli(process.cwd()) ?? 'trestle/cli');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist')) throw err;
  process.stderr.write(
    'trestle: this copy of Trestle is not built (no dist/). Run "npm run build" in it, ' +
      'or in a source checkout use "npm run trestle".\n',
  );
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
