// SESSION windows: per group key a set of disjoint sessions [first, last + gap); an event
// opens [t, t + gap) and merges every session it touches (Flink's rule: intervals that
// intersect or touch merge). A session fires when the watermark passes its end + lateness.
import { MinHeap } from '../heap.ts';
import { setRowKind, type AggFns, type Acc, type OpContext, type Row, type StatefulOp } from './types.ts';

export interface SessionAggConfig {
  id: string;
  gapMs: number;
  allowedLatenessMs: number;
  emit: 'on_window_close' | 'changes';
  timeIndex: number;
  fns: AggFns;
  out: (row: Row) => void;
}

interface Session {
  s: number;
  e: number;
  a: Acc;
  dead: boolean;
  seq: number;
}
interface KeyState {
  k: unknown[];
  sessions: Session[];
}
interface Timer {
  t: number;
  seq: number;
  key: unknown;
  sess: Session;
}

export class SessionAggOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  private readonly keys = new Map<unknown, KeyState>();
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
    const L = this.cfg.allowedLatenessMs;
    const key = fns.keyOf(row);
    let ks = this.keys.get(key);
    let s = t;
    let e = t + this.cfg.gapMs;
    const touching: Session[] = [];
    if (ks !== undefined) {
      for (const x of ks.sessions) {
        if (x.s <= e && x.e >= s) touching.push(x);
      }
      for (const x of touching) {
        if (x.s < s) s = x.s;
        if (x.e > e) e = x.e;
      }
    }
    if (e + L <= this.wm) {
      this.ctx.late(this.id, row, this.wm - t);
      return;
    }
    if (ks === undefined) {
      ks = { k: fns.keyVals(row), sessions: [] };
      this.keys.set(key, ks);
    }
    let target: Session;
    if (touching.length === 1 && touching[0]!.s === s && touching[0]!.e === e) target = touching[0]!;
    else {
      target = { s, e, a: fns.create(), dead: false, seq: this.sessionSeq++ };
      for (const x of touching) {
        fns.merge(target.a, x.a);
        x.dead = true;
      }
      ks.sessions = ks.sessions.filter((x) => !x.dead);
      ks.sessions.push(target);
      this.heap.push({ t: e, seq: target.seq, key, sess: target });
    }
    fns.add(target.a, row, this.seq++);
    if (this.cfg.emit === 'changes') {
      // An upsert by keys + window_start: '+U' when a session with this start was emitted before.
      const r = fns.output(ks.k, target.s, target.e, target.a);
      this.cfg.out(touching.some((x) => x.s === target.s) ? setRowKind(r, '+U') : r);
    }
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    const L = this.cfg.allowedLatenessMs;
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || top.t + L > wm) break;
      this.heap.pop();
      const sess = top.sess;
      if (sess.dead) continue;
      sess.dead = true;
      const ks = this.keys.get(top.key)!;
      if (this.cfg.emit === 'on_window_close') this.cfg.out(this.cfg.fns.output(ks.k, sess.s, sess.e, sess.a));
      ks.sessions = ks.sessions.filter((x) => x !== sess);
      if (ks.sessions.length === 0) this.keys.delete(top.key);
    }
  }

  stateSize(): number {
    let n = 0;
    for (const ks of this.keys.values()) n += ks.sessions.length;
    return n;
  }

  snapshot(): unknown {
    return {
      wm: this.wm,
      seq: this.seq,
      sessionSeq: this.sessionSeq,
      keys: [...this.keys].map(([key, ks]) => [key, ks.k, ks.sessions.map((x) => [x.s, x.e, x.a, x.seq])]),
    };
  }

  restore(state: unknown): void {
    const st = state as { wm: number; seq: number; sessionSeq: number; keys: [unknown, unknown[], [number, number, Acc, number][]][] };
    this.wm = st.wm;
    this.seq = st.seq;
    this.sessionSeq = st.sessionSeq;
    this.keys.clear();
    this.heap = new MinHeap<Timer>();
    for (const [key, k, sessions] of st.keys) {
      const ks: KeyState = { k, sessions: sessions.map(([s, e, a, seq]) => ({ s, e, a, seq, dead: false })) };
      this.keys.set(key, ks);
      for (const sess of ks.sessions) this.heap.push({ t: sess.e, seq: sess.seq, key, sess });
    }
  }
}
