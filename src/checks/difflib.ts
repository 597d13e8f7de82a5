/**
 * Python's `difflib.get_close_matches`, which Django uses for its "did you
 * mean" hints: candidates whose `SequenceMatcher.ratio()` against `word` is
 * at least `cutoff`, best first (ties: the larger string first, as
 * `heapq.nlargest` on `(score, candidate)` pairs orders them).
 */
export function getCloseMatches(word: string, possibilities: Iterable<string>, n = 3, cutoff = 0.6): string[] {
  const scored: [number, string][] = [];
  for (const candidate of new Set(possibilities)) {
    const score = ratio(word, candidate);
    if (score >= cutoff) scored.push([score, candidate]);
  }
  scored.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0));
  return scored.slice(0, n).map(([, c]) => c);
}

/** The closest candidate, or `null` when none is close enough. */
export function closestMatch(word: string, possibilities: Iterable<string>): string | null {
  return getCloseMatches(word, possibilities, 1)[0] ?? null;
}

/**
 * `SequenceMatcher(None, a, b).ratio()`: twice the number of characters in
 * matching blocks over the total length (Ratcliff/Obershelp: the longest
 * common block, then the same on each side of it). Names are short, so the
 * "autojunk" heuristic (strings of 200 characters or more) never applies.
 */
export function ratio(a: string, b: string): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * matchingCharacters(a, 0, a.length, b, 0, b.length)) / total;
}

function matchingCharacters(a: string, alo: number, ahi: number, b: string, blo: number, bhi: number): number {
  if (alo >= ahi || blo >= bhi) return 0;
  // The longest common block, earliest in a, then earliest in b (difflib's tie rule).
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  let previous = new Array<number>(bhi - blo + 1).fill(0);
  for (let i = alo; i < ahi; i++) {
    const current = new Array<number>(bhi - blo + 1).fill(0);
    for (let j = blo; j < bhi; j++) {
      if (a[i] !== b[j]) continue;
      const k = previous[j - blo]! + 1;
      current[j - blo + 1] = k;
      if (k > bestSize) {
        bestI = i - k + 1;
        bestJ = j - k + 1;
        bestSize = k;
      }
    }
    previous = current;
  }
  if (bestSize === 0) return 0;
  return (
    bestSize +
    matchingCharacters(a, alo, bestI, b, blo, bestJ) +
    matchingCharacters(a, bestI + bestSize, ahi, b, bestJ + bestSize, bhi)
  );
}
