/**
 * The bench's `wrk` load (bench/lib/wrk.ts): its report read into the
 * harness's numbers, and a run that sends a POST's method, headers and body
 * through the Lua script it writes (where `wrk` is installed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWrk, runWrk, wrkAvailable } from '../../bench/lib/wrk.js';

const REPORT_200 = `Running 2s test @ http://127.0.0.1:8912/api/books/?page=2
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.88ms    3.37ms  50.87ms   96.83%
    Req/Sec     2.83k     0.97k    3.97k    70.00%
  Latency Distribution
     50%    1.18ms
     75%    1.76ms
     90%    2.78ms
     99%   18.98ms
  5652 requests in 2.01s, 23.60MB read
Requests/sec:   2809.30
Transfer/sec:     11.73MB
`;

const REPORT_404 = `Running 1s test @ http://127.0.0.1:8913/api/nope/
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     0.90ms    2.02ms  24.13ms   95.12%
    Req/Sec     3.94k     1.60k    6.55k    70.00%
  Latency Distribution
     50%  425.00us
     75%  612.00us
     90%    1.62ms
     99%   11.86ms
  3932 requests in 1.01s, 0.94MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 3932
Requests/sec:   3908.81
Transfer/sec:      0.94MB
`;

describe('parseWrk', () => {
  it('reads the answered requests, their rate and the 50th and 99th percentiles in ms', () => {
    const r = parseWrk(REPORT_200);
    expect(r).toEqual({ rps: 5652 / 2.01, p50: 1.18, p99: 18.98, ok: 5652, non2xx: 0, errors: 0 });
  });

  it('counts non-2xx answers and socket errors apart from the answered ones, and reads µs latencies', () => {
    const r = parseWrk(REPORT_404);
    expect(r.ok).toBe(0);
    expect(r.non2xx).toBe(3932);
    expect(r.errors).toBe(3);
    expect(r.rps).toBe(0);
    expect(r.p50).toBeCloseTo(0.425, 10);
    expect(r.p99).toBe(11.86);
  });

  it('refuses a report without a total or without percentiles', () => {
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n')).toThrow(/wrk printed no total/);
    expect(() => parseWrk(REPORT_200.replace(/^\s+99%.*$/m, ''))).toThrow(/no 99% latency/);
  });
});

const haveWrk = wrkAvailable();
if (!haveWrk) console.warn('wrk is not installed (apt-get install wrk): the live wrk run is skipped');

describe.runIf(haveWrk)('runWrk against a server', () => {
  let server: Server;
  let url: string;
  const seen: Array<{ method: string; type: string | undefined; token: string | undefined; body: string }> = [];
  /** The header names of every request received, in the order they arrived, and how often. */
  const orders = new Map<string, number>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      const order = req.rawHeaders.filter((_, i) => i % 2 === 0).join(', ');
      orders.set(order, (orders.get(order) ?? 0) + 1);
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (seen.length < 5) seen.push({ method: req.method!, type: req.headers['content-type'], token: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(req.url === '/missing/' ? 404 : 201, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the method, headers and body (quotes, a backslash, a control byte before a digit, UTF-8, a newline) and counts the answers', async () => {
    const body = `${JSON.stringify({ title: 'A "quoted" \\title, ünïcode', year: 1999 })}\u00012\n`;
    const r = await runWrk({ url: `${url}/books/`, method: 'POST', headers: { authorization: 'Token abc', 'content-type': 'application/json' }, body, connections: 1, duration: 1 });
    expect(r.ok).toBeGreaterThan(0);
    expect(r.non2xx).toBe(0);
    expect(r.rps).toBeGreaterThan(0);
    expect(seen[0]).toEqual({ method: 'POST', type: 'application/json', token: 'Token abc', body });
  });

  it('sends the headers in one order, sorted by name, in every run (a new order is a new object shape in the server)', async () => {
    orders.clear();
    const headers = { 'x-b': '2', authorization: 'Token abc', 'x-a': '1', 'content-type': 'application/json', accept: 'application/json' };
    for (let run = 0; run < 4; run++) {
      const r = await runWrk({ url: `${url}/books/`, method: 'POST', headers, body: '{}', connections: 1, duration: 1 });
      expect(r.ok).toBeGreaterThan(0);
    }
    expect([...orders.keys()]).toEqual(['Content-Length, Host, accept, authorization, content-type, x-a, x-b']);
  });

  it('counts a 404 as not answered', async () => {
    const r = await runWrk({ url: `${url}/missing/`, connections: 1, duration: 1 });
    expect(r.ok).toBe(0);
    expect(r.non2xx).toBeGreaterThan(0);
  });
});
