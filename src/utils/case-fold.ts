/**
 * The case fold case-insensitive lookups compare with: each character's
 * simple upper case (Unicode's one-to-one mapping, as PostgreSQL's `upper()`
 * applies it per character under a glibc locale such as `C.UTF-8` or
 * `en_US.UTF-8`). `école` and `ÉCOLE` fold alike, so do `σ`, `ς` and `Σ`;
 * `ß` stays `ß` (its full upper case `SS` is two characters), `İ` stays `İ`
 * and `i` becomes `I`. Independent of the process's locale.
 */
export function foldCase(text: string): string {
  const upper = text.toUpperCase();
  // A full mapping only ever lengthens a character (ß → SS); same length means every character took its simple mapping.
  if (upper.length === text.length) return upper;
  let out = '';
  for (const ch of text) {
    const u = ch.toUpperCase();
    out += u.length === ch.length ? u : (SIMPLE_ONLY.get(ch) ?? ch);
  }
  return out;
}

/**
 * Characters whose full upper case is longer but whose simple upper case is
 * another single character: Greek letters with a subscript iota (`ᾳ` → `ᾼ`,
 * not `ΑΙ`).
 */
const SIMPLE_ONLY: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const base of [0x1f80, 0x1f90, 0x1fa0]) {
    for (let i = 0; i < 8; i++) map.set(String.fromCodePoint(base + i), String.fromCodePoint(base + 8 + i));
  }
  map.set('\u1fb3', '\u1fbc');
  map.set('\u1fc3', '\u1fcc');
  map.set('\u1ff3', '\u1ffc');
  return map;
})();
