// SESSION windows (Flink's window TVF): sessions are formed per PARTITION BY key (over the
// whole stream without one) as disjoint intervals [first, last + gap); an event opens
// [t, t + gap) and merges every session of its partition it touches (intervals that intersect
// or touch merge). Within a session the GROUP BY keys aggregate: one accumulator per group key,
// so `PARTITION BY user GROUP BY user, page` has per-user session bounds and a row per page.
// A session fires when the watermark reaches its end - 1 ms + lateness (window-close.ts): one
// row per group key in it. With EMIT CHANGES rows are upserts by group keys + window_start +
// window_end (window_start alone is not unique: a session can open at the start of one that
// already closed); an event that moves bounds deletes ('-D') the rows of every session it
// touches and inserts the merged session's, so the changelog's final state is the closed
// sessions' rows (Flink has no such mode: it refuses early firing on session windows;
// docs/language-decisions.md, "Streaming").
import { MinHeap } from '../heap.ts';
import { setRowKind, type AggFns, type Acc, type OpContext, type Row, type StatefulOp } from './types.ts';
import { windowClosed } from './window-close.ts';

export interface SessionAggConfig {
  id: string;
  gapMs: number;
  allowedLatenessMs: number;
  emit: 'on_window_close' | 'changes';
  timeIndex: number;
  fns: AggFns;
  /**
   * The row's PARTITION BY key (which rows share sessions), a Map key like `fns.keyOf`.
   * Absent when the PARTITION BY columns are the GROUP BY keys: the group key is used.
   */
  partitionOf?: (row: Row) => unknown;
  out: (row: Row) => void;
}

interface Group {
  k: unknown[];
  a: Acc;
}
interface Session {
  s: number;
  e: number;
  /** Group key → accumulator, in order of each key's first row in the session. */
  groups: Map<unknown, Group>;
  dead: boolean;
  /** Changes whenever the bounds change: a timer with an older seq is set again at the current end. */
  seq: number;
}
interface Timer {
  t: number;
  seq: number;
  part: unknown;
  sess: Session;
}

