/**
 * Indents compact JSON text exactly as `JSON.stringify(value, null, indent)`
 * would, but stops as soon as the result would pass `maxLength` and returns
 * `null`: `Accept: application/json; indent=8` on a deeply nested body
 * otherwise multiplies its size by its depth (an 8 KB body rendered 128 MB).
 */
export function indentJson(compact: string, indent: number, maxLength: number): string | null {
  if (indent <= 0) return compact;
  const pad = ' '.repeat(indent);
  const parts: string[] = [];
  let length = 0;
  let depth = 0;
  let start = 0; // start of the pending verbatim run
  const emit = (s: string): boolean => {
    parts.push(s);
    length += s.length;
    return length <= maxLength;
  };
  const newline = (d: number): string => '\n' + pad.repeat(d);
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charCodeAt(i);
    if (c === 0x22) {
      // Copy a string verbatim, escapes included.
      i++;
      while (i < compact.length && compact.charCodeAt(i) !== 0x22) {
        if (compact.charCodeAt(i) === 0x5c) i++;
        i++;
      }
      continue;
    }
    let out: string | null = null;
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (compact.charCodeAt(i + 1) === close) {
        i++; // `{}` / `[]` stay as they are
        continue;
      }
      depth++;
      out = compact[i]! + newline(depth);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      out = newline(depth) + compact[i]!;
    } else if (c === 0x2c) out = ',' + newline(depth);
    else if (c === 0x3a) out = ': ';
    if (out === null) continue;
    if (i > start && !emit(compact.slice(start, i))) return null;
    if (!emit(out)) return null;
    start = i + 1;
  }
  if (start < compact.length && !emit(compact.slice(start))) return null;
  return parts.join('');
}
