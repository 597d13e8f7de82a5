/**
 * `npm run bench [-- --quick] [--only W1,W2] [--no-pg] [--runs N] [--processes N] [--connections N] [--help]`
 *
 * Builds (once) the dataset, then starts each server in its own process —
 * (a) Trestle, (b) hand-written Fastify, (c) raw node:http, all of one
 * database's at once — and loads them with autocannon from another process
 * (pinned to another core where `taskset` exists): per case a warm-up of
 * each, then measured runs taking turns between the servers. Prints median
 * req/s, p50, p99, peak RSS and Trestle / Fastify per workload, checks the
 * budget (bench/README.md) and writes bench/results/<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ensurePgDataset, ensureSqliteDataset, workingCopy } from './lib/dataset.js';
import { ensureCataloguePg, ensureCatalogueSqlite } from './lib/catalogue-dataset.js';
import { Loader, type LoadRequest, type LoadResult } from './lib/loader.js';
import { startServer, type RunningServer, type ServerSpec } from './lib/server-process.js';
import { AUTH_HEADERS, OBTAIN_TOKEN, WORKERS_PATH, WORKLOADS, type ServerKind, type Workload } from './lib/workloads.js';
import { checkBudget, formatBudget, formatTable, medianOf, type Row } from './lib/report.js';
import { tasksetAvailable } from './lib/cpu.js';
import { wrkAvailable } from './lib/wrk.js';
import { BENCH_SECRET, PG_URL_DEFAULT } from './lib/constants.js';
import { bundleServers, type Bundles } from './lib/bundle.js';
import { commandLine } from './lib/command-line.js';

const HELP = `Usage: npm run bench -- [options]

Trestle against a hand-written Fastify app and raw node:http on the same work,
CPU and req/s ratios taken within one run (see bench/README.md).

Options:
  --quick           warm-up 1 s and one 2 s run per case (about 2 minutes; ±15 %)
  --runs N          measured rounds of 2 s per case, taken in turn between the servers, the order
                    reversed every other round (default 9, 1 with --quick); a ratio is the median
                    of the rounds' own ratios
  --processes N     start the pinned servers N times, each with its own warm-up and rounds, and
                    take the medians over all of them (default 1): a server process's speed
                    varies from one start to the next more than from one round to the next
  --only W1,W7      only these workloads
  --no-pg           skip the PostgreSQL workloads (W6, W8 on PostgreSQL)
  --connections N   connections per load (default 16)
  --load NAME       who sends the load of the pinned rows: autocannon (default) or wrk;
                    the workers rows use wrk wherever it is installed
  -h, --help        this text
`;

const { values, refuse } = commandLine(HELP, {
  quick: { type: 'boolean', default: false },
  only: { type: 'string' },
  'no-pg': { type: 'boolean', default: false },
  connections: { type: 'string', default: '16' },
  runs: { type: 'string' },
  processes: { type: 'string', default: '1' },
  load: { type: 'string', default: 'autocannon' },
  help: { type: 'boolean', short: 'h', default: false },
});
const quick = values.quick === true;
const only = values.only ? new Set(values.only.split(',').map((s) => s.trim().toUpperCase())) : null;
const connections = Number(values.connections);
if (!(Number.isInteger(connections) && connections >= 1)) refuse(`--connections must be a whole number of connections (1 or more), not ${values.connections}`);
const load = values.load as NonNullable<LoadRequest['generator']>;
if (load !== 'autocannon' && load !== 'wrk') refuse(`--load must be autocannon or wrk, not ${values.load}`);
if (load === 'wrk' && !wrkAvailable()) refuse('--load wrk: wrk is not installed (Debian: apt-get install wrk)');
if (only) {
  const known = new Set([...WORKLOADS.map((w) => w.id), 'WORKERS']);
  const unknown = [...only].filter((id) => !known.has(id));
  if (unknown.length > 0) refuse(`--only: no workload ${unknown.join(', ')} (there are ${[...known].join(', ')})`);
}
const warmupSeconds = quick ? 1 : 2;
/**
 * The first warm-up of each request repeats until the server has answered
 * this many of it (at most WARMUP_CAP_SECONDS): V8 optimises by calls, not
 * time, so a slow request (W6, ~900 req/s) was measured while the JIT still
 * compiled (see bench/README.md).
 */
