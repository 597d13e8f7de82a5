/**
 * The load generator's process (pinned to its own core by the harness):
 * receives a batch of runs over IPC, runs them concurrently (autocannon in
 * this process, or `wrk` as a child on the same core), and answers with their
 * summaries and the CPU the batch cost the load generator.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { LoadRequest, LoadResult } from './loader.js';
import { runWrk } from './wrk.js';

function runAutocannon(spec: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        headers: spec.headers ?? {},
        body: spec.body,
        connections: spec.connections,
        duration: spec.duration,
      },
      (err, res) => {
        if (err) return reject(err);
        const seconds = Math.max(0.001, (new Date(res.finish).getTime() - new Date(res.start).getTime()) / 1000);
        resolve({
          rps: res['2xx'] / seconds,
          p50: res.latency.p50,
          p99: res.latency.p99,
          ok: res['2xx'],
          non2xx: res.non2xx,
          errors: res.errors + res.timeouts,
        });
      },
    );
  });
}

/** CPU seconds of this process and of the children it has waited for (`wrk`), from /proc; null elsewhere. */
function cpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // utime, stime, cutime, cstime are fields 14–17; fields[0] here is field 3.
    return [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0) / 100;
  } catch {
    return null;
  }
}

process.on('message', (msg: { id: number; runs: LoadRequest[] }) => {
  const before = cpuSeconds();
  Promise.all(msg.runs.map((spec) => (spec.generator === 'wrk' ? runWrk(spec) : runAutocannon(spec)))).then(
    (results) => {
      const after = cpuSeconds();
      process.send!({ id: msg.id, results, cpuSeconds: before === null || after === null ? null : after - before });
    },
    (err: unknown) => process.send!({ id: msg.id, error: String(err) }),
  );
});
process.send!({ ready: true });
