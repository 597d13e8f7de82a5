import type { MediaType } from '../media-types.js';
import type { Parser, ParseResult } from './base.js';
import { decodeBytes, requestEncoding } from './charset.js';

/**
 * Parses `application/x-www-form-urlencoded` bodies into an object, as
 * Django's `QueryDict` reads them: in the `charset` the Content-Type names
 * when Python knows it (else UTF-8), a body that does not decode in it read
 * as latin-1, each percent-escape decoded in that charset with bad bytes
 * replaced (U+FFFD), never an error; a name sent more than once keeps its
 * last value.
 *
 * ```
 * POST /api-token-auth/
 * Content-Type: application/x-www-form-urlencoded; charset=latin-1
 *
 * username=j%FCrgen&password=…       -> {"username": "jürgen", …}
 * ```
 */
export class FormParser implements Parser {
  mediaType = 'application/x-www-form-urlencoded';

  parse(body: Buffer, contentType: MediaType): ParseResult {
    return { data: parseForm(body, requestEncoding(contentType.params['charset'])), files: {} };
  }
}

/** Python's `parse_qsl(…, keep_blank_values=True, encoding)` over `body`, last value per name. */
export function parseForm(body: Buffer, encoding: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (body.length === 0) return { ...out };
  const text = decodeBytes(body, encoding, true) ?? body.toString('latin1');
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? '' : pair.slice(eq + 1);
    out[unquotePlus(name, encoding)] = unquotePlus(value, encoding);
  }
  return { ...out };
}

/** Python's `unquote(s.replace('+', ' '), encoding, errors='replace')`. */
function unquotePlus(raw: string, encoding: string): string {
  const s = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!s.includes('%')) return s;
  // Each run of ASCII characters is unescaped to bytes and decoded; other characters pass through.
  return s.replace(/[\x00-\x7f]+/g, (run) => decodeBytes(unescapeRun(run), encoding, false)!);
}

function unescapeRun(run: string): Buffer {
  const bits = run.split('%');
  const bytes: number[] = [];
  const push = (text: string) => {
    for (let i = 0; i < text.length; i++) bytes.push(text.charCodeAt(i));
  };
  push(bits[0]!);
  for (let i = 1; i < bits.length; i++) {
    const item = bits[i]!;
    if (/^[0-9A-Fa-f]{2}/.test(item)) {
      bytes.push(parseInt(item.slice(0, 2), 16));
      push(item.slice(2));
    } else {
      bytes.push(0x25);
      push(item);
    }
  }
  return Buffer.from(bytes);
}

export function formToObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of params) out[k] = v;
  return { ...out };
}
