/**
 * Search terms as DRF splits them (`search_smart_split` over Django's
 * `smart_split`): whitespace and commas separate terms, a quoted phrase
 * (`"new york"` or `'new york'`) stays one term with its quotes removed.
 */

// Django's smart_split_re: a run of non-space text with quoted parts inside, or any non-space run.
const SMART_SPLIT = /(?:[^\s'"]*(?:(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')[^\s'"]*)+)|\S+/g;

/** Django's `unescape_string_literal` for a term known to start and end with the same quote. */
function unescapeStringLiteral(s: string): string {
  const quote = s[0]!;
  return s.slice(1, -1).split(`\\${quote}`).join(quote).split('\\\\').join('\\');
}

/** DRF's `search_smart_split`. */
export function searchSmartSplit(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(SMART_SPLIT)) {
    const term = stripCommas(match[0]);
    if ((term.startsWith('"') || term.startsWith("'")) && term[0] === term[term.length - 1]) {
      out.push(unescapeStringLiteral(term));
    } else {
      for (const sub of term.split(',')) if (sub) out.push(sub.trim());
    }
  }
  return out;
}

function stripCommas(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === ',') a++;
  while (b > a && s[b - 1] === ',') b--;
  return s.slice(a, b);
}
