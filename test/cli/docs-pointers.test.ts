// Every guide a command points at ships with the package: `--help` texts and
// messages name `docs/*.md`, and README.md / docs/*.md link each other, so
// those files must be in what `npm pack` publishes (read from its dry run).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { commands } from '../../src/cli/commands/index.js';

const REPO = resolve(import.meta.dirname, '../..');
const DOC_PATH = /\bdocs\/[\w.-]+\.md\b/g;

let packed: Set<string>;
beforeAll(() => {
  // --ignore-scripts: the list of files is what is checked, not a build.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [info] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  packed = new Set(info!.files.map((f) => f.path));
}, 60_000);

async function help(argv: string[]): Promise<string> {
  const result = await runMain(argv, { cwd: REPO });
  expect(result.code).toBe(0);
  return result.stdout;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('documentation the CLI points at', () => {
  it('every docs/*.md named by a --help text or a CLI message exists and is packed', async () => {
    const texts = [await help(['help']), ...(await Promise.all(commands.map((c) => help([c.name, '--help']))))];
    // Messages printed while running (warnings, errors) are in the sources.
    texts.push(...sourceFiles(join(REPO, 'src', 'cli')).map((f) => readFileSync(f, 'utf8')));
    const named = new Set(texts.flatMap((t) => t.match(DOC_PATH) ?? []));
    expect([...named]).toEqual(expect.arrayContaining(['docs/deployment.md', 'docs/tokens.md', 'docs/migrating-from-drf.md']));
    for (const path of named) {
      expect(existsSync(join(REPO, path)), path).toBe(true);
      expect(packed.has(path), `${path} is not in the package`).toBe(true);
    }
  });

  it('every relative link of README.md and docs/*.md reaches a packed file', () => {
    const pages = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    let links = 0;
    for (const page of pages) {
      expect(packed.has(page), `${page} is not in the package`).toBe(true);
      for (const [, target] of readFileSync(join(REPO, page), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue;
        const file = relative(REPO, normalize(join(REPO, dirname(page), target!.replace(/#.*$/, ''))));
        links++;
        expect(packed.has(file), `${page} links to ${target}, which is not in the package`).toBe(true);
      }
    }
    expect(links).toBeGreaterThan(10);
  });
});
