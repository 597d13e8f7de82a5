import { randomFillSync } from 'node:crypto';

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes one, as one
 * flat string. Node's joins twenty pieces into a rope; every response
 * carries the id in `X-Request-Id`, and Node's header check then runs its
 * pattern through V8's slow path, flattening the rope first (about 1 µs of a
 * request's 60). The bytes come from the same generator, drawn 256 ids at a
 * time as Node draws its own; each draw is written out as the text of its
 * 256 ids at once, and an id is a slice of that text (a slice is flat to V8,
 * and costs a fraction of writing each id on its own: docs/decisions.md,
 * "Request ids are made by hand").
 */
export function requestId(): string {
  if (next === IDS_PER_DRAW) draw();
  const at = ID_LENGTH * next++;
  return ids.slice(at, at + ID_LENGTH);
}

const IDS_PER_DRAW = 256;
const ID_LENGTH = 36;
const random = Buffer.alloc(16 * IDS_PER_DRAW);
const text = Buffer.alloc(ID_LENGTH * IDS_PER_DRAW);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
let ids = '';
let next = IDS_PER_DRAW;

function draw(): void {
  randomFillSync(random);
  let j = 0;
  for (let id = 0; id < IDS_PER_DRAW; id++) {
    const at = 16 * id;
    for (let i = 0; i < 16; i++) {
      let b = random[at + i]!;
      if (i === 6) b = (b & 0x0f) | 0x40; // version 4
      else if (i === 8) b = (b & 0x3f) | 0x80; // RFC 4122 variant
      text[j++] = HEX[b >> 4]!;
      text[j++] = HEX[b & 0x0f]!;
      if (i === 3 || i === 5 || i === 7 || i === 9) text[j++] = 0x2d; // -
    }
  }
  ids = text.toString('latin1');
  next = 0;
}
