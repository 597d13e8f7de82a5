import net from 'node:net';

/** What a server wrote back on a raw socket: status, lower-cased head, body. */
export interface RawReply {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends `text` byte for byte to 127.0.0.1:`port` and reads until the server
 * closes the connection, for requests `inject()` cannot express (malformed
 * lines, duplicate headers, absolute-form targets).
 */
export function rawRequest(port: number, text: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const at = out.indexOf('\r\n\r\n');
      const head = at === -1 ? out : out.slice(0, at);
      resolve({ status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: at === -1 ? '' : out.slice(at + 4) });
    });
  });
}
