/**
 * Compiles each server (and the `trestle` CLI with the bench project) to one
 * plain ESM file with esbuild (tsx's own compiler), dependencies left as
 * imports, so every server runs on bare `node` as in production: no
 * TypeScript loader in the measured process, its memory or its warm-up.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, DATA_DIR } from './dataset.js';

export const BUILD_DIR = join(DATA_DIR, 'build');

/** Entry name → bundled file. */
export interface Bundles {
  trestle: string;
  fastify: string;
  node: string;
  cli: string;
  config: string;
  /** W7, W8: the example project, and the hand-written catalogue. */
  example: string;
  catalogue: string;
  /** The example project with its deployment's host names (example.config.ts), for `trestle serve --workers N` on W7. */
  exampleConfig: string;
}

export async function bundleServers(): Promise<Bundles> {
  const entries = {
    trestle: join(BENCH_DIR, 'servers', 'trestle-server.ts'),
    fastify: join(BENCH_DIR, 'servers', 'fastify-baseline.ts'),
    node: join(BENCH_DIR, 'servers', 'node-http-baseline.ts'),
    cli: join(BENCH_DIR, 'servers', 'trestle-cli.ts'),
    config: join(BENCH_DIR, 'trestle.config.ts'),
    example: join(BENCH_DIR, 'servers', 'example-server.ts'),
    catalogue: join(BENCH_DIR, 'servers', 'catalogue-server.ts'),
    exampleConfig: join(BENCH_DIR, 'example.config.ts'),
  };
  // Chunk names change with their content: the last build's would pile up.
  rmSync(BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: entries,
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // Code shared by entries goes into shared chunks, so the CLI and the project config it
    // loads run on one copy of Trestle, as they do from an installed package (two copies
    // would not recognise each other's database: see docs/performance.md, 2026-11-26 20:00).
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'error',
  });
  const out = (name: keyof typeof entries) => join(BUILD_DIR, `${name}.mjs`);
  return { trestle: out('trestle'), fastify: out('fastify'), node: out('node'), cli: out('cli'), config: out('config'), example: out('example'), catalogue: out('catalogue'), exampleConfig: out('exampleConfig') };
}
