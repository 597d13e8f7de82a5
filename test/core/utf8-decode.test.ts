import { describe, expect, it } from 'vitest';
import { CharsetDecodeError, decodeBody } from '../../src/parsers/charset.js';
import { parsedMediaType, parseMediaType } from '../../src/media-types.js';

/** The byte-by-byte reading of UTF-8 the native check stands in for (Python's stream reader). */
function scan(body: Buffer): string {
  let i = 0;
  while (i < body.length) {
    const b = body[i]!;
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) {
      i += 1;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else throw new CharsetDecodeError('start');
    for (let k = 1; k <= need; k++) {
      if (i + k >= body.length) return body.subarray(0, i).toString('utf8');
      const c = body[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) throw new CharsetDecodeError('continuation');
    }
    i += need + 1;
  }
  return body.toString('utf8');
}

function outcome(f: () => string): string {
  try {
    return `ok:${f()}`;
  } catch (err) {
    return err instanceof CharsetDecodeError ? 'error' : `other:${String(err)}`;
  }
}

describe('UTF-8 bodies', () => {
  it('decode as the byte-by-byte reading does, well-formed or not', () => {
    const samples: Buffer[] = [
      Buffer.from('{"title":"The Bench Orchard"}'),
      Buffer.from('{"t":"é中𝄞"}'),
      Buffer.from([0x22, 0xc3]), // truncated at the end: left undecoded
      Buffer.from([0x22, 0xe4, 0xb8]),
      Buffer.from([0x22, 0xc0, 0xaf]), // overlong
      Buffer.from([0x22, 0xed, 0xa0, 0x80]), // surrogate
      Buffer.from([0x22, 0xf4, 0x90, 0x80, 0x80]), // beyond U+10FFFF
      Buffer.from([0x22, 0xff]),
      Buffer.from([0xe4, 0x41, 0x41]),
      Buffer.alloc(0),
    ];
    // Every one- and two-byte body, and a spread of three-byte ones.
    for (let a = 0; a < 256; a++) {
      samples.push(Buffer.from([a]));
      for (let b = 0; b < 256; b += 3) samples.push(Buffer.from([a, b]), Buffer.from([0x61, a, b, 0x80]));
    }
    for (const body of samples) {
      expect(outcome(() => decodeBody(body, undefined)), body.toString('hex')).toBe(outcome(() => scan(body)));
    }
  });

  it("the error names the first bad byte with Python's wording", () => {
    expect(() => decodeBody(Buffer.from([0x61, 0xe4, 0x41]), 'utf-8')).toThrow("'utf-8' codec can't decode byte 0xe4 in position 1: invalid continuation byte");
  });
});

describe('parsedMediaType', () => {
  it('answers as parseMediaType does, the same frozen value for the same text', () => {
    for (const text of ['application/json', 'Application/JSON; charset="utf-8"', 'text/*', '*/*;q=0.5', 'multipart/form-data; boundary=x']) {
      const cached = parsedMediaType(text);
      expect(cached).toEqual(parseMediaType(text));
      expect(parsedMediaType(text)).toBe(cached);
      expect(Object.isFrozen(cached) && Object.isFrozen(cached.params)).toBe(true);
    }
  });
});
