/**
 * The load generator's process (pinned to its own core by the harness):
 * receives a batch of autocannon runs over IPC, runs them concurrently, and
 * answers with their summaries.
 */
import autocannon from 'autocannon';
import type { LoadRequest, LoadResult } from './loader.js';

function runOne(spec: LoadRequest): Promise<LoadResult> {
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

process.on('message', (msg: { id: number; runs: LoadRequest[] }) => {
  Promise.all(msg.runs.map(runOne)).then(
    (results) => process.send!({ id: msg.id, results }),
    (err: unknown) => process.send!({ id: msg.id, error: String(err) }),
  );
});
process.send!({ ready: true });