export class SessionAggOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  /** Partition key → its open sessions (disjoint, not sorted; usually one or two). */
  private readonly parts = new Map<unknown, Session[]>();
  private heap = new MinHeap<Timer>();
  private seq = 0;
  private sessionSeq = 0;

  constructor(
    private readonly cfg: SessionAggConfig,
    private readonly ctx: OpContext,
  ) {
    this.id = cfg.id;
  }

  push(row: Row): void {
    const t = row[this.cfg.timeIndex] as number;
    const fns = this.cfg.fns;
    const gk = fns.keyOf(row);
    const pk = this.cfg.partitionOf === undefined ? gk : this.cfg.partitionOf(row);
    let list = this.parts.get(pk);
    // Sessions of a partition never touch one another, so those touching the event's own
    // interval [lo, hi) are exactly the ones it merges; the earliest becomes the merged one.
    const lo = t;
    const hi = t + this.cfg.gapMs;
    let s = lo;
    let e = hi;
    let base: Session | null = null;
    let nTouching = 0;
    if (list !== undefined) {
      for (const x of list) {
        if (x.s <= hi && x.e >= lo) {
          nTouching++;
          if (x.s < s) s = x.s;
          if (x.e > e) e = x.e;
          if (base === null || x.s < base.s) base = x;
        }
      }
    }
    if (windowClosed(e, this.cfg.allowedLatenessMs, this.wm)) {
      this.ctx.late(this.id, row, this.wm - t);
      return;
    }
    if (list === undefined) {
      list = [];
      this.parts.set(pk, list);
    }
    let target: Session;
    let moved = true;
    if (base === null) {
      target = { s, e, groups: new Map(), dead: false, seq: this.sessionSeq++ };
      list.push(target);
      this.heap.push({ t: e, seq: target.seq, part: pk, sess: target });
    } else {
      target = base;
      // EMIT CHANGES: a row is an upsert by group keys + window_start + window_end, so when the
      // event moves bounds, every row of the sessions it touches is deleted before the merged
      // session's rows are sent (taken from the accumulators before they are merged).
      if (this.cfg.emit === 'changes' && (nTouching > 1 || base.s !== s || base.e !== e)) this.deleteRows(list, lo, hi);
      if (nTouching > 1) {
        for (const x of list) {
          if (x === target || !(x.s <= hi && x.e >= lo)) continue;
          for (const [k, g] of x.groups) {
            const into = target.groups.get(k);
            if (into === undefined) target.groups.set(k, g);
            else fns.merge(into.a, g.a);
          }
          x.dead = true;
        }
        this.parts.set(pk, list.filter((x) => !x.dead));
      }
      moved = target.s !== s || target.e !== e;
      if (moved) {
        target.s = s;
        target.e = e;
        target.seq = this.sessionSeq++;
      }
    }
    let g = target.groups.get(gk);
    const known = g !== undefined;
    if (g === undefined) {
      g = { k: fns.keyVals(row), a: fns.create() };
      target.groups.set(gk, g);
    }
    fns.add(g.a, row, this.seq++);
    if (this.cfg.emit === 'changes') {
      // Only this group changed unless the session's bounds moved: then its old rows were
      // deleted above and every group of the session is inserted with the new bounds.
      if (!moved) this.cfg.out(setRowKind(fns.output(g.k, s, e, g.a), known ? '+U' : '+I'));
      else for (const x of target.groups.values()) this.cfg.out(fns.output(x.k, s, e, x.a));
    }
  }

  /** '-D' for each group row of the sessions touching [lo, hi), with their current bounds. */
  private deleteRows(list: Session[], lo: number, hi: number): void {
    const fns = this.cfg.fns;
    for (const x of list) {
      if (!(x.s <= hi && x.e >= lo)) continue;
      for (const g of x.groups.values()) this.cfg.out(setRowKind(fns.output(g.k, x.s, x.e, g.a), '-D'));
    }
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    const L = this.cfg.allowedLatenessMs;
    const fns = this.cfg.fns;
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || !windowClosed(top.t, L, wm)) break;
      this.heap.pop();
      const sess = top.sess;
      if (sess.dead) continue;
      if (sess.seq !== top.seq) {
        // The session's bounds moved since this timer was set: set it again at the current
        // end. (t, seq) never exceeds the session's current (e, seq), so sessions still fire
        // in (end, last change) order, as if every change had pushed a timer.
        this.heap.push({ t: sess.e, seq: sess.seq, part: top.part, sess });
        continue;
      }
      sess.dead = true;
      if (this.cfg.emit === 'on_window_close') for (const g of sess.groups.values()) this.cfg.out(fns.output(g.k, sess.s, sess.e, g.a));
      const list = this.parts.get(top.part)!;
      if (list.length === 1) this.parts.delete(top.part);
      else list.splice(list.indexOf(sess), 1);
    }
  }

  /** Accumulators held: one per group key per open session. */
  stateSize(): number {
    let n = 0;
    for (const list of this.parts.values()) for (const x of list) n += x.groups.size;
    return n;
  }

  snapshot(): unknown {
    return {
      wm: this.wm,
      seq: this.seq,
      sessionSeq: this.sessionSeq,
      parts: [...this.parts].map(([pk, list]) => [pk, list.map((x) => [x.s, x.e, x.seq, [...x.groups].map(([k, g]) => [k, g.k, g.a])])]),
    };
  }

  restore(state: unknown): void {
    type Snap = { wm: number; seq: number; sessionSeq: number; parts: [unknown, [number, number, number, [unknown, unknown[], Acc][]][]][] };
    const st = state as Snap;
    this.wm = st.wm;
    this.seq = st.seq;
    this.sessionSeq = st.sessionSeq;
    this.parts.clear();
    this.heap = new MinHeap<Timer>();
    for (const [pk, sessions] of st.parts) {
      const list: Session[] = sessions.map(([s, e, seq, groups]) => ({ s, e, seq, dead: false, groups: new Map(groups.map(([k, kv, a]) => [k, { k: kv, a }])) }));
      this.parts.set(pk, list);
      for (const sess of list) this.heap.push({ t: sess.e, seq: sess.seq, part: pk, sess });
    }
  }
}
