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
  /** Non-2xx answers and socket errors over all measured runs (should be 0). */
  failures: number;
  note?: string;
}

export interface BudgetLine {
  target: string;
  value: string;
  met: boolean | null;
}

const find = (rows: readonly Row[], server: string, name: string) => rows.find((r) => r.server === server && r.name === name);

/** Trestle's req/s over Fastify's for the same workload, or `null`. */
export function ratioOf(rows: readonly Row[], row: Row): number | null {
  if (row.server !== 'trestle') return null;
  const base = find(rows, 'fastify', row.name);
  return base && base.rps > 0 ? row.rps / base.rps : null;
}

const pad = (s: string, n: number, right = false) => (right ? s.padStart(n) : s.padEnd(n));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

export function formatTable(rows: readonly Row[]): string {
  const head = ['workload', 'case', 'server', 'req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'T/F'];
  const body = rows.map((r) => {
    const ratio = ratioOf(rows, r);
    return [r.workload, r.name, r.server, r.rps.toFixed(0), String(r.p50), String(r.p99), mb(r.rssBytes),
      ratio === null ? '' : `${ratio.toFixed(2)}x`].concat(r.failures ? [`(${r.failures} failed)`] : [], r.note ? [r.note] : []);
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const right = [false, false, false, true, true, true, true, true];
  const line = (cells: string[]) =>
    cells.slice(0, head.length).map((c, i) => pad(c, widths[i]!, right[i])).join(' | ') + (cells.length > head.length ? '  ' + cells.slice(head.length).join('; ') : '');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** The budget of bench/README.md, each target with its measured value. */
export function checkBudget(rows: readonly Row[]): BudgetLine[] {
  const out: BudgetLine[] = [];
  for (const r of rows) {
    if ((r.workload === 'W1' || r.workload === 'W2') && r.server === 'trestle') {
      const ratio = ratioOf(rows, r);
      if (ratio === null || r.name.includes('1M, exact') || r.name.includes('1M, capped')) continue;
      out.push({ target: `${r.workload} ${r.name}: Trestle ≥ 0.90x Fastify`, value: `${ratio.toFixed(2)}x`, met: ratio >= 0.9 });
    }
  }
  const exact = find(rows, 'trestle', 'page 2, 1M, exact count');
  const capped = find(rows, 'trestle', 'page 2, 1M, capped count');
  if (exact && capped) {
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
  const trestleRss = rows.filter((r) => r.server.startsWith('trestle') && !r.server.includes('×2')).map((r) => r.rssBytes);
  if (trestleRss.length > 0) {
    const peak = Math.max(...trestleRss);
    out.push({ target: 'Trestle RSS under load < 120 MB (one process)', value: `${mb(peak)} MB peak`, met: peak < 120 * 1024 * 1024 });
  }
  return out;
}

export function formatBudget(lines: readonly BudgetLine[]): string {
  return ['Budget:', ...lines.map((l) => `  [${l.met === null ? ' ? ' : l.met ? 'met' : 'MISSED'}] ${l.target}: ${l.value}`)].join('\n');
}
