import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, createApp, path, type TrestleApp } from '../../src/index.js';

// IDLE_TIMEOUT and KEEP_ALIVE_TIMEOUT over real sockets: short, and far enough
// apart that a loaded machine cannot mistake one for the other.
const IDLE_S = 0.5;
const KEEP_ALIVE_S = 2.5;
const BIG = 32 * 1024 * 1024; // more than loopback's socket buffers hold

class Ok extends APIView {
  override authenticationClasses = [];
  get() {
    return { ok: true };
  }
}

class Silent extends APIView {
  override authenticationClasses = [];
  async get() {
    await sleep(IDLE_S * 1000 * 4);
    return { late: true };
  }
}

class Big extends APIView {
  override authenticationClasses = [];
  get() {
    return { data: 'x'.repeat(BIG) };
  }
}

let app: TrestleApp;
let port: number;
const serverSockets: net.Socket[] = [];

beforeAll(async () => {
  app = await createApp({
    logger: false,
    settings: { IDLE_TIMEOUT: IDLE_S, KEEP_ALIVE_TIMEOUT: KEEP_ALIVE_S },
    routes: [path('ok/', Ok), path('silent/', Silent), path('big/', Big)],
  });
  app.server.on('connection', (s: net.Socket) => serverSockets.push(s));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
afterAll(() => app.close());

interface Client {
  socket: net.Socket;
  received(): string;
  /** Resolves with the milliseconds from connect to the server's close. */
  closed: Promise<number>;
}

function connect(read = true): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const opened = Date.now();
      let data = '';
      if (read) socket.setEncoding('utf8').on('data', (d: string) => (data += d));
      socket.on('error', () => {});
      const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)));
      resolve({ socket, received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

const GET = (p: string) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

/** Resolves once `text` has `n` complete responses (bodies sized by Content-Length). */
async function responses(client: Client, n: number): Promise<string[]> {
  for (;;) {
    const out: string[] = [];
    let rest = client.received();
    while (out.length < n) {
      const end = rest.indexOf('\r\n\r\n');
      if (end === -1) break;
      const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
      if (rest.length < end + 4 + length) break;
      out.push(rest.slice(0, end + 4 + length));
      rest = rest.slice(end + 4 + length);
    }
    if (out.length === n) return out;
    if (client.socket.destroyed) throw new Error(`connection closed after ${out.length} of ${n} responses`);
    await sleep(10);
  }
}

describe('IDLE_TIMEOUT', () => {
  it('closes a connection that never sends a byte', async () => {
    const client = await connect();
    const after = await client.closed;
    expect(after).toBeGreaterThanOrEqual(IDLE_S * 1000 - 20);
    expect(client.received()).toBe('');
  });

  it('leaves a kept-alive connection to KEEP_ALIVE_TIMEOUT, then closes it', async () => {
    const client = await connect();
    client.socket.write(GET('/ok/'));
    const [first] = await responses(client, 1);
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first).toMatch(/\r\nKeep-Alive: timeout=2\r\n/);
    expect(first!.endsWith('{"ok":true}')).toBe(true);

    // Well past IDLE_TIMEOUT, well before KEEP_ALIVE_TIMEOUT: the connection still serves.
    await sleep(IDLE_S * 1000 * 2.5);
    expect(client.socket.destroyed).toBe(false);
    const sent = Date.now();
    client.socket.write(GET('/ok/'));
    const [, second] = await responses(client, 2);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(second!.endsWith('{"ok":true}')).toBe(true);

    await client.closed;
    expect(Date.now() - sent).toBeGreaterThanOrEqual(KEEP_ALIVE_S * 1000 - 20);
  });

  it('cuts a request whose handler stays silent for longer, and goes on serving', async () => {
    const client = await connect();
    client.socket.write(GET('/silent/'));
    const after = await client.closed;
    expect(after).toBeGreaterThanOrEqual(IDLE_S * 1000 - 20);
    expect(client.received()).toBe('');

    const next = await connect();
    next.socket.write(GET('/ok/'));
    const [reply] = await responses(next, 1);
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply).toMatch(/\r\ncontent-type: application\/json\r\n/);
    expect(reply!.endsWith('{"ok":true}')).toBe(true);
    next.socket.destroy();
  });

  it('cuts a client that stops reading its response, releasing the server side', async () => {
    const before = serverSockets.length;
    const client = await connect(false);
    client.socket.pause();
    client.socket.write(GET('/big/'));
    while (serverSockets.length === before) await sleep(10);
    const serverSide = serverSockets[before]!;
    const cut = await new Promise<boolean>((done) => {
      const limit = setTimeout(() => done(false), 20_000);
      serverSide.once('close', () => {
        clearTimeout(limit);
        done(true);
      });
    });
    expect(cut).toBe(true);
    // What reached the client before the cut is the head of a 200, never a whole body.
    client.socket.resume();
    const head = await new Promise<string>((done) => {
      let text = '';
      client.socket.setEncoding('latin1').on('data', (d: string) => (text += d));
      client.socket.once('close', () => done(text.slice(0, text.indexOf('\r\n\r\n') + 2)));
    });
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(Number(/content-length: (\d+)/.exec(head)?.[1])).toBeGreaterThan(BIG);
  }, 30_000);
});

describe('IDLE_TIMEOUT with an app that keeps timed-out connections', () => {
  it('tells the app once per stretch of silence, again only after traffic', async () => {
    const keeper = await createApp({ logger: false, settings: { IDLE_TIMEOUT: 0.2 }, routes: [path('ok/', Ok)] });
    // A `timeout` listener on the server takes the decision from Node: the socket stays open.
    const timeouts: net.Socket[] = [];
    keeper.server.on('timeout', (socket: net.Socket) => timeouts.push(socket));
    await keeper.listen({ port: 0, host: '127.0.0.1' });
    const client = net.connect((keeper.server.address() as net.AddressInfo).port, '127.0.0.1');
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('connect', resolve);
        client.once('error', reject);
      });
      let received = '';
      client.setEncoding('utf8').on('data', (d: string) => (received += d));
      // Five deadlines of silence: one timeout, and the connection is still open.
      await sleep(1000);
      expect(timeouts).toHaveLength(1);
      expect(client.destroyed).toBe(false);
      // Traffic starts a new stretch: half a request, then one more timeout after the deadline.
      client.write('GET /ok/ HTTP/1.1\r\n');
      await sleep(1000);
      expect(timeouts).toHaveLength(2);
      expect(timeouts[1]).toBe(timeouts[0]);
      // The kept connection still serves the rest of that request.
      client.write('Host: 127.0.0.1\r\n\r\n');
      while (!received.endsWith('{"ok":true}')) await sleep(10);
      expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(received).toMatch(/\r\ncontent-type: application\/json\r\n/);
    } finally {
      client.destroy();
      await keeper.close();
    }
  });
});
