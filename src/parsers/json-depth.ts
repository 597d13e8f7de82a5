/**
 * The deepest nesting of objects and arrays in a JSON text, or `Infinity`
 * as soon as it passes `limit`: a linear scan that never recurses, run before
 * `JSON.parse` so a 1 MB `[[[[…` is refused before it costs a parse, and
 * nothing downstream (validation, rendering) recurses past the limit.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  // Nesting never passes the number of `{` and `[` in the text: a body with
  // no more of them than the limit (nearly every one) needs no scan by hand.
  if (bracketsAtMost(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** True when `text` holds at most `limit` opening brackets (`{` and `[`, in strings too), counted by native searches. */
function bracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > limit) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > limit) return false;
  return true;
}
