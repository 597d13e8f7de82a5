/**
 * `wrk` as the bench's load generator where a run asks for it: a C client
 * that costs a third of autocannon's CPU per request, for the rows where the
 * load generator shares the server's cores (`trestle serve --workers 2`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult } from './loader.js';

/** True when `wrk` runs here (Debian: `apt-get install wrk`). */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/** `wrk -t1`: one thread, `connections` connections; a POST's method, body and headers through a Lua script. */
export function runWrk(spec: LoadRequest): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'trestle-wrk-'));
  const script = join(dir, 'request.lua');
  const lua = [`wrk.method = ${luaString(spec.method ?? 'GET')}`];
  if (spec.body !== undefined) lua.push(`wrk.body = ${luaString(spec.body)}`);
  for (const [name, value] of Object.entries(spec.headers ?? {})) lua.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  lua.push(FIXED_HEADER_ORDER);
  writeFileSync(script, `${lua.join('\n')}\n`);
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.duration}s`, '--latency', '-s', script, spec.url];
  return new Promise<LoadResult>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out.trim()}`));
      try {
        resolve(parseWrk(out));
      } catch (err) {
        reject(err);
      }
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/**
 * wrk's own `wrk.format` writes the headers in the order of a Lua table's `pairs`, which
 * changes from one run to the next (four orders in six runs of the same script). Node builds
 * each request's `headers` object in the order the headers arrive, so every new order is a
 * new object shape, and the server's optimised code that reads headers was thrown away at the
 * start of such a run (13–14 functions in Trestle, docs/performance.md, 2026-11-28). This
 * `wrk.format` writes them sorted by name: one order in every run. wrk still builds the
 * request once per run (no `request` function is defined), so its cost per request is the same.
 */
const FIXED_HEADER_ORDER = `wrk.format = function(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  headers = headers or wrk.headers
  body = body or wrk.body
  if body and not headers["Content-Length"] then headers["Content-Length"] = tostring(#body) end
  local names = {}
  for name in pairs(headers) do names[#names + 1] = name end
  table.sort(names)
  local lines = { method .. " " .. path .. " HTTP/1.1" }
  for _, name in ipairs(names) do lines[#lines + 1] = name .. ": " .. headers[name] end
  return table.concat(lines, "\\r\\n") .. "\\r\\n\\r\\n" .. (body or "")
end`;

/** A Lua string literal of these UTF-8 bytes: printable ASCII as is, every other byte (and `"`, `\\`) as a three-digit decimal escape (a digit after it cannot join it). */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) out += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  return `${out}"`;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** wrk's report: requests, duration, non-2xx/3xx answers, socket errors, the latency percentiles of `--latency`. */
export function parseWrk(out: string): LoadResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(out);
  if (!total) throw new Error(`wrk printed no total: ${out.trim()}`);
  const seconds = (Number(total[2]) * UNIT_MS[total[3]!]!) / 1000;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  const percentile = (p: string): number => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`wrk printed no ${p}% latency: ${out.trim()}`);
    return Number(m[1]) * UNIT_MS[m[2]!]!;
  };
  const ok = Number(total[1]) - non2xx;
  return { rps: ok / Math.max(0.001, seconds), p50: percentile('50'), p99: percentile('99'), ok, non2xx, errors };
}

