// Interval join: a left row l and a right row r with equal keys join when
// l.time - r.time is in [lower, upper]. Each side buffers its rows until the watermark (minus the
// allowed lateness) shows that no on-time row of the other side can still match; a LEFT join then
// emits unmatched left rows padded with NULLs. A row whose time is below that bound is late: the
// rows it would match may be gone, so it joins nothing and goes to ctx.late (counted, and routed
// when the view says ON LATE TO), as Flink's DataStream interval join drops rows behind the
// watermark (Flink SQL would join it with what is still cached: see docs/language-decisions.md).
import type { OpContext, Row, StatefulOp } from './types.ts';

export interface IntervalJoinConfig {
  id: string;
  joinType: 'inner' | 'left';
  leftKey: (row: Row) => unknown;
  rightKey: (row: Row) => unknown;
  leftTimeIndex: number;
  rightTimeIndex: number;
  lowerMs: number;
  upperMs: number;
  /** Residual predicate; null when none. */
  residual: ((l: Row, r: Row) => boolean) | null;
  /** Builds the output row; `r` is null for an unmatched left row of a LEFT join. */
  join: (l: Row, r: Row | null) => Row;
  out: (row: Row) => void;
  /** Rows are late when their time is below the watermark minus this (the view's ALLOWED LATENESS). */
  allowedLatenessMs: number;
  /** The late-row shape of each side: the join's columns with the other side's NULL, then the side. */
  lateLeft: (l: Row) => Row;
  lateRight: (r: Row) => Row;
}

interface Entry {
  row: Row;
  t: number;
  matched: boolean;
}

export class IntervalJoinOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  private readonly left = new Map<unknown, Entry[]>();
  private readonly right = new Map<unknown, Entry[]>();
  private lastCleanup = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly cfg: IntervalJoinConfig,
    private readonly ctx: OpContext,
  ) {
    this.id = cfg.id;
  }

  /** Every row at or above this time finds all its matches still buffered. */
  private get onTimeFrom(): number {
    return this.wm - this.cfg.allowedLatenessMs;
  }

  pushLeft(row: Row): void {
    const key = this.cfg.leftKey(row);
    if (key === null) {
      if (this.cfg.joinType === 'left') this.cfg.out(this.cfg.join(row, null));
      return;
    }
    const t = row[this.cfg.leftTimeIndex] as number;
    if (t < this.onTimeFrom) {
      this.ctx.late(this.id, this.cfg.lateLeft(row), this.wm - t);
      return;
    }
    const e: Entry = { row, t, matched: false };
    const rs = this.right.get(key);
    if (rs !== undefined) {
      for (const r of rs) {
        const d = t - r.t;
        if (d >= this.cfg.lowerMs && d <= this.cfg.upperMs && (this.cfg.residual === null || this.cfg.residual(row, r.row))) {
          e.matched = true;
          this.cfg.out(this.cfg.join(row, r.row));
        }
      }
    }
    append(this.left, key, e);
  }

  pushRight(row: Row): void {
    const key = this.cfg.rightKey(row);
    if (key === null) return;
    const t = row[this.cfg.rightTimeIndex] as number;
    if (t < this.onTimeFrom) {
      this.ctx.late(this.id, this.cfg.lateRight(row), this.wm - t);
      return;
    }
    const ls = this.left.get(key);
    if (ls !== undefined) {
      for (const l of ls) {
        const d = l.t - t;
        if (d >= this.cfg.lowerMs && d <= this.cfg.upperMs && (this.cfg.residual === null || this.cfg.residual(l.row, row))) {
          l.matched = true;
          this.cfg.out(this.cfg.join(l.row, row));
        }
      }
    }
    append(this.right, key, { row, t, matched: false });
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    // Cleaning on every watermark step would rescan the buffers per event; a tenth of the
    // interval's width is plenty of slack.
    const step = Math.max(1, (this.cfg.upperMs - this.cfg.lowerMs) / 10);
    if (wm !== Number.POSITIVE_INFINITY && wm - this.lastCleanup < step) return;
    this.lastCleanup = wm;
    const from = this.onTimeFrom;
    const lower = this.cfg.lowerMs;
    const upper = this.cfg.upperMs;
    // Most keys lose nothing at a step: those are passed over without a new array.
    for (const [key, ls] of this.left) {
      if (ls.every((l) => l.t - lower >= from)) continue;
      const keep = ls.filter((l) => {
        // Future on-time right rows have time >= from and need r.t <= l.t - lower.
        if (l.t - lower >= from) return true;
        if (!l.matched && this.cfg.joinType === 'left') this.cfg.out(this.cfg.join(l.row, null));
        return false;
      });
      if (keep.length === 0) this.left.delete(key);
      else if (keep.length !== ls.length) this.left.set(key, keep);
    }
    for (const [key, rs] of this.right) {
      // Future on-time left rows have time >= from and need l.t <= r.t + upper.
      if (rs.every((r) => r.t + upper >= from)) continue;
      const keep = rs.filter((r) => r.t + upper >= from);
      if (keep.length === 0) this.right.delete(key);
      else if (keep.length !== rs.length) this.right.set(key, keep);
    }
  }

  stateSize(): number {
    let n = 0;
    for (const x of this.left.values()) n += x.length;
    for (const x of this.right.values()) n += x.length;
    return n;
  }

  snapshot(): unknown {
    const dump = (m: Map<unknown, Entry[]>) => [...m].map(([k, es]) => [k, es.map((e) => [e.row, e.t, e.matched])]);
    return { wm: this.wm, lastCleanup: this.lastCleanup, left: dump(this.left), right: dump(this.right) };
  }

  restore(state: unknown): void {
    const s = state as { wm: number; lastCleanup: number; left: [unknown, [Row, number, boolean][]][]; right: [unknown, [Row, number, boolean][]][] };
    this.wm = s.wm;
    this.lastCleanup = s.lastCleanup;
    for (const [m, src] of [[this.left, s.left], [this.right, s.right]] as const) {
      m.clear();
      for (const [k, es] of src) m.set(k, es.map(([row, t, matched]) => ({ row, t, matched })));
    }
  }
}

function append(m: Map<unknown, Entry[]>, key: unknown, e: Entry): void {
  const a = m.get(key);
  if (a === undefined) m.set(key, [e]);
  else a.push(e);
}
