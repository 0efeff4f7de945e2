// Non-windowed GROUP BY with EMIT CHANGES: every input row updates its group and emits the
// group's new row. Output kinds (Flink's): '+I' for a group's first row, '+U' for an update
// ('-U' with the previous row first when `updateBefore`), '-D' with the last row when
// retractions empty a group. Over a changelog input, '-U' / '-D' rows are taken back out of
// their group (`AggFns.retract`). Groups untouched for `state_ttl` (processing time, as in
// Flink's state TTL) are evicted; a later row for that key starts from an empty group.
import { isRetraction, setRowKind, type AggFns, type Acc, type Row, type StatefulOp } from './types.ts';

export interface GroupAggConfig {
  id: string;
  stateTtlMs: number | null;
  fns: AggFns;
  out: (row: Row) => void;
  now: () => number;
  /**
   * Emit the previous row as '-U' before each '+U' (a consumer must retract it: a GROUP BY
   * or filter downstream, or a retract sink). Otherwise the output is an upsert stream.
   */
  updateBefore?: boolean;
}

interface Group {
  k: unknown[];
  a: Acc;
  touched: number;
  /** Rows currently accumulated: a group whose rows are all retracted is deleted. */
  n: number;
}

export class GroupAggOp implements StatefulOp {
  readonly id: string;
  /** Kept in last-touched order (delete + set on update) so eviction scans from the front. */
  private readonly groups = new Map<unknown, Group>();
  private seq = 0;
  /** Retractions for a group this operator does not hold (evicted by TTL, or never seen). */
  ignoredRetractions = 0;

  constructor(private readonly cfg: GroupAggConfig) {
    this.id = cfg.id;
  }

  push(row: Row): void {
    const fns = this.cfg.fns;
    const key = fns.keyOf(row);
    let g = this.groups.get(key);
    // Only a TTL reads when a group was touched: no clock read per row without one.
    const now = this.cfg.stateTtlMs === null ? 0 : this.cfg.now();
    if (isRetraction(row)) {
      if (g === undefined) {
        this.ignoredRetractions++;
        return;
      }
      if (fns.retract === undefined) throw new Error(`GROUP BY ${this.id}: a retraction arrived but its accumulators cannot retract`);
      const before = setRowKind(fns.output(g.k, 0, 0, g.a), '-U');
      fns.retract(g.a, row);
      if (--g.n <= 0) {
        this.groups.delete(key);
        this.cfg.out(setRowKind(before, '-D'));
        return;
      }
      this.touch(key, g, now);
      if (this.cfg.updateBefore) this.cfg.out(before);
      this.cfg.out(setRowKind(fns.output(g.k, 0, 0, g.a), '+U'));
      return;
    }
    if (g === undefined) {
      g = { k: fns.keyVals(row), a: fns.create(), touched: now, n: 0 };
      this.groups.set(key, g);
      fns.add(g.a, row, this.seq++);
      g.n++;
      this.cfg.out(fns.output(g.k, 0, 0, g.a));
      return;
    }
    this.touch(key, g, now);
    if (this.cfg.updateBefore) this.cfg.out(setRowKind(fns.output(g.k, 0, 0, g.a), '-U'));
    fns.add(g.a, row, this.seq++);
    g.n++;
    this.cfg.out(setRowKind(fns.output(g.k, 0, 0, g.a), '+U'));
  }

  private touch(key: unknown, g: Group, now: number): void {
    if (this.cfg.stateTtlMs !== null) {
      this.groups.delete(key);
      this.groups.set(key, g);
    }
    g.touched = now;
  }

  advance(_wm: number): void {}

  tick(nowMs: number): void {
    const ttl = this.cfg.stateTtlMs;
    if (ttl === null) return;
    for (const [key, g] of this.groups) {
      if (g.touched + ttl > nowMs) break;
      this.groups.delete(key);
    }
  }

  stateSize(): number {
    return this.groups.size;
  }

  snapshot(): unknown {
    return { seq: this.seq, groups: [...this.groups].map(([key, g]) => [key, g.k, g.a, g.touched, g.n]) };
  }

  restore(state: unknown): void {
    const s = state as { seq: number; groups: [unknown, unknown[], Acc, number, number?][] };
    this.seq = s.seq;
    this.groups.clear();
    for (const [key, k, a, touched, n] of s.groups) this.groups.set(key, { k, a, touched, n: n ?? 1 });
  }
}
