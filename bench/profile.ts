/**
 * `npm run bench:profile -- [--server trestle|fastify|node] [--path /w1/items/?page=2]
 *   [--seconds 8] [--pg] [--catalogue] [--body JSON] [--top 30]`
 *
 * One server, one request, measured the way `npm run bench` measures it
 * (bundled, pinned to core 0, autocannon on core 1, 16 connections, a
 * warm-up first), run under `node --cpu-prof`: prints the server's CPU
 * microseconds per request (user and system) and the functions with the
 * most self time per request, and keeps the `.cpuprofile` (open it in
 * Chrome's DevTools). The profile covers the whole process, start-up
 * included; the CPU figure covers only the measured run.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, ensurePgDataset, ensureSqliteDataset } from './lib/dataset.js';
import { ensureCataloguePg, ensureCatalogueSqlite } from './lib/catalogue-dataset.js';
import { bundleServers } from './lib/bundle.js';
import { Loader } from './lib/loader.js';
import { startServer } from './lib/server-process.js';
import { AUTH_HEADERS } from './lib/workloads.js';
import { BENCH_SECRET, PG_URL_DEFAULT } from './lib/constants.js';

const HELP = `Usage: npm run bench:profile -- [options]

Profiles one server answering one request under load (see bench/README.md).

Options:
  --server NAME   trestle (default), fastify, node, or serve: \`trestle serve\` (the CLI, as
                  deployed) with the bench project, or the example project with --catalogue
  --path PATH     the request (default /w1/items/?page=2); /w5/ping/ is sent without a token
  --seconds N     length of the measured run (default 8)
  --pg            serve from PostgreSQL (BENCH_PG_URL) instead of SQLite
  --body JSON     POST this JSON body to --path instead of a GET (W8: the workloads' book)
  --catalogue     W7/W8: the example project (trestle) or the hand-written catalogue (fastify) on the catalogue dataset
  --top N         functions to list (default 30)
  -h, --help      this text
`;

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'trestle' },
    path: { type: 'string', default: '/w1/items/?page=2' },
    seconds: { type: 'string', default: '8' },
    pg: { type: 'boolean', default: false },
    catalogue: { type: 'boolean', default: false },
    body: { type: 'string' },
    top: { type: 'string', default: '30' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const kind = values.server as 'trestle' | 'fastify' | 'node' | 'serve';
if (!['trestle', 'fastify', 'node', 'serve'].includes(kind)) {
  process.stderr.write(`--server must be trestle, fastify, node or serve, not "${kind}".\n`);
  process.exit(2);
}
const seconds = Number(values.seconds);
const top = Number(values.top);
if (!(seconds > 0) || !(top > 0)) {
  process.stderr.write('--seconds and --top must be positive numbers.\n');
  process.exit(2);
}
const log = (line: string) => process.stderr.write(`${line}\n`);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (microseconds), idle left out. */
function selfTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const where = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/build\//, '');
    const key = `${frame.functionName || '(anonymous)'}${where ? ` ${where}:${frame.lineNumber + 1}` : ''}`;
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

async function main(): Promise<void> {
  const pgBase = process.env['BENCH_PG_URL'] ?? PG_URL_DEFAULT;
  const catalogue = values.catalogue === true;
  if (catalogue && kind === 'node') throw new Error('--catalogue has a trestle and a fastify server only.');
  const target = catalogue
    ? values.pg ? await ensureCataloguePg(pgBase, log) : await ensureCatalogueSqlite(log)
    : values.pg ? await ensurePgDataset(pgBase, log) : await ensureSqliteDataset(log);
  const bundles = await bundleServers();
  const dir = join(BENCH_DIR, 'results', `profile-${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const profiled = ['--cpu-prof', '--cpu-prof-dir', dir];
  mkdirSync(dir, { recursive: true });
  const loader = new Loader();
  await loader.start();
  const server = await startServer({
    label: kind,
    args: (port) => kind === 'serve'
      ? [...profiled, bundles.cli, 'serve', '--config', catalogue ? bundles.exampleConfig : bundles.config, '--host', '127.0.0.1', '--port', String(port)]
      : [...profiled, catalogue ? (kind === 'trestle' ? bundles.example : bundles.catalogue) : bundles[kind]],
    env: {
      BENCH_DATABASE: target,
      NODE_ENV: 'production',
      ...(catalogue ? { LOG_LEVEL: 'warn' } : {}),
      ...(kind === 'serve' ? { DATABASE_URL: values.pg ? target : `sqlite:${target}`, SECRET_KEY: BENCH_SECRET } : {}),
    },
    core: 0,
  });
  let served = 0;
  let cpuUs = 0;
  try {
    const auth = values.path!.startsWith('/w5/') ? {} : { ...AUTH_HEADERS };
    const request = {
      url: `http://127.0.0.1:${server.port}${values.path}`,
      ...(values.body !== undefined ? { method: 'POST' as const, body: values.body } : {}),
      headers: values.body !== undefined ? { ...auth, 'content-type': 'application/json' } : auth,
      connections: 16,
    };
    log(`warm-up 2 s, then ${seconds} s: ${kind} ${values.path}`);
    await loader.run([{ ...request, duration: 2 }]);
    const before = server.cpuSeconds();
    const [result] = await loader.run([{ ...request, duration: seconds }]);
    served = result!.ok + result!.non2xx;
    cpuUs = ((server.cpuSeconds() - before) * 1e6) / Math.max(1, served);
    if (result!.non2xx + result!.errors > 0) log(`note: ${result!.non2xx} non-2xx answers, ${result!.errors} errors`);
  } finally {
    await server.stop();
    loader.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`No profile was written to ${dir} (did the server exit on SIGTERM?).`);
  const times = selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
  const total = [...times.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`${kind} ${values.path}: ${served} requests, ${cpuUs.toFixed(0)} µs of CPU per request (measured run)\n`);
  process.stdout.write(`profile: ${join(dir, file)} (whole process: ${(total / 1000).toFixed(0)} ms busy)\n\n`);
  process.stdout.write('  µs/req  share  function (self time)\n');
  for (const [name, us] of [...times].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(us / Math.max(1, served)).toFixed(2).padStart(8)}  ${((100 * us) / total).toFixed(1).padStart(4)}%  ${name}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
