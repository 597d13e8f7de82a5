/**
 * The bench's budget lines: a parity target reads the median ratio, and
 * with the rounds recorded it also shows the range of the rounds' own
 * ratios (Trestle's round i against Fastify's round i, run one after the
 * other), saying whether a miss is inside that spread or every round's.
 */
import { describe, expect, it } from 'vitest';
import { checkBudget, formatTable, medianOf, parity, roundRatiosOf, type Row } from '../../bench/lib/report.js';

function row(server: string, rps: number, cpuUs: number, rounds?: Row['rounds']): Row {
  return { workload: 'W8', name: 'book detail', server, rps, p50: 0, p99: 1, rssBytes: 90 * 1024 * 1024, cpuUsPerRequest: cpuUs, failures: 0, ...(rounds ? { rounds } : {}) };
}

describe('bench budget: the rounds of a parity target', () => {
  it('pairs the rounds by index: req/s as Trestle over Fastify, CPU as Fastify over Trestle', () => {
    const rows = [
      row('trestle', 950, 20, { rps: [900, 950, 1050], cpuUs: [21, 20, 19] }),
      row('fastify', 1000, 20, { rps: [1000, 1000, 1000], cpuUs: [20, 20, 20] }),
    ];
    const r = roundRatiosOf(rows, rows[0]!);
    expect(r.rps).toEqual([0.9, 0.95, 1.05]);
    expect(r.cpu.map((x) => Number(x.toFixed(4)))).toEqual([0.9524, 1, 1.0526]);
    expect(roundRatiosOf(rows, rows[1]!)).toEqual({ rps: [], cpu: [] });
  });

  it('leaves out a round either server measured nothing in, keeping the others paired', () => {
    const rows = [
      row('trestle', 1000, 20, { rps: [1000, 1100, 990], cpuUs: [20, NaN, 22] }),
      row('fastify', 1000, 20, { rps: [1000, 1000, 1000], cpuUs: [20, 20, 20] }),
    ];
    const r = roundRatiosOf(rows, rows[0]!);
    expect(r.rps.map((x) => Number(x.toFixed(2)))).toEqual([1, 1.1, 0.99]);
    expect(r.cpu.map((x) => Number(x.toFixed(4)))).toEqual([1, 0.9091]);
  });

  it('a miss whose rounds reach 1.0x is within their spread; one whose rounds all trail is every round behind', () => {
    const rows = [
      row('trestle', 960, 21, { rps: [930, 960, 1010], cpuUs: [21, 21, 21.5] }),
      row('fastify', 1000, 20, { rps: [1000, 1000, 1000], cpuUs: [20, 20, 20] }),
    ];
    expect(checkBudget(rows)).toEqual([
      { target: 'W8 book detail: Trestle req/s ≥ 1.0x Fastify', value: '0.96x (above the 0.90x floor); rounds 0.93x–1.01x, within their spread', met: false },
      { target: "W8 book detail: Trestle CPU/request ≤ Fastify's (ratio ≥ 1.0x)", value: '0.95x (above the 0.90x floor); rounds 0.93x–0.95x, every round behind', met: false },
    ]);
  });

  it('reads a ratio as the median of the rounds\' own ratios, not as the ratio of the two medians', () => {
    // The machine slowed for the last rounds: each server's median is a round of another speed than its rival's.
    const rows = [
      row('trestle', 1000, 20, { rps: [1040, 1050, 1000, 520, 510], cpuUs: [20, 20, 21, 40, 41] }),
      row('fastify', 1000, 20, { rps: [1000, 1000, 1000, 500, 500], cpuUs: [21, 21, 22, 42, 43] }),
    ];
    expect(checkBudget(rows).map((l) => l.value)).toEqual(['1.04x; rounds 1.00x–1.05x', '1.05x; rounds 1.05x–1.05x']);
    expect(formatTable(rows).split('\n')[2]).toMatch(/\| +1\.04x \| +1\.05x$/);
  });

  it('reads two workers against one by their rounds too', () => {
    const workers = (server: string, name: string, rps: number[], cpuUs: number[]): Row =>
      ({ ...row(server, medianOf(rps)!, medianOf(cpuUs)!, { rps, cpuUs }), workload: 'W7', name });
    const rows = [
      workers('trestle ×1', 'books page 2, 1 worker (unpinned)', [1000, 1000, 600, 600, 600], [60, 60, 61, 62, 60]),
      workers('trestle ×2', 'books page 2, 2 workers (unpinned)', [1800, 1700, 1000, 1000, 1000], [60, 61, 62, 62, 66]),
    ];
    expect(checkBudget(rows)).toEqual([
      { target: 'W7 books page 2: 2 workers ≥ 1.6x the req/s of 1', value: '1.67x', met: true },
      { target: "W7 books page 2: 2 workers' CPU/request within 1.1x of 1", value: '1.02x', met: true },
    ]);
  });

  it('a met target shows the rounds without a verdict; one round, or none recorded, shows the ratio alone', () => {
    expect(parity('t', 1.04, [0.98, 1.04, 1.1])).toEqual({ target: 't', value: '1.04x; rounds 0.98x–1.10x', met: true });
    expect(parity('t', 0.85, [0.85])).toEqual({ target: 't', value: '0.85x (below the 0.90x floor)', met: false });
    const rows = [row('trestle', 1100, 20), row('fastify', 1000, 20)];
    expect(checkBudget(rows).map((l) => l.value)).toEqual(['1.10x', '1.00x']);
  });
});

describe('bench table', () => {
  it('prints a latency to the microsecond, whatever the float arithmetic of a median left', () => {
    const rows = [{ ...row('trestle ×2', 25836, 60), p50: 0.5670000000000001, p99: 1.88 }, { ...row('trestle', 1000, 20), p50: 0.5, p99: 4 }];
    const lines = formatTable(rows).split('\n');
    expect(lines[2]).toMatch(/\| trestle ×2 \| 25836 \| +0\.567 \| +1\.88 \| +90 \| +60 \|/);
    expect(lines[3]).toMatch(/\| trestle +\| +1000 \| +0\.5 \| +4 \| +90 \| +20 \|/);
  });
});
