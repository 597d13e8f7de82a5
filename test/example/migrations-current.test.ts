// The example's migrations hold its models: `trestle makemigrations --check`
// in the repository (trestle.config.ts is the example) finds nothing to write,
// and `trestle migrate` has nothing it would refuse.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '../..');

describe('the example catalogue on models', () => {
  it('makemigrations --check: the migrations hold the models', async () => {
    expect(await runMain(['makemigrations', '--check'], { cwd: ROOT })).toEqual({ code: 0, stdout: 'No changes detected\n', stderr: '' });
  });
});
