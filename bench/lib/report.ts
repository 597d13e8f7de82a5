/** The table, Trestle / Fastify ratios and the budget of bench/README.md. */

export interface Row {
  workload: string;
  name: string;
  server: string;
  /** Median of the measured runs. */
  rps: number;
  p50: number;
  p99: number;
  /** Peak RSS of the server (and its workers) while measured, bytes. */
  rssBytes: number;
  /** Server CPU time (user + system) per request served, µs; median of the runs. `null` where mixed loads make it meaningless. */
  cpuUsPerRequest: number | null;
  /** Non-2xx answers and socket errors over all measured runs (should be 0). */
  failures: number;
  /** The load generator's CPU time per request, µs; median of the runs (null without /proc). */
  loadCpuUsPerRequest?: number | null;
  /** Each measured round's req/s and CPU µs per request, in the order the rounds ran (a server's round i ran right after or before its rival's round i). */
  rounds?: { rps: number[]; cpuUs: number[] };
  note?: string;
}

export interface BudgetLine {
  target: string;
  value: string;
  met: boolean | null;
}

const find = (rows: readonly Row[], server: string, name: string) => rows.find((r) => r.server === server && r.name === name);

/**
 * Trestle's req/s over Fastify's for the same workload, or `null`: the
 * median of the rounds' own ratios (`roundRatiosOf`) where both rows have
 * rounds, else the ratio of the two medians.
 */
export function ratioOf(rows: readonly Row[], row: Row): number | null {
  if (row.server !== 'trestle') return null;
  const base = find(rows, 'fastify', row.name);
  if (!base || !(base.rps > 0)) return null;
  return medianOf(roundRatiosOf(rows, row).rps) ?? row.rps / base.rps;
}

/**
 * Fastify's CPU per request over Trestle's for the same workload (so, like
 * the req/s ratio, 1.0x is parity and more is better), or `null`; the median
 * of the rounds' own ratios where both rows have rounds, as `ratioOf`.
 */
export function cpuRatioOf(rows: readonly Row[], row: Row): number | null {
  if (row.server !== 'trestle' || !row.cpuUsPerRequest) return null;
  const base = find(rows, 'fastify', row.name);
  if (!base?.cpuUsPerRequest) return null;
  return medianOf(roundRatiosOf(rows, row).cpu) ?? base.cpuUsPerRequest / row.cpuUsPerRequest;
}

/**
 * Trestle's ratio to Fastify in each round, paired by round (the two ran one
 * after the other, so a drift of the machine weighs on both alike): req/s and
 * CPU, each as `ratioOf` and `cpuRatioOf` read it. Empty where a row has no
 * rounds recorded.
 */
export function roundRatiosOf(rows: readonly Row[], row: Row): { rps: number[]; cpu: number[] } {
  const base = row.server === 'trestle' ? find(rows, 'fastify', row.name) : undefined;
  if (!base) return { rps: [], cpu: [] };
  return {
    rps: pairedRatios(row.rounds?.rps, base.rounds?.rps, (x, y) => x / y),
    cpu: pairedRatios(row.rounds?.cpuUs, base.rounds?.cpuUs, (x, y) => y / x),
  };
}

/** `f(a[i], b[i])` for each round both measured (a round that served nothing has no figure). */
function pairedRatios(a: readonly number[] | undefined, b: readonly number[] | undefined, f: (x: number, y: number) => number): number[] {
  if (!a || !b) return [];
  const out: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i]! > 0 && b[i]! > 0) out.push(f(a[i]!, b[i]!));
  return out;
}

