/**
 * Body decoding as Django does it: a `charset` parameter that Python's
 * `codecs.lookup()` knows is the request's encoding; an unknown one is
 * ignored and the body read as UTF-8 (`DEFAULT_CHARSET`).
 */

/** Python's `encodings.normalize_encoding()`, lower-cased as `codecs.lookup()` does. */
function normalize(name: string): string {
  let out = '';
  let punct = false;
  for (const c of name) {
    if (/^[\p{L}\p{N}.]$/u.test(c)) {
      if (punct && out) out += '_';
      if (c.charCodeAt(0) < 128) out += c;
      punct = false;
    } else {
      punct = true;
    }
  }
  return out.toLowerCase();
}

type Codec = 'utf_8' | 'latin_1' | 'ascii' | 'utf_16' | 'utf_16_le' | 'utf_16_be';

/** Python's aliases (encodings/aliases.py) for the codecs decoded here by hand. */
const ALIASES: Record<string, Codec> = {};
for (const [codec, names] of Object.entries({
  utf_8: 'u8 utf utf8 utf8_ucs2 utf8_ucs4 cp65001 utf_8',
  latin_1: '8859 cp819 csisolatin1 ibm819 iso8859 iso8859_1 iso_8859_1 iso_8859_1_1987 iso_ir_100 l1 latin latin1 latin_1',
  ascii: '646 ansi_x3.4_1968 ansi_x3_4_1968 ansi_x3.4_1986 cp367 csascii ibm367 iso646_us iso_646.irv_1991 iso_ir_6 us us_ascii ascii',
  utf_16: 'u16 utf16 utf_16',
  utf_16_le: 'unicodelittleunmarked utf_16le utf_16_le',
  utf_16_be: 'unicodebigunmarked utf_16be utf_16_be',
} as Record<Codec, string>)) {
  for (const n of names.split(' ')) ALIASES[n] = codec as Codec;
}

/** Other codecs both Python and the WHATWG decoder know, by Python's normalized name. */
function whatwgLabel(normalized: string): string | null {
  const m = /^(?:iso_?8859_?|iso_8859_)(\d{1,2})$/.exec(normalized);
  if (m && m[1] !== '1') return `iso-8859-${m[1]}`;
  const cp = /^(?:cp|windows_)(125\d|866|874)$/.exec(normalized);
  if (cp) return cp[1]!.startsWith('125') ? `windows-${cp[1]}` : cp[1] === '866' ? 'ibm866' : 'windows-874';
  const named: Record<string, string> = {
    koi8_r: 'koi8-r', koi8_u: 'koi8-u', shift_jis: 'shift_jis', sjis: 'shift_jis', s_jis: 'shift_jis', shiftjis: 'shift_jis',
    euc_jp: 'euc-jp', eucjp: 'euc-jp', ujis: 'euc-jp', iso2022_jp: 'iso-2022-jp', iso_2022_jp: 'iso-2022-jp', csiso2022jp: 'iso-2022-jp',
    euc_kr: 'euc-kr', euckr: 'euc-kr', gb2312: 'gbk', gbk: 'gbk', cp936: 'gbk', gb18030: 'gb18030', big5: 'big5', csbig5: 'big5',
    mac_cyrillic: 'x-mac-cyrillic', maccyrillic: 'x-mac-cyrillic', mac_roman: 'macintosh', macroman: 'macintosh', macintosh: 'macintosh',
  };
  return named[normalized] ?? null;
}

/** A body that does not decode in the request's charset (Python's `UnicodeDecodeError`). */
export class CharsetDecodeError extends Error {}

/** The encoding Django would read a body in: the charset when Python knows it, else `utf-8`. */
export function requestEncoding(charset: string | undefined): string {
  if (charset === undefined) return 'utf-8';
  const n = normalize(charset);
  return ALIASES[n] ?? whatwgLabel(n) ?? 'utf-8';
}

/** `body` decoded as Django decodes it for `charset`; throws `CharsetDecodeError` with Python's message. */
export function decodeBody(body: Buffer, charset: string | undefined): string {
  const encoding = requestEncoding(charset);
  switch (encoding) {
    case 'utf_8':
    case 'utf-8':
      return decodeUtf8(body);
    case 'latin_1':
      return body.toString('latin1');
    case 'ascii': {
      const bad = body.findIndex((b) => b > 0x7f);
      if (bad !== -1) throw new CharsetDecodeError(`'ascii' codec can't decode byte 0x${hex(body[bad]!)} in position ${bad}: ordinal not in range(128)`);
      return body.toString('latin1');
    }
    case 'utf_16': {
      // A BOM decides the byte order; without one, Python reads native (little-endian) order.
      if (body[0] === 0xfe && body[1] === 0xff) return decodeWith('utf-16be', body.subarray(2), 'utf-16');
      if (body[0] === 0xff && body[1] === 0xfe) return decodeWith('utf-16le', body.subarray(2), 'utf-16');
      return decodeWith('utf-16le', body, 'utf-16');
    }
    case 'utf_16_le':
      return decodeWith('utf-16le', body, 'utf-16-le');
    case 'utf_16_be':
      return decodeWith('utf-16be', body, 'utf-16-be');
    default:
      return decodeWith(encoding, body, encoding);
  }
}

function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}

function decodeWith(label: string, body: Buffer, pythonName: string): string {
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new CharsetDecodeError(`'${pythonName}' codec can't decode the body`);
  }
}

/**
 * UTF-8 as Python's stream reader decodes a whole body: the first bad byte
 * raises with Python's wording; an incomplete sequence at the very end is
 * left undecoded (the reader waits for more bytes that never come).
 */
function decodeUtf8(body: Buffer): string {
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
    } else {
      throw new CharsetDecodeError(`'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid start byte`);
    }
    for (let k = 1; k <= need; k++) {
      if (i + k >= body.length) return body.subarray(0, i).toString('utf8');
      const c = body[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) {
        throw new CharsetDecodeError(`'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid continuation byte`);
      }
    }
    i += need + 1;
  }
  return body.toString('utf8');
}

/** WHATWG labels for the codecs `requestEncoding` names by Python's names (latin-1 and ASCII are decoded by hand). */
const WHATWG: Record<string, string> = { utf_8: 'utf-8', utf_16_le: 'utf-16le', utf_16_be: 'utf-16be' };

/**
 * `bytes` decoded in `encoding` (from `requestEncoding`) as Python's
 * `bytes.decode(encoding, 'strict')` when `strict`, else with
 * `errors='replace'` (each bad sequence becomes U+FFFD). Returns `null`
 * where a strict decode fails.
 */
export function decodeBytes(bytes: Uint8Array, encoding: string, strict: boolean): string | null {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (encoding) {
    case 'latin_1':
      return buf.toString('latin1');
    case 'ascii': {
      let out = '';
      for (const b of buf) {
        if (b > 0x7f) {
          if (strict) return null;
          out += '\ufffd';
        } else out += String.fromCharCode(b);
      }
      return out;
    }
    case 'utf_16':
      // A BOM decides the byte order; without one, Python reads native (little-endian) order.
      if (buf[0] === 0xfe && buf[1] === 0xff) return textDecode('utf-16be', buf.subarray(2), strict);
      if (buf[0] === 0xff && buf[1] === 0xfe) return textDecode('utf-16le', buf.subarray(2), strict);
      return textDecode('utf-16le', buf, strict);
    default:
      return textDecode(WHATWG[encoding] ?? encoding, buf, strict);
  }
}

function textDecode(label: string, bytes: Uint8Array, strict: boolean): string | null {
  try {
    return new TextDecoder(label, { fatal: strict, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
