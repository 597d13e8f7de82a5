import { isUtf8 } from 'node:buffer';

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

/**
 * Other codecs Python knows that the WHATWG decoder can read: the WHATWG
 * label first, then Python's codec name and its aliases (encodings/aliases.py).
 * Python's iso8859_9 and iso8859_11 are read by their WHATWG supersets
 * (windows-1254, windows-874), which differ only in bytes 0x80-0x9F.
 */
const WHATWG_CODECS: Record<string, string> = {
  iso8859_2: 'iso-8859-2 csisolatin2 iso8859_2 iso_8859_2 iso_8859_2_1987 iso_ir_101 l2 latin2',
  iso8859_3: 'iso-8859-3 csisolatin3 iso8859_3 iso_8859_3 iso_8859_3_1988 iso_ir_109 l3 latin3',
  iso8859_4: 'iso-8859-4 csisolatin4 iso8859_4 iso_8859_4 iso_8859_4_1988 iso_ir_110 l4 latin4',
  iso8859_5: 'iso-8859-5 csisolatincyrillic cyrillic iso8859_5 iso_8859_5 iso_8859_5_1988 iso_ir_144',
  iso8859_6: 'iso-8859-6 arabic asmo_708 csisolatinarabic ecma_114 iso8859_6 iso_8859_6 iso_8859_6_1987 iso_ir_127',
  iso8859_7: 'iso-8859-7 csisolatingreek ecma_118 elot_928 greek greek8 iso8859_7 iso_8859_7 iso_8859_7_1987 iso_ir_126',
  iso8859_8: 'iso-8859-8 csisolatinhebrew hebrew iso8859_8 iso_8859_8 iso_8859_8_1988 iso_ir_138',
  iso8859_9: 'windows-1254 csisolatin5 iso8859_9 iso_8859_9 iso_8859_9_1989 iso_ir_148 l5 latin5',
  iso8859_10: 'iso-8859-10 csisolatin6 iso8859_10 iso_8859_10 iso_8859_10_1992 iso_ir_157 l6 latin6',
  iso8859_11: 'windows-874 iso8859_11 iso_8859_11 iso_8859_11_2001 thai',
  iso8859_13: 'iso-8859-13 iso8859_13 iso_8859_13 l7 latin7',
  iso8859_14: 'iso-8859-14 iso8859_14 iso_8859_14 iso_8859_14_1998 iso_celtic iso_ir_199 l8 latin8',
  iso8859_15: 'iso-8859-15 iso8859_15 iso_8859_15 l9 latin9',
  iso8859_16: 'iso-8859-16 iso8859_16 iso_8859_16 iso_8859_16_2001 iso_ir_226 l10 latin10',
  cp1250: 'windows-1250 1250 cp1250 windows_1250',
  cp1251: 'windows-1251 1251 cp1251 windows_1251',
  cp1252: 'windows-1252 1252 cp1252 windows_1252',
  cp1253: 'windows-1253 1253 cp1253 windows_1253',
  cp1254: 'windows-1254 1254 cp1254 windows_1254',
  cp1255: 'windows-1255 1255 cp1255 windows_1255',
  cp1256: 'windows-1256 1256 cp1256 windows_1256',
  cp1257: 'windows-1257 1257 cp1257 windows_1257',
  cp1258: 'windows-1258 1258 cp1258 windows_1258',
  cp866: 'ibm866 866 cp866 csibm866 ibm866',
  cp874: 'windows-874 cp874',
  koi8_r: 'koi8-r cskoi8r koi8_r',
  koi8_u: 'koi8-u koi8_u',
  mac_roman: 'macintosh mac_roman macintosh macroman',
  mac_cyrillic: 'x-mac-cyrillic mac_cyrillic maccyrillic',
  shift_jis: 'shift_jis csshiftjis s_jis shift_jis shiftjis sjis x_mac_japanese',
  euc_jp: 'euc-jp euc_jp eucjp u_jis ujis',
  iso2022_jp: 'iso-2022-jp csiso2022jp iso2022_jp iso2022jp iso_2022_jp',
  euc_kr: 'euc-kr euc_kr euckr korean ks_c_5601 ks_c_5601_1987 ks_x_1001 ksc5601 ksx1001 x_mac_korean',
  gbk: 'gbk 936 cp936 gbk ms936',
  gb2312: 'gbk chinese csiso58gb231280 euc_cn euccn eucgb2312_cn gb2312 gb2312_1980 gb2312_80 iso_ir_58 x_mac_simp_chinese',
  gb18030: 'gb18030 gb18030 gb18030_2000',
  big5: 'big5 big5 big5_tw csbig5 x_mac_trad_chinese',
};

const WHATWG_ALIASES = new Map<string, string>();
for (const names of Object.values(WHATWG_CODECS)) {
  const [label, ...aliases] = names.split(' ');
  for (const alias of aliases) WHATWG_ALIASES.set(alias, label!);
}

const supported = new Map<string, boolean>();
/** The WHATWG label for a normalized Python codec name, when this Node can decode it (its ICU may lack some). */
function whatwgLabel(normalized: string): string | null {
  const label = WHATWG_ALIASES.get(normalized) ?? WHATWG_ALIASES.get(normalized.replaceAll('.', '_'));
  if (label === undefined) return null;
  let ok = supported.get(label);
  if (ok === undefined) {
    try {
      new TextDecoder(label);
      ok = true;
    } catch {
      ok = false;
    }
    supported.set(label, ok);
  }
  return ok ? label : null;
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
  // Well-formed UTF-8 (nearly every body) is checked natively; the scan below
  // only has to find where and how a body that is not goes wrong.
  if (isUtf8(body)) return body.toString('utf8');
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
