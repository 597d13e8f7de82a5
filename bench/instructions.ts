/**
 * `npm run bench:instructions -- [--server trestle|fastify|node] [--path /w1/items/?page=2]
 *   [--catalogue] [--body JSON] [--mix] [--warm 10000] [--window 4000] [--windows 3] [--functions N]
 *   [--callers NAME] [--cache-sim] [--kinds] [--save DIR]`
 *   (or `--from DIR [--functions N] [--callers NAME] [--kinds] [--event NAME]`: a saved window again)
 *
 * One bundled server under `valgrind --tool=callgrind`, counting the
 * instructions the whole process (every thread) runs per request, over
 * windows of requests after a warm-up. Where a machine's speed moves by
 * more than a change does (interleaved rounds of CPU time varying by 20 %),
 * instruction counts still tell two builds apart: the same build counted
 * twice agrees to about 0.1 % once V8 has optimized the path. They are a
 * proxy (an instruction is not a nanosecond, and the kernel's part is not
 * counted); `npm run bench` stays the measure. SQLite only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ensureSqliteDataset } from './lib/dataset.js';
import { ensureCatalogueSqlite } from './lib/catalogue-dataset.js';
import { bundleServers } from './lib/bundle.js';
import { callersOf, dumpCosts, eventNames, parsePerfMap } from './lib/callgrind.js';
import { commandLine } from './lib/command-line.js';
import { freePort } from './lib/server-process.js';
import { AUTH_HEADERS, W8_BOOK } from './lib/workloads.js';

const HELP = `Usage: npm run bench:instructions -- [options]

Counts the instructions one server runs per request under valgrind's
callgrind (see bench/README.md). Needs valgrind; SQLite only.

Options:
  --server NAME   trestle (default), fastify or node
  --path PATH     the request (default /w1/items/?page=2)
  --body JSON     POST this JSON body to --path instead of a GET
  --catalogue     W7/W8: the example project (trestle) or the hand-written catalogue (fastify)
  --mix           with --catalogue: serve W7's page 2 and W8's POST 1,500 times each first,
                  as the bench's warm-up mixes endpoints
  --warm N        requests of --path before counting (default 10000; a first window that
                  differs from the next ones was counted before V8 had optimized the path)
  --window N      requests per counted window (default 4000)
  --windows K     windows (default 3)
  --functions N   also list the N functions with the most instructions of their own per
                  request in the last window, JavaScript named through node's --perf-basic-prof
                  map (valgrind then records each instruction's address: slower)
  --cache-sim     also simulate the caches and branch prediction (valgrind's --cache-sim=yes
                  --branch-sim=yes): per window, misses per request of the first-level instruction
                  and data caches and of the last level, and mispredicted branches per request
  --event NAME    with --functions or --callers: count this event instead of instructions (Ir);
                  with --cache-sim also I1mr, D1mr, D1mw, ILmr, DLmr, DLmw, Bc, Bcm, Bi or Bim
                  (e.g. Bcm: which functions' conditional branches are mispredicted)
  --save DIR      keep the last window's dump (callgrind.out) and node's perf map (perf.map) in DIR,
                  to read again with other events without counting again
  --kinds         also sum the last window's costs by kind of code (the server's own
                  JavaScript, dependencies', Node's, V8's builtins, V8's and Node's C++,
                  SQLite, system libraries), every event counted (with --cache-sim its misses)
  --from DIR      count nothing: report --functions, --callers and --kinds from what
                  --save DIR kept
  --node-flags=F  give the server's node the flags F too (each starting with --; written
                  with "=", as F starts with a dash), e.g.
                  --node-flags=--max-inlined-bytecode-size=0 so that each function's own cost
                  shows rather than inlined into its callers
  --callers NAME  also list who calls the functions whose name contains NAME in the last
                  window and what the calls cost per request, callee included (e.g.
                  KeyedStoreIC_Megamorphic: whose property stores miss their inline caches);
                  NAME,NAME2,… lists each apart
  -h, --help      this text
`;

const { values, refuse } = commandLine(HELP, {
  server: { type: 'string', default: 'trestle' },
  path: { type: 'string', default: '/w1/items/?page=2' },
  body: { type: 'string' },
  catalogue: { type: 'boolean', default: false },
  mix: { type: 'boolean', default: false },
  warm: { type: 'string', default: '10000' },
  window: { type: 'string', default: '4000' },
  windows: { type: 'string', default: '3' },
  functions: { type: 'string', default: '0' },
  callers: { type: 'string' },
  'cache-sim': { type: 'boolean', default: false },
  event: { type: 'string' },
  save: { type: 'string' },
  from: { type: 'string' },
  kinds: { type: 'boolean', default: false },
  'node-flags': { type: 'string', default: '' },
  help: { type: 'boolean', short: 'h', default: false },
});
const kind = values.server as 'trestle' | 'fastify' | 'node';
if (!['trestle', 'fastify', 'node'].includes(kind)) refuse(`--server must be trestle, fastify or node, not "${kind}".`);
const [warm, windowSize, windows, functions] = [values.warm, values.window, values.windows, values.functions].map(Number) as [number, number, number, number];
if (![warm, windowSize, windows, functions].every((n) => Number.isInteger(n) && n >= 0) || windowSize < 1 || windows < 1) {
  refuse('--warm, --window, --windows and --functions must be whole numbers (--window and --windows at least 1).');
}
const SIMULATED = ['I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw', 'Bc', 'Bcm', 'Bi', 'Bim'];
if (values.from === undefined && values.event !== undefined && values.event !== 'Ir' && !(values['cache-sim'] && SIMULATED.includes(values.event))) {
  refuse(`--event must be Ir, or with --cache-sim one of ${SIMULATED.join(', ')}; not "${values.event}".`);
}
const nodeFlags = values['node-flags'].split(/\s+/).filter((flag) => flag !== '');
const notFlag = nodeFlags.find((flag) => !/^--[a-z]/.test(flag));
if (notFlag !== undefined) refuse(`--node-flags takes node's own flags, each starting with --; not "${notFlag}".`);
if (values.mix && !values.catalogue) refuse('--mix needs --catalogue (it serves the catalogue\'s endpoints).');
if (values.catalogue && kind === 'node') refuse('--catalogue has a trestle and a fastify server only.');
for (const tool of values.from === undefined ? ['valgrind', 'callgrind_control'] : []) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) refuse(`${tool} was not found: install valgrind (Debian: apt-get install valgrind).`);
}
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  if (values.from !== undefined) return reportSaved(values.from);
  const source = values.catalogue ? await ensureCatalogueSqlite(log) : await ensureSqliteDataset(log);
  const bundles = await bundleServers();
  const bundle = values.catalogue ? (kind === 'trestle' ? bundles.example : bundles.catalogue) : bundles[kind];
  // A copy, so the POSTs counted here leave the bench's database as it was.
  const dir = mkdtempSync(join(tmpdir(), 'trestle-instructions-'));
  const database = join(dir, 'db.sqlite3');
  copyFileSync(source, database);
  const port = await freePort();
  const out = join(dir, 'callgrind.out');
  const named = functions > 0 || values.callers !== undefined || values.kinds || values.save !== undefined;
  const byFunction = named ? { valgrind: ['--dump-instr=yes', '--dump-line=no'], node: ['--perf-basic-prof'] } : { valgrind: [], node: [] };
  const cacheSim = values['cache-sim'] ? ['--cache-sim=yes', '--branch-sim=yes'] : [];
  const server = spawn('valgrind', ['--tool=callgrind', ...cacheSim, ...byFunction.valgrind, `--callgrind-out-file=${out}`, process.execPath, ...byFunction.node, ...nodeFlags, bundle], {
    env: { ...process.env, BENCH_DATABASE: database, BENCH_PORT: String(port), NODE_ENV: 'production', ...(values.catalogue ? { LOG_LEVEL: 'warn' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/READY \d+|listening on http/.test(output)) resolve();
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened:\n${output.slice(-2000)}`)));
    });
    server.removeAllListeners('exit');
    const auth = values.path!.startsWith('/w5/') ? {} : { ...AUTH_HEADERS };
    const load = (path: string, amount: number, body?: string) =>
      new Promise<{ total: number; non2xx: number }>((resolve, reject) => {
        autocannon(
          {
            url: `http://127.0.0.1:${port}${path}`,
            amount,
            connections: 4,
            ...(body !== undefined ? { method: 'POST' as const, body } : {}),
            headers: body !== undefined ? { ...auth, 'content-type': 'application/json' } : auth,
          },
          (err, result) => (err ? reject(err) : resolve({ total: result.requests.total, non2xx: result.non2xx })),
        );
      });
    const control = (...args: string[]) => spawnSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' });
    if (values.mix) {
      log('mixing: W7 page 2 and W8 POST, 1,500 each');
      await load('/api/books/?page=2', 1500);
      await load('/api/books/', 1500, W8_BOOK);
    }
    log(`warm-up: ${warm} × ${values.path}`);
    if (warm > 0) await load(values.path!, warm, values.body);
    const counts: number[] = [];
    let last = '';
    let lastTotal = 1;
    for (let w = 0; w < windows; w++) {
      control('-z');
      const { total, non2xx } = await load(values.path!, windowSize, values.body);
      if (non2xx > 0) log(`note: ${non2xx} answers were not 2xx`);
      const tag = `window-${w}`;
      control('-d', tag);
      const dumped = readdirSync(dir).filter((f) => f.startsWith('callgrind.out')).map((f) => readFileSync(join(dir, f), 'utf8'));
      const text = dumped.find((t) => t.slice(0, 4000).includes(tag));
      const m = text === undefined ? null : /^(?:summary|totals):\s+(\d+)(.*)$/m.exec(text);
      if (m === null) throw new Error(`callgrind wrote no counts for ${tag}.`);
      counts.push(Number(m[1]) / Math.max(1, total));
      last = text!;
      lastTotal = Math.max(1, total);
      log(`window ${w + 1}/${windows}: ${(counts.at(-1)! / 1000).toFixed(1)}k instructions per request${cacheSim.length > 0 ? cacheMisses(text!, m[1]! + m[2]!, lastTotal) : ''}`);
    }
    const sorted = [...counts].sort((a, b) => a - b);
    process.stdout.write(
      `${kind} ${values.path}: ${counts.map((c) => `${(c / 1000).toFixed(1)}k`).join(', ')} instructions per request ` +
        `(median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(1)}k; windows of ${windowSize} after ${warm} of warm-up${values.mix ? ' and the mix' : ''})\n`,
    );
    const mapFile = `/tmp/perf-${server.pid}.map`;
    const perfMap = existsSync(mapFile) ? readFileSync(mapFile, 'utf8') : '';
    if (values.save !== undefined) {
      mkdirSync(values.save, { recursive: true });
      writeFileSync(join(values.save, SAVED.dump), last);
      writeFileSync(join(values.save, SAVED.map), perfMap);
      writeFileSync(join(values.save, SAVED.requests), `${lastTotal}\n`);
      log(`saved the last window's dump, perf map and request count in ${values.save} (read them again with --from)`);
    }
    if (named) report(last, perfMap, lastTotal);
    rmSync(mapFile, { force: true });
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files `--save` writes and `--from` reads. */
const SAVED = { dump: 'callgrind.out', map: 'perf.map', requests: 'requests' } as const;

