// TUMBLE / HOP / CUMULATE aggregation with pane-based slicing: every event updates exactly
// one pane (whatever the window overlap), and a window is the merge of its panes when it
// fires. A pane is freed when the last window containing it has fired.
import { setRowKind, type AggFns, type Acc, type OpContext, type Row, type StatefulOp } from './types.ts';
import { windowClosed } from './window-close.ts';

export type WindowShape =
  | { kind: 'tumble'; sizeMs: number; offsetMs: number }
  | { kind: 'hop'; slideMs: number; sizeMs: number }
  | { kind: 'cumulate'; stepMs: number; sizeMs: number };

export interface WindowAggConfig {
  id: string;
  shape: WindowShape;
  paneMs: number;
  allowedLatenessMs: number;
  emit: 'on_window_close' | 'changes';
  timeIndex: number;
  fns: AggFns;
  out: (row: Row) => void;
}

interface Group {
  k: unknown[];
  a: Acc;
}
type Pane = Map<unknown, Group>;
interface Win {
  s: number;
  e: number;
}

const floorTo = (t: number, size: number, off: number): number => Math.floor((t - off) / size) * size + off;

export class WindowAggOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  private readonly panes = new Map<number, Pane>();
  /** Windows not yet fired, ordered by (end, start); `head` is the first unfired. */
  private pending: Win[] = [];
  private head = 0;
  private readonly pendingKeys = new Set<string>();
  private seq = 0;
  private lastPaneStart = Number.NaN;
  private lastPane: Pane | null = null;
  private readonly off: number;
  private readonly timeIndex: number;
  private readonly paneMs: number;
  private readonly fns: AggFns;
  private readonly changes: boolean;

  constructor(
    private readonly cfg: WindowAggConfig,
    private readonly ctx: OpContext,
  ) {
    this.id = cfg.id;
    this.off = cfg.shape.kind === 'tumble' ? cfg.shape.offsetMs : 0;
    this.timeIndex = cfg.timeIndex;
    this.paneMs = cfg.paneMs;
    this.fns = cfg.fns;
    this.changes = cfg.emit === 'changes';
  }

  /** Windows containing the pane starting at p, by ascending end. */
  private windowsOf(p: number): Win[] {
    const sh = this.cfg.shape;
    switch (sh.kind) {
      case 'tumble': {
        const s = floorTo(p, sh.sizeMs, this.off);
        return [{ s, e: s + sh.sizeMs }];
      }
      case 'hop': {
        const r: Win[] = [];
        let s = floorTo(p, sh.slideMs, 0);
        const first: Win[] = [];
        for (; s + sh.sizeMs > p; s -= sh.slideMs) first.push({ s, e: s + sh.sizeMs });
        for (let i = first.length - 1; i >= 0; i--) r.push(first[i]!);
        return r;
      }
      case 'cumulate': {
        const cs = floorTo(p, sh.sizeMs, 0);
        const r: Win[] = [];
        for (let e = p + this.cfg.paneMs; e <= cs + sh.sizeMs; e += sh.stepMs) r.push({ s: cs, e });
        return r;
      }
    }
  }

  private lastEnd(p: number): number {
    const sh = this.cfg.shape;
    switch (sh.kind) {
      case 'tumble':
        return floorTo(p, sh.sizeMs, this.off) + sh.sizeMs;
      case 'hop':
        return floorTo(p, sh.slideMs, 0) + sh.sizeMs;
      case 'cumulate':
        return floorTo(p, sh.sizeMs, 0) + sh.sizeMs;
    }
  }

  push(row: Row): void {
    const t = row[this.timeIndex] as number;
    // Most events fall in the pane of the one before: a range check, not a (floating) modulo.
    // The last pane is open while it is cached (firing its last window uncaches it).
    const d = t - this.lastPaneStart;
    let pane = this.lastPane;
    if (!(d >= 0 && d < this.paneMs && pane !== null)) {
      pane = this.paneOf(row, t);
      if (pane === null) return;
    }
    const fns = this.fns;
    const key = fns.keyOf(row);
    let g = pane.get(key);
    const created = g === undefined;
    if (g === undefined) {
      g = { k: fns.keyVals(row), a: fns.create() };
      pane.set(key, g);
    }
    fns.add(g.a, row, this.seq++);
    if (this.changes) this.emitChanges(this.lastPaneStart, key, g, created);
  }

  /** The pane of an event at `t` outside the cached pane (made, and cached, if new), or null when the event is late. */
  private paneOf(row: Row, t: number): Pane | null {
    const pm = this.paneMs;
    // Pane start = floor((t - off) / pane) * pane + off, without a division.
    const rem = (t - this.off) % pm;
    const p = rem >= 0 ? t - rem : t - rem - pm;
    const L = this.cfg.allowedLatenessMs;
    if (windowClosed(this.lastEnd(p), L, this.wm)) {
      this.ctx.late(this.id, row, this.wm - t);
      return null;
    }
    let pane = this.panes.get(p);
    if (pane === undefined) {
      pane = new Map();
      this.panes.set(p, pane);
      for (const w of this.windowsOf(p)) if (!windowClosed(w.e, L, this.wm)) this.register(w);
    }
    this.lastPaneStart = p;
    this.lastPane = pane;
    return pane;
  }

  /**
   * EMIT CHANGES: the (key, window) row after this event, an upsert by group keys +
   * window_start: '+I' when it is the window's first row for the key, '+U' after that.
   */
  private emitChanges(p: number, key: unknown, g: Group, created: boolean): void {
    const L = this.cfg.allowedLatenessMs;
    for (const w of this.windowsOf(p)) {
      if (windowClosed(w.e, L, this.wm)) continue;
      if (w.e - w.s === this.cfg.paneMs) {
        const r = this.cfg.fns.output(g.k, w.s, w.e, g.a);
        this.cfg.out(created ? r : setRowKind(r, '+U'));
        continue;
      }
      const acc = this.cfg.fns.create();
      let panesWithKey = 0;
      for (let q = w.s; q < w.e; q += this.cfg.paneMs) {
        const x = this.panes.get(q)?.get(key);
        if (x !== undefined) {
          this.cfg.fns.merge(acc, x.a);
          panesWithKey++;
        }
      }
      const r = this.cfg.fns.output(g.k, w.s, w.e, acc);
      this.cfg.out(created && panesWithKey === 1 ? r : setRowKind(r, '+U'));
    }
  }

  private register(w: Win): void {
    const id = w.s + ':' + w.e;
    if (this.pendingKeys.has(id)) return;
    this.pendingKeys.add(id);
    const a = this.pending;
    // Binary insertion by (end, start) among the unfired tail; panes arrive mostly in order.
    let lo = this.head;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = a[mid]!;
      if (m.e < w.e || (m.e === w.e && m.s < w.s)) lo = mid + 1;
      else hi = mid;
    }
    a.splice(lo, 0, w);
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    const L = this.cfg.allowedLatenessMs;
    const a = this.pending;
    while (this.head < a.length && windowClosed(a[this.head]!.e, L, wm)) {
      const w = a[this.head++]!;
      this.pendingKeys.delete(w.s + ':' + w.e);
      this.fire(w);
    }
    if (this.head > 1024 && this.head * 2 > a.length) {
      this.pending = a.slice(this.head);
      this.head = 0;
    }
  }

  private fire(w: Win): void {
    const fns = this.cfg.fns;
    const pm = this.cfg.paneMs;
    const onClose = this.cfg.emit === 'on_window_close';
    if (onClose) {
      if (w.e - w.s === pm) {
        const pane = this.panes.get(w.s);
        if (pane) for (const g of pane.values()) this.cfg.out(fns.output(g.k, w.s, w.e, g.a));
      } else {
        const merged = new Map<unknown, Group>();
        for (let q = w.s; q < w.e; q += pm) {
          const pane = this.panes.get(q);
          if (!pane) continue;
          for (const [key, g] of pane) {
            let m = merged.get(key);
            if (m === undefined) {
              m = { k: g.k, a: fns.create() };
              merged.set(key, m);
            }
            fns.merge(m.a, g.a);
          }
        }
        for (const m of merged.values()) this.cfg.out(fns.output(m.k, w.s, w.e, m.a));
      }
    }
    for (let q = w.s; q < w.e; q += pm) {
      if (this.lastEnd(q) === w.e && this.panes.delete(q) && q === this.lastPaneStart) {
        this.lastPane = null;
        this.lastPaneStart = Number.NaN;
      }
    }
  }

  stateSize(): number {
    let n = 0;
    for (const p of this.panes.values()) n += p.size;
    return n;
  }

  snapshot(): unknown {
    return {
      wm: this.wm,
      seq: this.seq,
      panes: [...this.panes].map(([p, pane]) => [p, [...pane].map(([key, g]) => [key, g.k, g.a])]),
      pending: this.pending.slice(this.head).map((w) => [w.s, w.e]),
    };
  }

  restore(state: unknown): void {
    const s = state as { wm: number; seq: number; panes: [number, [unknown, unknown[], Acc][]][]; pending: [number, number][] };
    this.wm = s.wm;
    this.seq = s.seq;
    this.panes.clear();
    for (const [p, groups] of s.panes) this.panes.set(p, new Map(groups.map(([key, k, a]) => [key, { k, a }])));
    this.pending = s.pending.map(([st, e]) => ({ s: st, e }));
    this.head = 0;
    this.pendingKeys.clear();
    for (const w of this.pending) this.pendingKeys.add(w.s + ':' + w.e);
    this.lastPane = null;
    this.lastPaneStart = Number.NaN;
  }
}
