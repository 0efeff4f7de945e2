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
import { KeyedMinHeap } from '../heap.ts';
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
/**
 * An open session; it is also its own entry in the timer heap (keyed by its end and `cur` as
 * they were when pushed), so a session costs no timer object. It is in the heap at most once:
 * pushed when opened, and again only when its entry pops after its bounds moved.
 */
interface Session {
  s: number;
  e: number;
  /**
   * Group key → accumulator, in order of each key's first row in the session; null when the
   * group key is the PARTITION BY key (no `partitionOf`): every row of a partition has the same
   * group key, so a session holds one group, in `one` (no Map for each of the many sessions).
   */
  groups: Map<unknown, Group> | null;
  one: Group | null;
  /** Its PARTITION BY key (its list in `parts`). */
  part: unknown;
  dead: boolean;
  /** Changes whenever the bounds change: an entry with an older seq is pushed again at the current end. */
  cur: number;
}
export class SessionAggOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  /** Partition key → its open sessions (disjoint, not sorted; usually one or two). */
  private readonly parts = new Map<unknown, Session[]>();
  private heap = new KeyedMinHeap<Session>();
  /** The group key is the partition key: sessions hold one group each (Session.one). */
  private readonly single: boolean;
  private seq = 0;
  private sessionSeq = 0;

  constructor(
    private readonly cfg: SessionAggConfig,
    private readonly ctx: OpContext,
  ) {
    this.id = cfg.id;
    this.single = cfg.partitionOf === undefined;
  }

  private open(part: unknown, s: number, e: number): Session {
    const cur = this.sessionSeq++;
    return { s, e, groups: this.single ? null : new Map(), one: null, part, dead: false, cur };
  }

  /** The session's groups, in order of their first rows. */
  private groupsOf(x: Session): Iterable<Group> {
    return x.groups === null ? (x.one === null ? [] : [x.one]) : x.groups.values();
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
      target = this.open(pk, s, e);
      list.push(target);
      this.heap.push(target, e, target.cur);
    } else {
      target = base;
      // EMIT CHANGES: a row is an upsert by group keys + window_start + window_end, so when the
      // event moves bounds, every row of the sessions it touches is deleted before the merged
      // session's rows are sent (taken from the accumulators before they are merged).
      if (this.cfg.emit === 'changes' && (nTouching > 1 || base.s !== s || base.e !== e)) this.deleteRows(list, lo, hi);
      if (nTouching > 1) {
        for (const x of list) {
          if (x === target || !(x.s <= hi && x.e >= lo)) continue;
          if (x.groups === null || target.groups === null) {
            // One group each, of the same key (the partition's).
            if (target.one === null) target.one = x.one;
            else if (x.one !== null) fns.merge(target.one.a, x.one.a);
          } else {
            for (const [k, g] of x.groups) {
              const into = target.groups.get(k);
              if (into === undefined) target.groups.set(k, g);
              else fns.merge(into.a, g.a);
            }
          }
          x.dead = true;
        }
        this.parts.set(pk, list.filter((x) => !x.dead));
      }
      moved = target.s !== s || target.e !== e;
      if (moved) {
        target.s = s;
        target.e = e;
        target.cur = this.sessionSeq++;
      }
    }
    let g = target.groups === null ? target.one : target.groups.get(gk);
    const known = g !== undefined && g !== null;
    if (g === undefined || g === null) {
      g = { k: fns.keyVals(row), a: fns.create() };
      if (target.groups === null) target.one = g;
      else target.groups.set(gk, g);
    }
    fns.add(g.a, row, this.seq++);
    if (this.cfg.emit === 'changes') {
      // Only this group changed unless the session's bounds moved: then its old rows were
      // deleted above and every group of the session is inserted with the new bounds.
      if (!moved) this.cfg.out(setRowKind(fns.output(g.k, s, e, g.a), known ? '+U' : '+I'));
      else for (const x of this.groupsOf(target)) this.cfg.out(fns.output(x.k, s, e, x.a));
    }
  }

  /** '-D' for each group row of the sessions touching [lo, hi), with their current bounds. */
  private deleteRows(list: Session[], lo: number, hi: number): void {
    const fns = this.cfg.fns;
    for (const x of list) {
      if (!(x.s <= hi && x.e >= lo)) continue;
      for (const g of this.groupsOf(x)) this.cfg.out(setRowKind(fns.output(g.k, x.s, x.e, g.a), '-D'));
    }
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    const L = this.cfg.allowedLatenessMs;
    const fns = this.cfg.fns;
    for (;;) {
      const sess = this.heap.peek();
      if (sess === undefined || !windowClosed(this.heap.peekT(), L, wm)) break;
      const pushedSeq = this.heap.peekSeq();
      this.heap.pop();
      if (sess.dead) continue;
      if (sess.cur !== pushedSeq) {
        // The session's bounds moved since it was pushed: push it again at its current end.
        // The pushed (end, seq) never exceeds the session's current (e, cur), so sessions still
        // fire in (end, last change) order, as if every change had pushed an entry.
        this.heap.push(sess, sess.e, sess.cur);
        continue;
      }
      sess.dead = true;
      if (this.cfg.emit === 'on_window_close') {
        if (sess.groups === null) {
          if (sess.one !== null) this.cfg.out(fns.output(sess.one.k, sess.s, sess.e, sess.one.a));
        } else for (const g of sess.groups.values()) this.cfg.out(fns.output(g.k, sess.s, sess.e, g.a));
      }
      const list = this.parts.get(sess.part)!;
      if (list.length === 1) this.parts.delete(sess.part);
      else list.splice(list.indexOf(sess), 1);
    }
  }

  /** Accumulators held: one per group key per open session. */
  stateSize(): number {
    let n = 0;
    for (const list of this.parts.values()) for (const x of list) n += x.groups === null ? (x.one === null ? 0 : 1) : x.groups.size;
    return n;
  }

  snapshot(): unknown {
    // One encoding for both kinds of session: each group under its group key (with one group,
    // the partition key is the group key).
    const groupEntries = (pk: unknown, x: Session): [unknown, unknown[], Acc][] =>
      x.groups === null ? (x.one === null ? [] : [[pk, x.one.k, x.one.a]]) : [...x.groups].map(([k, g]) => [k, g.k, g.a]);
    return {
      wm: this.wm,
      seq: this.seq,
      sessionSeq: this.sessionSeq,
      parts: [...this.parts].map(([pk, list]) => [pk, list.map((x) => [x.s, x.e, x.cur, groupEntries(pk, x)])]),
    };
  }

  restore(state: unknown): void {
    type Snap = { wm: number; seq: number; sessionSeq: number; parts: [unknown, [number, number, number, [unknown, unknown[], Acc][]][]][] };
    const st = state as Snap;
    this.wm = st.wm;
    this.seq = st.seq;
    this.sessionSeq = st.sessionSeq;
    this.parts.clear();
    this.heap = new KeyedMinHeap<Session>();
    for (const [pk, sessions] of st.parts) {
      const list: Session[] = sessions.map(([s, e, cur, groups]) => {
        const x: Session = { s, e, groups: null, one: null, part: pk, dead: false, cur };
        if (!this.single) x.groups = new Map(groups.map(([k, kv, a]) => [k, { k: kv, a }]));
        else if (groups[0] !== undefined) x.one = { k: groups[0][1], a: groups[0][2] };
        return x;
      });
      this.parts.set(pk, list);
      for (const sess of list) this.heap.push(sess, sess.e, sess.cur);
    }
  }
}
