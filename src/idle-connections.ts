import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the sweep last saw of one connection. */
interface Seen {
  /** Bytes read + bytes written when last looked at. */
  bytes: number;
  /** When those bytes last changed (or the connection was last waiting under Node's own timer). */
  since: number;
  /** `timeout` was emitted for this stretch of silence: as Node's timer, once until the next byte. */
  timedOut: boolean;
}

/**
 * IDLE_TIMEOUT: a connection that moves no byte either way for `idleMs`
 * is timed out, exactly as Node's `server.timeout` would (the socket's
 * `timeout` event: Node destroys it unless a listener takes over).
 *
 * Node's own way arms a timer per socket and re-arms it on every request
 * (cancelling the keep-alive timer and creating a new one, about 1 µs a
 * request); here one unreferenced interval looks at every open connection
 * a few times per deadline and compares byte counts, so a request costs
 * nothing. A connection is cut between `idleMs` and `idleMs` plus one
 * interval (at most a second) after its last byte. While a connection
 * waits for its next request under Node's keep-alive timer (or any timer
 * set with `socket.setTimeout`), that timer is in charge and the sweep
 * leaves it alone.
 */
export function watchIdleConnections(server: Server, idleMs: number): void {
  if (!(idleMs > 0)) return;
  const every = Math.max(10, Math.min(1000, Math.floor(idleMs / 4)));
  const open = new Map<Socket, Seen>();
  let timer: NodeJS.Timeout | null = null;

  const sweep = (): void => {
    const now = Date.now();
    for (const [socket, seen] of open) {
      if (socket.destroyed) continue;
      const bytes = socket.bytesRead + (socket.bytesWritten ?? 0);
      // A positive `timeout` is Node's keep-alive wait (or the app's own): not ours to judge.
      if (bytes !== seen.bytes || (socket.timeout ?? 0) > 0) {
        seen.bytes = bytes;
        seen.since = now;
        seen.timedOut = false;
      } else if (!seen.timedOut && now - seen.since >= idleMs) {
        // Node destroys the socket unless a `timeout` listener keeps it; a kept one is told again only after traffic.
        seen.timedOut = true;
        socket.emit('timeout');
      }
    }
  };

  server.on('connection', (socket: Socket) => {
    open.set(socket, { bytes: socket.bytesRead + (socket.bytesWritten ?? 0), since: Date.now(), timedOut: false });
    socket.once('close', () => {
      open.delete(socket);
      if (open.size === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    });
    if (timer === null) timer = setInterval(sweep, every).unref();
  });
}
