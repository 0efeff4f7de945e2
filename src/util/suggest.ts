// "Did you mean ...?": the closest candidate by Damerau-Levenshtein distance (optimal string
// alignment: insert, delete, substitute, swap two neighbours), compared case-insensitively.
// Distances are computed with a bound (docs/security.md "Compiler limits"): only the band of
// cells within `bound` of the diagonal, stopping as soon as a whole row is past the bound, so
// a 10,000-character name costs O(length × bound) per candidate instead of O(length²).

/** A suggestion further than this many edits away is never a plausible typo, however long the name. */
export const MAX_SUGGEST_EDITS = 16;

/** Edit distance where swapping two adjacent characters costs 1 (so `amuont` is 1 from `amount`). */
export function editDistance(a: string, b: string): number {
  return boundedEditDistance(a, b, Math.max(a.length, b.length));
}

/**
 * The edit distance of a and b when it is at most `bound`, else `bound + 1` (computed no
 * further). Cells outside the band |i - j| <= bound are never below bound + 1, so they are
 * treated as exactly that.
 */
export function boundedEditDistance(a: string, b: string, bound: number): number {
  const n = a.length;
  const m = b.length;
  const over = bound + 1;
  if (Math.abs(n - m) > bound) return over;
  if (n === 0) return m;
  if (m === 0) return n;
  // Three rows suffice: the swap rule looks two rows back.
  let prev2 = new Array<number>(m + 1).fill(over);
  let prev = Array.from({ length: m + 1 }, (_, j) => (j <= bound ? j : over));
  let cur = new Array<number>(m + 1).fill(over);
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - bound);
    const hi = Math.min(m, i + bound);
    cur[0] = i <= bound ? i : over;
    if (lo > 1) cur[lo - 1] = over;
    let rowMin = cur[0]!;
    for (let j = lo; j <= hi; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = Math.min(d, over);
      if (cur[j]! < rowMin) rowMin = cur[j]!;
    }
    if (hi < m) cur[hi + 1] = over;
    if (rowMin > bound) return over;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[m]!, over);
}

/**
 * The candidate closest to `name`, or null when none is close enough to be a plausible typo:
 * at most a third of the name's length (at least 1, at most MAX_SUGGEST_EDITS) edits away.
 * Ties go to the earlier candidate, so the answer is deterministic for a given candidate order.
 */
export function suggest(name: string, candidates: string[]): string | null {
  const target = name.toLowerCase();
  const limit = Math.min(MAX_SUGGEST_EDITS, Math.max(1, Math.floor(target.length / 3)));
  let best: string | null = null;
  let bestDist = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    if (lc === target) return c;
    // Only a strictly closer candidate can win: bound the work by the best so far.
    const d = boundedEditDistance(target, lc, Math.min(limit, bestDist - 1));
    if (d <= limit && d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}
