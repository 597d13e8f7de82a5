import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, send, startFaultServer, type FaultServer } from './harness.js';

// Short deadlines, yet long enough that a loaded machine still delivers the
// half bodies before they pass.
const TIMEOUTS = { HEADERS_TIMEOUT: '2', REQUEST_TIMEOUT: '8', IDLE_TIMEOUT: '12' };
const HALF_BODIES = 24;
const DECLARED = 2_000_000;
const SENT = 1_000_000;
const SLOW_HEADERS = 24;
const MiB = 1024 * 1024;

interface SlowClient {
  socket: Socket;
  /** Everything the server sent back. */
  received(): string;
  /** Resolves when the server has closed the connection (or after 20 s, with `false`). */
  closed: Promise<boolean>;
}

function open(port: number): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      let data = '';
      socket.setEncoding('utf8').on('data', (d: string) => (data += d));
      socket.on('error', () => {});
      const closed = new Promise<boolean>((done) => {
        const timer = setTimeout(() => done(false), 20_000);
        socket.once('close', () => {
          clearTimeout(timer);
          done(true);
        });
      });
      resolve({ socket, received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

describe('slow clients are cut off and their memory released', () => {
  let server: FaultServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'trestle-slow-'));
    server = await startFaultServer({ DATABASE_URL: `sqlite:${join(dataDir, 'db.sqlite3')}`, DATA_DIR: dataDir, REDIS_URL: '', ...TIMEOUTS });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('half-sent bodies and slow-loris headers get a 408 and a closed connection; the server keeps serving; memory returns to its baseline', async () => {
    const baseline = await server.memory();

    // Bodies that stop halfway: the server buffers what arrived until the request deadline.
    const halfBodies = await Promise.all(Array.from({ length: HALF_BODIES }, () => open(server.port)));
    const chunk = Buffer.alloc(SENT, 0x7b);
    await Promise.all(
      halfBodies.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.socket.write(
              `POST /faults/pair/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`,
            );
            c.socket.write(chunk, () => resolve());
          }),
      ),
    );

    // Slow-loris: headers that trickle in, a few bytes at a time, never finished.
    const lorises = await Promise.all(Array.from({ length: SLOW_HEADERS }, () => open(server.port)));
    for (const c of lorises) c.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let drips = 0;
    const drip = setInterval(() => {
      // Bounded: at most 60 drips, each well under IDLE_TIMEOUT apart, so only the header deadline can end them.
      if (++drips > 60) return clearInterval(drip);
      for (const c of lorises) if (!c.socket.destroyed) c.socket.write(`X-Drip-${drips}: 1\r\n`);
    }, 300);

    try {
      // The half bodies really are held (so the check below means something). The
      // write callbacks fire once the kernel has the bytes, maybe before the server read them.
      let during = await server.memory();
      await eventually(async () => {
        during = await server.memory();
        return during.arrayBuffers - baseline.arrayBuffers > (HALF_BODIES * SENT) / 2;
      }, 5_000);
      expect(during.arrayBuffers - baseline.arrayBuffers).toBeGreaterThan((HALF_BODIES * SENT) / 2);

      // Everyone else is still served meanwhile.
      const home = await send(server.port, 'GET', '/');
      expect(home.status).toBe(200);
      expect(home.headers['content-type']).toBe('application/json');

      const closed = await Promise.all([...halfBodies, ...lorises].map((c) => c.closed));
      expect(closed.every(Boolean)).toBe(true);
    } finally {
      clearInterval(drip);
      for (const c of [...halfBodies, ...lorises]) c.socket.destroy();
    }

    for (const c of [...halfBodies, ...lorises]) {
      const text = c.received();
      expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(text).toMatch(/\r\nContent-Type: application\/json\r\n/);
      expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('{"detail":"Request timeout."}');
    }

    // The server may not have handled every close yet when the clients see theirs: ask until it has.
    let after = await server.memory();
    await eventually(async () => {
      after = await server.memory();
      return after.arrayBuffers - baseline.arrayBuffers < 4 * MiB;
    }, 15_000);
    expect(after.arrayBuffers - baseline.arrayBuffers).toBeLessThan(4 * MiB);
    expect(after.heapUsed - baseline.heapUsed).toBeLessThan(32 * MiB);
    expect(server.alive()).toBe(true);
    expect((await send(server.port, 'GET', '/')).status).toBe(200);
  }, 60_000);
});
