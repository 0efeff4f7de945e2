// "Did you mean" for unknown keys and values: the closest candidate by edit distance, when it
// is close enough to be a plausible typo.

/** Levenshtein distance (insert, delete, substitute), plus adjacent transposition as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word` within a third of its length (at least 1, at most 3 edits). */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = editDistance(w, c.toLowerCase());
    if (dist <= limit && dist < bestD) {
      best = c;
      bestD = dist;
    }
  }
  if (best !== null) return best;
  // A shortened key (`retain` for `retain_last`) is a typo too, when only one key fits.
  const prefixed = candidates.filter((c) => w.length >= 3 && !w.includes('.') && (c.toLowerCase().startsWith(w) || w.startsWith(c.toLowerCase())));
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** A plain value that opens more brackets than it closes (`DECIMAL(12`): cut by a flow comma. */
export function hasUnclosedBracket(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const count = (re: RegExp): number => (v.match(re) ?? []).length;
  return count(/\(/g) > count(/\)/g) || count(/</g) > count(/>/g);
}