/** `--from DIR`: what `--save DIR` kept, reported again without running a server. */
function reportSaved(dir: string): void {
  const read = (name: string) => {
    const file = join(dir, name);
    if (!existsSync(file)) refuse(`--from ${dir}: no ${name} there (write it with --save ${dir}).`);
    return readFileSync(file, 'utf8');
  };
  const requests = Number(read(SAVED.requests).trim());
  if (!(requests >= 1)) refuse(`--from ${dir}: ${SAVED.requests} does not hold a request count.`);
  const dump = read(SAVED.dump);
  const events = eventNames(dump);
  if (values.event !== undefined && !events.includes(values.event)) refuse(`--event ${values.event}: the saved dump has ${events.join(', ')}.`);
  process.stdout.write(`${dir}: ${requests} requests${events.includes('I1mr') ? ', with the cache simulation' : ''}\n`);
  report(dump, read(SAVED.map), requests);
}

/** The last window's functions (--functions), callers (--callers) and kinds of code (--kinds). */
function report(dump: string, perfMap: string, requests: number): void {
  const ranges = parsePerfMap(perfMap);
  const event = values.event ?? 'Ir';
  const patterns = values.callers?.split(',') ?? [];
  // --kinds alone reads the dump per event in printKinds; the one-event costs are for the lists.
  const costs = functions > 0 || patterns.length > 0 ? dumpCosts(dump, ranges, event) : null;
  const print = (rows: [string, number][]) => {
    for (const [name, cost] of rows) process.stdout.write(`${Math.round(cost / requests).toString().padStart(8)}  ${shortName(name)}\n`);
  };
  if (costs !== null) {
    if (functions > 0) {
      process.stdout.write(`\nthe last window's ${event === 'Ir' ? 'instructions' : event} of their own per request, by function:\n`);
      print([...costs.self].sort((a, b) => b[1] - a[1]).slice(0, functions));
    }
    for (const pattern of patterns) {
      process.stdout.write(`\nthe last window's calls to functions named *${pattern}* per request (callee included, ${event}), by caller:\n`);
      print([...callersOf(costs, [pattern])].sort((a, b) => b[1] - a[1]).slice(0, functions > 0 ? functions : 30));
    }
  }
  if (values.kinds) printKinds(dump, ranges, requests);
}

