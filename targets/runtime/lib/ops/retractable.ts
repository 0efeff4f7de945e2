// Retractable accumulator state for GROUP BY over a changelog: value→count multisets (MIN,
// MAX, COUNT DISTINCT) and arrival-ordered entries (FIRST_VALUE, LAST_VALUE). Generated
// AggFns call these only when the aggregate's input can retract rows.
import { compareValues } from '../compare-strings.ts';

export type Multiset = Map<unknown, number>;
/** [arrival sequence number, value] in arrival order. */
export type Entries = [number, unknown][];

export function msAdd(m: Multiset, v: unknown): void {
  m.set(v, (m.get(v) ?? 0) + 1);
}

/** Removes one occurrence; true when it was the last one (the value left the set). */
export function msRemove(m: Multiset, v: unknown): boolean {
  const c = m.get(v);
  if (c === undefined) return false;
  if (c > 1) {
    m.set(v, c - 1);
    return false;
  }
  m.delete(v);
  return true;
}

/** Smallest (`dir` < 0) or largest (`dir` > 0) value of the set, null when empty: O(distinct values). */
export function msExtreme(m: Multiset, dir: number): unknown {
  let best: any = null;
  // Strings in code-point order (compare-strings.ts), as MIN/MAX over append input.
  for (const v of m.keys()) if (best === null || compareValues(v, best) * dir > 0) best = v;
  return best;
}

/** Removes the oldest entry holding `v` (which occurrence a retraction meant cannot be known). */
export function entriesRemove(list: Entries, v: unknown): void {
  for (let i = 0; i < list.length; i++) {
    if (list[i]![1] === v) {
      list.splice(i, 1);
      return;
    }
  }
}
