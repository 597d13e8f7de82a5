// Code blocks of README.md and docs/*.md, for the docs check in
// package.test.ts. A block's info string is its language and then words:
//
//   ```ts              type-checked against the installed package
//   ```ts fragment     part of a larger program: skipped
//   ```ts runnable     type-checked, then run; its output must equal the
//                      ```text block right after it
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface CodeBlock {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** Line of the first code line (1-based). */
  line: number;
  lang: string;
  flags: string[];
  code: string;
}

/** Every fenced block of one Markdown text, in order. */
export function codeBlocks(markdown: string, file: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [lang = '', ...flags] = open[3]!.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.startsWith(`${open[1]}${open[2]}`); j++) body.push(lines[j]!.slice(open[1]!.length));
    blocks.push({ file, line: i + 2, lang, flags, code: `${body.join('\n')}\n` });
    i = j;
  }
  return blocks;
}

/** README.md and docs/*.md of the repository at `root`. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs];
}

/** Every block of the documentation, with `file` relative to `root`. */
export function documentationBlocks(root: string): CodeBlock[] {
  return documentationFiles(root).flatMap((path) => codeBlocks(readFileSync(path, 'utf8'), relative(root, path)));
}

/** The blocks of one `## heading` section of a Markdown text. */
export function sectionBlocks(markdown: string, file: string, heading: string): CodeBlock[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${file} has no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  const lineOffset = markdown.slice(0, start + 1).split('\n').length - 1;
  return codeBlocks(markdown.slice(start + 1, next < 0 ? undefined : next + 1), file).map((b) => ({ ...b, line: b.line + lineOffset }));
}

/** A TypeScript file name for a block: `docs/core.md` line 40 → `docs-core-40.ts`. */
export function blockFileName(block: CodeBlock): string {
  return `${block.file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}.ts`;
}
