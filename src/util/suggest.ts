// "Did you mean ...?": the closest candidate by Damerau-Levenshtein distance (optimal string
// alignment: insert, delete, substitute, swap two neighbours), compared case-insensitively.

/** Edit distance where swapping two adjacent characters costs 1 (so `amuont` is 1 from `amount`). */
export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  // Three rows suffice: the swap rule looks two rows back.
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

/**
 * The candidate closest to `name`, or null when none is close enough to be a plausible typo:
 * at most a third of the name's length (at least 1) edits away. Ties go to the earlier
 * candidate, so the answer is deterministic for a given candidate order.
 */
export function suggest(name: string, candidates: string[]): string | null {
  const target = name.toLowerCase();
  const limit = Math.max(1, Math.floor(target.length / 3));
  let best: string | null = null;
  let bestDist = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    if (lc === target) return c;
    const d = editDistance(target, lc);
    if (d <= limit && d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}