/** The median, or `null` of none. */
export function medianOf(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const pad = (s: string, n: number, right = false) => (right ? s.padStart(n) : s.padEnd(n));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
/** A latency in ms as measured (autocannon's whole ms, wrk's µs), to the µs: a median of two is not printed as 0.5670000000000001. */
const ms = (x: number) => String(Number(x.toFixed(3)));

export function formatTable(rows: readonly Row[]): string {
  const head = ['workload', 'case', 'server', 'req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'CPU µs/req', 'T/F req/s', 'T/F CPU'];
  const body = rows.map((r) => {
    const ratio = ratioOf(rows, r);
    const cpuRatio = cpuRatioOf(rows, r);
    return [r.workload, r.name, r.server, r.rps.toFixed(0), ms(r.p50), ms(r.p99), mb(r.rssBytes),
      r.cpuUsPerRequest === null ? '' : r.cpuUsPerRequest.toFixed(0),
      ratio === null ? '' : `${ratio.toFixed(2)}x`, cpuRatio === null ? '' : `${cpuRatio.toFixed(2)}x`,
    ].concat(r.failures ? [`(${r.failures} failed)`] : [], r.note ? [r.note] : []);
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const right = [false, false, false, true, true, true, true, true, true, true];
  const line = (cells: string[]) =>
    cells.slice(0, head.length).map((c, i) => pad(c, widths[i]!, right[i])).join(' | ') + (cells.length > head.length ? '  ' + cells.slice(head.length).join('; ') : '');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** The budget of bench/README.md, each target with its measured value. */
export function checkBudget(rows: readonly Row[]): BudgetLine[] {
  const out: BudgetLine[] = [];
  // Issue budget: W1 (page 2, deep page), W2 (cursor page 2, 500,000 deep), W5, their
  // PostgreSQL twins (W6) and the example's own endpoints (W7, W8) at parity with
  // hand-written Fastify in req/s and in CPU per request; 0.90x is the floor below which a
  // change does not land.
  for (const r of rows) {
    if (!['W1', 'W2', 'W5', 'W6', 'W7', 'W8'].includes(r.workload) || r.server !== 'trestle') continue;
    if (r.name.includes('1M, exact') || r.name.includes('1M, capped')) continue;
    const ratio = ratioOf(rows, r);
    const cpu = cpuRatioOf(rows, r);
    const rounds = roundRatiosOf(rows, r);
    if (ratio !== null) out.push(parity(`${r.workload} ${r.name}: Trestle req/s ≥ 1.0x Fastify`, ratio, rounds.rps));
    if (cpu !== null) out.push(parity(`${r.workload} ${r.name}: Trestle CPU/request ≤ Fastify's (ratio ≥ 1.0x)`, cpu, rounds.cpu));
  }
  const exact = find(rows, 'trestle', 'page 2, 1M, exact count');
  const capped = find(rows, 'trestle', 'page 2, 1M, capped count');
  if (exact && capped && exact.rps > 0) {
    const x = capped.rps / exact.rps;
    out.push({ target: 'W1 1M: capped count ≥ 30x the rate of exact count', value: `${x.toFixed(1)}x`, met: x >= 30 });
  }
  const p2 = find(rows, 'trestle', 'cursor page 2, 1M');
  const deep = find(rows, 'trestle', 'cursor 500,000 deep, 1M');
  if (p2 && deep) {
    const x = p2.rps / deep.rps;
    out.push({ target: 'W2 500,000 deep within 1.2x of W2 page 2', value: `page 2 / deep = ${x.toFixed(2)}x`, met: x <= 1.2 });
  }
  const alone = find(rows, 'trestle', 'W1 page 2 alone (W4 reference)');
  const loaded = rows.find((r) => r.server === 'trestle' && r.workload === 'W4' && r !== alone);
  if (alone && loaded) {
    const x = loaded.p99 / Math.max(1, alone.p99);
    out.push({ target: "W4: W1's p99 with obtain-token ≤ 2x without", value: `${alone.p99} → ${loaded.p99} ms (${x.toFixed(1)}x)`, met: x <= 2 });
  }
  // Scale-out: `trestle serve --workers 2` serves W7 at ≥ 1.6x the req/s of one worker, with
  // CPU per request within 1.1x of one worker.
  for (const one of rows.filter((r) => r.workload === 'W7' && r.server === 'trestle ×1')) {
    const two = find(rows, 'trestle ×2', one.name.replace('1 worker', '2 workers'));
    if (!two || one.rps <= 0) continue;
    // Each round's two workers against its one worker, as the parity lines pair Trestle with Fastify.
    const x = medianOf(pairedRatios(two.rounds?.rps, one.rounds?.rps, (a, b) => a / b)) ?? two.rps / one.rps;
    const label = one.name.replace(/, 1 worker.*$/, '');
    out.push({ target: `W7 ${label}: 2 workers ≥ 1.6x the req/s of 1`, value: `${x.toFixed(2)}x`, met: x >= 1.6 });
    if (one.cpuUsPerRequest && two.cpuUsPerRequest) {
      const c = medianOf(pairedRatios(two.rounds?.cpuUs, one.rounds?.cpuUs, (a, b) => a / b)) ?? two.cpuUsPerRequest / one.cpuUsPerRequest;
      out.push({ target: `W7 ${label}: 2 workers' CPU/request within 1.1x of 1`, value: `${c.toFixed(2)}x`, met: c <= 1.1 });
    }
  }
  const trestleRss = rows
    .filter((r) => r.server === 'trestle' && r.name.includes('10k') && r.workload !== 'W4')
    .map((r) => r.rssBytes);
  if (trestleRss.length > 0) {
    const peak = Math.max(...trestleRss);
    out.push({ target: 'Trestle RSS under load < 120 MB on the 10k workloads (one process, up to 32 connections)', value: `${mb(peak)} MB peak`, met: peak < 120 * 1024 * 1024 });
  }
  return out;
}

/**
 * A parity target: met at 1.0x; between the 0.90x floor and 1.0x it is
 * reported as missed but above the floor. With two rounds or more, the
 * range of the rounds' own ratios follows, and a miss whose rounds reach
 * 1.0x says so: the rounds' spread, not a steady gap.
 */
export function parity(target: string, ratio: number, rounds: readonly number[] = []): BudgetLine {
  let value = `${ratio.toFixed(2)}x${ratio < 1 && ratio >= 0.9 ? ' (above the 0.90x floor)' : ratio < 0.9 ? ' (below the 0.90x floor)' : ''}`;
  if (rounds.length >= 2) {
    const low = Math.min(...rounds);
    const high = Math.max(...rounds);
    value += `; rounds ${low.toFixed(2)}x–${high.toFixed(2)}x`;
    if (ratio < 1 && high >= 1) value += ', within their spread';
    else if (ratio < 1) value += ', every round behind';
  }
  return { target, value, met: ratio >= 1 };
}

export function formatBudget(lines: readonly BudgetLine[]): string {
  return ['Budget:', ...lines.map((l) => `  [${l.met === null ? ' ? ' : l.met ? 'met' : 'MISSED'}] ${l.target}: ${l.value}`)].join('\n');
}
