/** `trestle` as bin/trestle.js runs it, for bundling: `node cli.mjs serve --workers 2 …`. */
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