const warmupRequests = quick ? 0 : 20_000;
const WARMUP_CAP_SECONDS = 30;
/**
 * Many short rounds rather than a few long ones: on a shared virtual machine the speed of a
 * core changes from one second to the next (another guest's work), and a ratio is the median
 * of the rounds' own ratios, each taken from two runs a few seconds apart (see
 * bench/README.md, "Rounds").
 */
const runSeconds = 2;
const runs = values.runs !== undefined ? Number(values.runs) : quick ? 1 : 9;
if (!(Number.isInteger(runs) && runs >= 1)) refuse(`--runs must be a whole number of rounds (1 or more), not ${values.runs}`);
const processes = Number(values.processes);
if (!(Number.isInteger(processes) && processes >= 1)) refuse(`--processes must be a whole number of server starts (1 or more), not ${values.processes}`);
const log = (line: string) => process.stderr.write(`${line}\n`);
const started = Date.now();

const loader = new Loader();

const LABELS: Record<ServerKind, string> = { trestle: 'trestle', fastify: 'fastify', node: 'node:http' };

type Dataset = Workload['database'];

function serverSpec(bundles: Bundles, kind: ServerKind, dataset: Dataset, database: string): ServerSpec {
  if (dataset === 'catalogue-sqlite' || dataset === 'catalogue-postgres') {
    // W7, W8: the example project against the hand-written catalogue; warnings only in the log, as the baselines log nothing.
    const bundle = kind === 'trestle' ? bundles.example : bundles.catalogue;
    return { label: LABELS[kind], args: () => [bundle], env: { BENCH_DATABASE: database, LOG_LEVEL: 'warn' }, core: 0 };
  }
  return { label: LABELS[kind], args: () => [bundles[kind]], env: { BENCH_DATABASE: database }, core: 0 };
}

function workersSpec(bundles: Bundles, workers: number, sqliteFile: string): ServerSpec {
  return {
    label: `trestle serve --workers ${workers}`,
    args: (port) => [bundles.cli, 'serve', '--config', bundles.config,
      '--host', '127.0.0.1', '--port', String(port), '--workers', String(workers)],
    env: { DATABASE_URL: `sqlite:${sqliteFile}` },
    // Several workers on one pinned core would measure nothing: the workers rows run unpinned.
    core: null,
  };
}

/** `trestle serve --workers N` with the example project on the catalogue (W7 through workers). */
function exampleWorkersSpec(bundles: Bundles, workers: number, catalogueFile: string): ServerSpec {
  return {
    label: `trestle serve --workers ${workers} (example)`,
    args: (port) => [bundles.cli, 'serve', '--config', bundles.exampleConfig,
      '--host', '127.0.0.1', '--port', String(port), '--workers', String(workers)],
    env: { DATABASE_URL: `sqlite:${catalogueFile}`, SECRET_KEY: BENCH_SECRET, LOG_LEVEL: 'warn' },
    core: null,
  };
}

const median = (xs: readonly number[]): number => medianOf(xs) ?? NaN;

function summarize(results: LoadResult[], cpuUs: number[] = [], loadCpuUs: number[] = []): Pick<Row, 'rps' | 'p50' | 'p99' | 'failures' | 'cpuUsPerRequest' | 'loadCpuUsPerRequest' | 'rounds'> {
  const cpu = cpuUs.filter(Number.isFinite);
  return {
    rounds: { rps: results.map((r) => r.rps), cpuUs },
    rps: median(results.map((r) => r.rps)),
    cpuUsPerRequest: cpu.length > 0 ? median(cpu) : null,
    loadCpuUsPerRequest: loadCpuUs.length > 0 ? median(loadCpuUs) : null,
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    failures: results.reduce((n, r) => n + r.non2xx + r.errors, 0),
  };
}

