// "Did you mean" for unknown keys and values: the closest candidate by edit distance, when it
// is close enough to be a plausible typo.
import { boundedEditDistance } from '../../util/suggest.ts';

/** Levenshtein distance plus adjacent transposition (the bounded one of src/util/suggest.ts). */
export function editDistance(a: string, b: string): number {
  return boundedEditDistance(a, b, Math.max(a.length, b.length));
}

/** The candidate closest to `word` within a third of its length (at least 1, at most 3 edits). */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = boundedEditDistance(w, c.toLowerCase(), limit);
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
