/**
 * Cursor signatures are HMAC-SHA256 computed from the key's padded blocks;
 * they must be byte for byte what `createHmac` gives, for every key length
 * (short, one block, longer than a block) and any binding or payload.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signCursor, verifyCursor } from '../../src/pagination/cursor-signing.js';

function expectedToken(key: Buffer, binding: string, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', key).update(`${binding}\u0000${body}`, 'utf8').digest('base64url')}`;
}

describe('cursor signatures', () => {
  it('equal createHmac for keys of any length and any binding and payload', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 150 }), fc.string({ unit: 'grapheme' }), fc.jsonValue(), (bytes, binding, payload) => {
        const key = Buffer.from(bytes);
        const token = signCursor(key, binding, payload);
        expect(token).toBe(expectedToken(key, binding, payload));
        expect(verifyCursor(key, binding, token)).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 300 },
    );
  });

  it('equal createHmac with one key over texts longer and shorter than the last', () => {
    const key = Buffer.alloc(32, 9);
    for (const size of [10, 2000, 3, 300, 0, 5000, 40]) {
      const payload = { p: ['é€'.repeat(size), size] };
      expect(signCursor(key, '2|/items/|-created:nf,-id', payload)).toBe(expectedToken(key, '2|/items/|-created:nf,-id', payload));
    }
  });

  it('refuse another key, another binding and any edited character', () => {
    const key = Buffer.alloc(32, 7);
    const token = signCursor(key, '/items/|-created,id', { p: ['2024-01-01T00:00:00.000Z', 5] });
    expect(verifyCursor(Buffer.alloc(32, 8), '/items/|-created,id', token)).toBeUndefined();
    expect(verifyCursor(key, '/other/|-created,id', token)).toBeUndefined();
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const edited = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(verifyCursor(key, '/items/|-created,id', edited)).toBeUndefined();
    }
  });
});