/** One server's share of a measurement: the requests it is loaded with (all at once). */
interface Contender {
  server: RunningServer;
  requests: LoadRequest[];
}

interface Measured {
  /** Per request: its result in each run. */
  per: LoadResult[][];
  /** Peak RSS while this server was measured. */
  rss: number;
  /** CPU µs per request served, one figure per run (NaN for a run that served nothing). */
  cpuUs: number[];
  /** The load generator's CPU µs per request, one figure per run. */
  loadCpuUs: number[];
}

/**
 * Each server's warm-up, then `runs` rounds in which every server has one
 * measured run in turn, so a drift of the machine over the minutes of a
 * case weighs on all of them alike; every other round takes them in the
 * reverse order, so neither of a pair is always the one measured first
 * (right after the other's load, or after a pause). Peak RSS while each server is measured,
 * and the server's CPU time (user + system, the process and its workers)
 * per request served in each run, in microseconds.
 */
async function measure(contenders: Contender[]): Promise<Measured[]> {
  for (const { server, requests } of contenders) {
    await drain(server);
    await loader.run(requests.map((r) => ({ ...r, duration: warmupSeconds })));
  }
  const out: Measured[] = contenders.map(({ server, requests }) => ({ per: requests.map(() => []), rss: server.rss(), cpuUs: [], loadCpuUs: [] }));
  for (let i = 0; i < runs; i++) {
    const order = contenders.map((_, k) => (i % 2 === 0 ? k : contenders.length - 1 - k));
    for (const k of order) {
      const { server, requests } = contenders[k]!;
      const m = out[k]!;
      await drain(server);
      const timer = setInterval(() => (m.rss = Math.max(m.rss, server.rss())), 200);
      try {
        const cpuBefore = server.cpuSeconds();
        const { results, cpuSeconds } = await loader.runBatch(requests.map((r) => ({ ...r, duration: runSeconds })));
        const served = results.reduce((n, r) => n + r.ok + r.non2xx, 0);
        // NaN keeps the rounds aligned with the rival's (report.ts pairs them by index).
        m.cpuUs.push(served > 0 ? ((server.cpuSeconds() - cpuBefore) * 1e6) / served : NaN);
        if (served > 0 && cpuSeconds !== null) m.loadCpuUs.push((cpuSeconds * 1e6) / served);
        results.forEach((r, j) => m.per[j]!.push(r));
      } finally {
        clearInterval(timer);
      }
      m.rss = Math.max(m.rss, server.rss());
    }
  }
  return out;
}

/**
 * Waits until the server has worked off requests still queued from the
 * previous workload (a slow one leaves seconds of work behind): one request
 * answered means everything queued before it was answered too.
 */
async function drain(server: RunningServer): Promise<void> {
  await fetch(`http://127.0.0.1:${server.port}/w5/ping/`).then((r) => r.arrayBuffer()).catch(() => undefined);
}

/** A workload's case, and who sends its load where it is not autocannon. */
type Case = Pick<Workload, 'id' | 'path' | 'connections' | 'body'> & { generator?: LoadRequest['generator'] };

function request(port: number, w: Case): LoadRequest {
  const headers = w.id === 'W5' ? {} : { ...AUTH_HEADERS };
  return {
    url: `http://127.0.0.1:${port}${w.path}`,
    ...(w.body !== undefined ? { method: 'POST' as const, body: w.body } : {}),
    headers: w.body !== undefined ? { ...headers, 'content-type': 'application/json' } : headers,
    connections: w.connections ?? connections,
    duration: runSeconds,
    generator: w.generator ?? load,
  };
}

function obtainTokenRequest(port: number): LoadRequest {
  return { url: `http://127.0.0.1:${port}${OBTAIN_TOKEN.path}`, method: 'POST', headers: { ...OBTAIN_TOKEN.headers }, body: OBTAIN_TOKEN.body, connections: 2, duration: runSeconds, generator: load };
}

