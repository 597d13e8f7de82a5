/**
 * Query-string helpers with Python's `urllib.parse` semantics, so links
 * match DRF's byte for byte: DRF rebuilds query strings with
 * `urlencode(sorted(parse_qs(query, keep_blank_values=True).items()), doseq=True)`.
 */

const ALWAYS_SAFE = /^[A-Za-z0-9_.\-~]$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8'); // replaces invalid sequences, as errors='replace'

// Strings made only of characters `quote_plus` keeps as they are (most names and values in links).
const ALL_SAFE = /^[A-Za-z0-9_.\-~]*$/;

/** Python's `quote_plus(value, safe='')`. */
export function quotePlus(value: string): string {
  if (ALL_SAFE.test(value)) return value;
  let out = '';
  for (const byte of encoder.encode(value)) {
    const ch = String.fromCharCode(byte);
    if (byte < 0x80 && ALWAYS_SAFE.test(ch)) out += ch;
    else if (byte === 0x20) out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Python's `unquote(value.replace('+', ' '))`: bad escapes are kept as they are. */
export function unquotePlus(value: string): string {
  const text = value.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of encoder.encode(c)) bytes.push(b);
    }
  }
  return decoder.decode(new Uint8Array(bytes));
}

/** Python's `parse_qs(query, keep_blank_values=True)`: names in first-seen order, values in order. */
export function parseQs(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = unquotePlus(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : unquotePlus(pair.slice(eq + 1));
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** Python's `urlencode(sorted(params.items()), doseq=True)`. */
export function urlencodeSorted(params: Map<string, string[]>): string {
  const names = [...params.keys()].sort(comparePython);
  const parts: string[] = [];
  for (const name of names) {
    const k = quotePlus(name);
    for (const v of params.get(name)!) parts.push(`${k}=${quotePlus(v)}`);
  }
  return parts.join('&');
}

const SURROGATE = /[\uD800-\uDFFF]/;

// Python compares str by code point; JS sort compares UTF-16 units. They differ only above U+FFFF.
function comparePython(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ca = [...a].map((c) => c.codePointAt(0)!);
  const cb = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    if (ca[i] !== cb[i]) return ca[i]! - cb[i]!;
  }
  return ca.length - cb.length;
}

function splitUrl(url: string): { base: string; query: string; fragment: string } {
  let rest = url;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    fragment = rest.slice(hash);
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf('?');
  return q === -1 ? { base: rest, query: '', fragment } : { base: rest.slice(0, q), query: rest.slice(q + 1), fragment };
}

function join(base: string, query: string, fragment: string): string {
  return base + (query ? `?${query}` : '') + fragment;
}

/** DRF's `replace_query_param`: sets `key` to `value`, re-encoding the query sorted by name. */
export function replaceQueryParam(url: string, key: string, value: string | number): string {
  const { base, query, fragment } = splitUrl(url);
  const params = parseQs(query);
  params.set(String(key), [String(value)]);
  return join(base, urlencodeSorted(params), fragment);
}

/** DRF's `remove_query_param`: drops `key`, re-encoding the query sorted by name. */
export function removeQueryParam(url: string, key: string): string {
  const { base, query, fragment } = splitUrl(url);
  const params = parseQs(query);
  params.delete(String(key));
  return join(base, urlencodeSorted(params), fragment);
}