function shortName(name: string): string {
  return name.replace(/file:\/\/\S*\/build\/|\S*\/node_modules\//g, '');
}

/**
 * `--kinds`: the last window's own costs per request summed by the kind of
 * code that ran them, for every event the dump has (instructions, and with
 * --cache-sim the first-level misses and mispredicted branches): where two
 * servers that run about as many instructions differ in misses.
 */
function printKinds(dump: string, ranges: ReturnType<typeof parsePerfMap>, requests: number): void {
  const wanted = ['Ir', 'I1mr', 'D1mr', 'D1mw', 'Bcm', 'Bim'].filter((e) => eventNames(dump).includes(e));
  const byKind = new Map<string, number[]>();
  wanted.forEach((event, column) => {
    for (const [name, cost] of dumpCosts(dump, ranges, event).self) {
      const kind = kindOf(name);
      let row = byKind.get(kind);
      if (row === undefined) byKind.set(kind, (row = wanted.map(() => 0)));
      row[column]! += cost / requests;
    }
  });
  const width = 36;
  process.stdout.write(`\nthe last window's own costs per request, by kind of code:\n${''.padEnd(width)}${wanted.map((e) => e.padStart(9)).join('')}\n`);
  const rows = [...byKind].sort((a, b) => b[1][0]! - a[1][0]!);
  const total = wanted.map((_, i) => rows.reduce((sum, [, row]) => sum + row[i]!, 0));
  for (const [kind, row] of [...rows, ['total', total] as [string, number[]]]) {
    process.stdout.write(`${kind.padEnd(width)}${row.map((v) => Math.round(v).toString().padStart(9)).join('')}\n`);
  }
}

/** The kind of code a function of the dump is (its name as `dumpCosts` gives it). */
function kindOf(name: string): string {
  if (name.startsWith('RegExp:')) return 'regular expressions (compiled)';
  if (name.startsWith('JS:') || name.startsWith('LazyCompile:') || name.startsWith('Function:')) {
    if (/\snode:/.test(name)) return "Node's JavaScript";
    if (name.includes('/node_modules/')) return "dependencies' JavaScript";
    return "the server's own JavaScript";
  }
  if (name.startsWith('Builtins_') || name.startsWith('Builtin:') || name.startsWith('BytecodeHandler:')) return "V8's builtins";
  if (name.endsWith('[better_sqlite3.node]')) return 'SQLite and better-sqlite3';
  if (name.endsWith('[node]')) return "V8's and Node's C++";
  if (name.startsWith('???')) return 'unnamed';
  return 'system libraries (libc, libstdc++, …)';
}

/**
 * With --cache-sim: callgrind's simulated cache misses per request (its first
 * level and last level, instruction and data; valgrind takes the sizes from
 * the host's CPU) and mispredicted branches (conditional and indirect), from
 * the dump's `events:` line and its totals.
 */
function cacheMisses(dump: string, totals: string, requests: number): string {
  const events = eventNames(dump);
  const values = totals.trim().split(/\s+/).map(Number);
  const per = (...names: string[]) => names.reduce((n, name) => n + (values[events.indexOf(name)] ?? 0), 0) / requests;
  if (!events.includes('I1mr')) return '';
  return `; misses per request: L1 instruction ${per('I1mr').toFixed(0)}, L1 data ${per('D1mr', 'D1mw').toFixed(0)}, ` +
    `last level ${per('ILmr', 'DLmr', 'DLmw').toFixed(0)}; mispredicted branches ${per('Bcm').toFixed(0)} conditional, ${per('Bim').toFixed(0)} indirect`;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