/**
 * Runs each request on the server until `warmupRequests` have been answered
 * (at least `warmupSeconds`, at most WARMUP_CAP_SECONDS): V8 optimises by
 * calls, so a slower server gets as many as a faster one.
 */
async function warmUp(server: RunningServer, label: string, cases: readonly Case[]): Promise<void> {
  log(`warm-up — ${label} (${cases.length} requests, each ${warmupRequests > 0 ? `until ${warmupRequests} answered, ${warmupSeconds}–${WARMUP_CAP_SECONDS} s` : `${warmupSeconds} s`})`);
  for (const w of cases) {
    let answered = 0;
    let spent = 0;
    do {
      await drain(server);
      const [r] = await loader.run([{ ...request(server.port, w), duration: warmupSeconds }]);
      answered += r!.ok + r!.non2xx;
      spent += warmupSeconds;
    } while (answered < warmupRequests && spent < WARMUP_CAP_SECONDS);
  }
}

/**
 * `trestle serve --workers 1` and `--workers 2`, unpinned, both running at
 * once, each warmed up as the single-process servers are, then measured in
 * interleaved rounds like any other pair, so a drift of the machine weighs
 * on one worker and two alike. Two workers and the load generator share the
 * machine's two cores, so the load is sent by `wrk` where it is installed:
 * autocannon's own CPU per request (about a third of a W7 page 2's) would
 * take that much of the second worker's core (see bench/README.md).
 */
async function measureWorkers(workload: string, spec: (workers: number) => ServerSpec, workloadCases: readonly Pick<Workload, 'id' | 'name' | 'path'>[]): Promise<Row[]> {
  const counts = [1, 2] as const;
  const specs = counts.map(spec);
  const generator = workersGenerator();
  const cases = workloadCases.map((w) => ({ ...w, generator }));
  const started: RunningServer[] = [];
  try {
    for (const s of specs) {
      try {
        started.push(await startServer(s));
      } catch (err) {
        log(`${workload} through workers skipped: ${s.label}: ${err instanceof Error ? err.message.split('\n').slice(0, 3).join(' ') : String(err)}`);
        return [];
      }
    }
    for (const [i, server] of started.entries()) await warmUp(server, specs[i]!.label, cases);
    const out: Row[] = [];
    for (const w of cases) {
      log(`${workload} ${w.name} — 1 worker, 2 workers in turn (load: ${generator})`);
      const measured = await measure(started.map((server) => ({ server, requests: [request(server.port, w)] })));
      counts.forEach((workers, i) => {
        const m = measured[i]!;
        const row = summarize(m.per[0]!, m.cpuUs, m.loadCpuUs);
        const client = row.loadCpuUsPerRequest == null ? generator : `${generator} ${row.loadCpuUsPerRequest.toFixed(0)} µs/req`;
        out.push({ workload, name: `${w.name}, ${workers} worker${workers > 1 ? 's' : ''} (unpinned)`, server: `trestle ×${workers}`, ...row, rssBytes: m.rss, note: `load: ${client}` });
      });
    }
    // The table lists one worker's rows, then two workers'.
    return counts.flatMap((workers) => out.filter((r) => r.server === `trestle ×${workers}`));
  } finally {
    for (const server of started) await server.stop();
  }
}

let workersLoad: LoadRequest['generator'] | undefined;

/** `wrk` when it runs here, else autocannon with a warning (once). */
function workersGenerator(): NonNullable<LoadRequest['generator']> {
  if (workersLoad === undefined) {
    workersLoad = wrkAvailable() ? 'wrk' : 'autocannon';
    if (workersLoad === 'autocannon') {
      log('wrk not found (Debian: apt-get install wrk): the workers rows are loaded by autocannon, whose own CPU shares the two cores and lowers what two workers can show');
    }
  }
  return workersLoad!;
}

