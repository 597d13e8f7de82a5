/**
 * The baselines' own link building: what a careful hand-written app does to
 * produce DRF's links (query names sorted, values `quote_plus`-encoded).
 * Written independently of `src/utils/urls.ts` so the baselines do not
 * inherit the framework's costs; the equivalence test checks the bytes match.
 */

/** `encodeURIComponent` plus the characters Python's `quote_plus` also escapes; spaces as `+`. */
function quotePlus(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

function unquotePlus(value: string): string {
  const text = value.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `url` (absolute, with or without a query) with `key` set to `value`, or
 * removed when `value` is `null`; the query re-encoded sorted by name.
 */
export function withQueryParam(url: string, key: string, value: string | number | null): string {
  const q = url.indexOf('?');
  const base = q === -1 ? url : url.slice(0, q);
  const pairs: [string, string][] = [];
  if (q !== -1) {
    for (const part of url.slice(q + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = unquotePlus(eq === -1 ? part : part.slice(0, eq));
      if (name === key) continue;
      pairs.push([name, eq === -1 ? '' : unquotePlus(part.slice(eq + 1))]);
    }
  }
  if (value !== null) pairs.push([key, String(value)]);
  if (pairs.length === 0) return base;
  // Stable sort by name keeps repeated names in order, as Python's sorted(parse_qs(...).items()).
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = '';
  for (const [name, v] of pairs) out += `${out === '' ? '?' : '&'}${quotePlus(name)}=${quotePlus(v)}`;
  return base + out;
}
