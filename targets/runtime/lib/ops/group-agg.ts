// Non-windowed GROUP BY with EMIT CHANGES: every input row updates its group and emits the
// group's new row as an upsert. Groups untouched for `state_ttl` (processing time, as in
// Flink's state TTL) are evicted; a later row for that key starts from an empty group.
import type { AggFns, Acc, Row, StatefulOp } from './types.ts';

export interface GroupAggConfig {
  id: string;
  stateTtlMs: number | null;
  fns: AggFns;
  out: (row: Row) => void;
  now: () => number;
}

interface Group {
  k: unknown[];
  a: Acc;
  touched: number;
}

export class GroupAggOp implements StatefulOp {
  readonly id: string;
  /** Kept in last-touched order (delete + set on update) so eviction scans from the front. */
  private readonly groups = new Map<unknown, Group>();
  private seq = 0;

  constructor(private readonly cfg: GroupAggConfig) {
    this.id = cfg.id;
  }

  push(row: Row): void {
    const fns = this.cfg.fns;
    const key = fns.keyOf(row);
    let g = this.groups.get(key);
    const now = this.cfg.now();
    if (g === undefined) g = { k: fns.keyVals(row), a: fns.create(), touched: now };
    else if (this.cfg.stateTtlMs !== null) this.groups.delete(key);
    g.touched = now;
    this.groups.set(key, g);
    fns.add(g.a, row, this.seq++);
    this.cfg.out(fns.output(g.k, 0, 0, g.a));
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
    return { seq: this.seq, groups: [...this.groups].map(([key, g]) => [key, g.k, g.a, g.touched]) };
  }

  restore(state: unknown): void {
    const s = state as { seq: number; groups: [unknown, unknown[], Acc, number][] };
    this.seq = s.seq;
    this.groups.clear();
    for (const [key, k, a, touched] of s.groups) this.groups.set(key, { k, a, touched });
  }
}