async function main(): Promise<void> {
  const selected = WORKLOADS.filter((w) => (!quick || w.quick) && (!only || only.has(w.id)));
  const wantWorkers = !only || only.has('W1') || only.has('WORKERS');
  const sqliteFile = await ensureSqliteDataset(log);
  const bundles = await bundleServers();
  const pgBase = process.env['BENCH_PG_URL'] ?? PG_URL_DEFAULT;
  let pgUrl: string | null = null;
  if (!values['no-pg'] && selected.some((w) => w.database === 'postgres')) {
    try {
      pgUrl = await ensurePgDataset(pgBase, log);
    } catch (err) {
      log(`PostgreSQL unavailable, W6 skipped: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const catalogueFile = selected.some((w) => w.database === 'catalogue-sqlite') ? await ensureCatalogueSqlite(log) : null;
  let cataloguePg: string | null = null;
  if (!values['no-pg'] && selected.some((w) => w.database === 'catalogue-postgres')) {
    try {
      cataloguePg = await ensureCataloguePg(pgBase, log);
    } catch (err) {
      log(`PostgreSQL unavailable, W8 on PostgreSQL skipped: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const targets: Record<Dataset, string | null> = { sqlite: sqliteFile, postgres: pgUrl, 'catalogue-sqlite': catalogueFile, 'catalogue-postgres': cataloguePg };
  const loadStart = loadavg()[0]!;
  log(`mode: ${quick ? 'quick' : 'full'} (warm-up ${warmupSeconds} s, ${processes > 1 ? `${processes} processes × ` : ''}${runs} × ${runSeconds} s, ${connections} connections, load: ${load}); ` +
    `pinning: ${tasksetAvailable() ? 'server core 0, load core 1' : 'none'}; load average ${loadStart.toFixed(2)}`);

  await loader.start();
  const rows: Row[] = [];
  try {
    for (const database of ['sqlite', 'postgres', 'catalogue-sqlite', 'catalogue-postgres'] as const) {
      const target = targets[database];
      if (target === null) continue;
      const cases = selected.filter((w) => w.database === database);
      const kinds = (['trestle', 'fastify', 'node'] as const).filter((kind) => cases.some((w) => w.servers.includes(kind)));
      if (kinds.length === 0) continue;
      // Each case's measurements per server, over every process (`--processes`): rounds concatenated.
      const measuredOf = new Map<string, Measured>();
      const keep = (w: Workload, kind: ServerKind, part: string, m: Measured) => {
        const key = `${w.name}|${kind}|${part}`;
        const before = measuredOf.get(key);
        measuredOf.set(key, before === undefined ? m : {
          per: before.per.map((results, j) => [...results, ...m.per[j]!]),
          rss: Math.max(before.rss, m.rss),
          cpuUs: [...before.cpuUs, ...m.cpuUs],
          loadCpuUs: [...before.loadCpuUs, ...m.loadCpuUs],
        });
      };
      for (let p = 0; p < processes; p++) {
        const of = processes > 1 ? ` (process ${p + 1} of ${processes})` : '';
        // All of a database's servers run at once, each idle but while it is measured.
        const servers = new Map<ServerKind, RunningServer>();
        // The catalogue, which W8 writes to: each server its own copy of the seeded file, made afresh for every process.
        const copies: ReturnType<typeof workingCopy>[] = [];
        const databaseOf = (kind: ServerKind): string => {
          if (database !== 'catalogue-sqlite') return target;
          const copy = workingCopy(target, kind);
          copies.push(copy);
          return copy.path;
        };
        try {
          for (const kind of kinds) servers.set(kind, await startServer(serverSpec(bundles, kind, database, databaseOf(kind))));
          // Every request a server will be measured on (but the slow-on-purpose ones) runs once
          // before any case is measured, so the first case meets code as warm as the later ones do.
          for (const kind of kinds) {
            // W8's POSTs are left out too: rows they add before W7 is measured would change W7's pages.
            await warmUp(servers.get(kind)!, LABELS[kind], cases.filter((w) => w.servers.includes(kind) && !w.slow && w.body === undefined));
          }
          for (const w of cases) {
            const here = kinds.filter((kind) => w.servers.includes(kind));
            log(`${w.id} ${w.name} — ${here.map((kind) => LABELS[kind]).join(', ')} in turn${of}`);
            const server = (kind: ServerKind) => servers.get(kind)!;
            if (w.withObtainToken) {
              const alone = await measure(here.map((kind) => ({ server: server(kind), requests: [request(server(kind).port, w)] })));
              const both = await measure(here.map((kind) => ({ server: server(kind), requests: [request(server(kind).port, w), obtainTokenRequest(server(kind).port)] })));
              here.forEach((kind, i) => {
                keep(w, kind, 'alone', alone[i]!);
                keep(w, kind, 'both', both[i]!);
              });
            } else {
              // A POST was left out of the warm-up above: it gets its own, as many requests as every other case.
              if (w.body !== undefined) for (const kind of here) await warmUp(server(kind), LABELS[kind], [w]);
              const measured = await measure(here.map((kind) => ({ server: server(kind), requests: [request(server(kind).port, w)] })));
              here.forEach((kind, i) => keep(w, kind, 'one', measured[i]!));
            }
          }
        } finally {
          for (const server of servers.values()) await server.stop();
          for (const copy of copies) copy.dispose();
        }
      }
      const byKind = new Map<ServerKind, Row[]>(kinds.map((kind) => [kind, []]));
      for (const w of cases) {
        for (const kind of kinds.filter((k) => w.servers.includes(k))) {
          const got = (part: string) => measuredOf.get(`${w.name}|${kind}|${part}`)!;
          if (w.withObtainToken) {
            const alone = got('alone');
            const both = got('both');
            const token = summarize(both.per[1]!);
            byKind.get(kind)!.push(
              { workload: w.id, name: 'W1 page 2 alone (W4 reference)', server: LABELS[kind], ...summarize(alone.per[0]!, alone.cpuUs, alone.loadCpuUs), rssBytes: alone.rss },
              { workload: w.id, name: w.name, server: LABELS[kind], ...summarize(both.per[0]!), rssBytes: both.rss, note: `obtain-token ${token.rps.toFixed(1)} req/s, p99 ${token.p99} ms` },
            );
          } else {
            const m = got('one');
            byKind.get(kind)!.push({ workload: w.id, name: w.name, server: LABELS[kind], ...summarize(m.per[0]!, m.cpuUs, m.loadCpuUs), rssBytes: m.rss });
          }
        }
      }
      for (const kind of kinds) rows.push(...byKind.get(kind)!);
    }
    if (wantWorkers) {
      rows.push(...(await measureWorkers('W1', (workers) => workersSpec(bundles, workers, sqliteFile), [{ id: 'W1', name: 'page 2', path: WORKERS_PATH }])));
    }
    if (catalogueFile !== null && selected.some((w) => w.id === 'W7')) {
      // W8's POSTs went to the servers' own copies: the catalogue file is as seeded.
      rows.push(...(await measureWorkers('W7', (workers) => exampleWorkersSpec(bundles, workers, catalogueFile), selected.filter((w) => w.id === 'W7'))));
    }
  } finally {
    loader.stop();
  }

  const budget = checkBudget(rows);
  const loadEnd = loadavg()[0]!;
  process.stdout.write(`\n${formatTable(rows)}\n\n${formatBudget(budget)}\n`);
  const machine = {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    loadAverage: { start: loadStart, end: loadEnd },
    pinned: tasksetAvailable(),
  };
  if (Math.max(loadStart, loadEnd) > 1) {
    process.stdout.write(`\nNote: 1-minute load average was ${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)}; numbers were taken under load.\n`);
  }
  const dir = join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ startedAt: new Date(started).toISOString(), mode: quick ? 'quick' : 'full', warmupSeconds, warmupRequests, runSeconds, runs, processes, connections, load, machine, rows, budget }, null, 2));
  process.stdout.write(`\nResults: ${file} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
