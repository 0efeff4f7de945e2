// Event-time temporal join (Flink's `JOIN versioned FOR SYSTEM_TIME AS OF left.time`): each
// left row joins the version of the right row, by primary key, that was valid at the left
// row's time. The right side is a changelog; every change is a version with a version time
// (the right side's event time, see `rightTimeIndex`). Left rows wait until the join's
// watermark (the runner's minimum of both inputs) passes their time, so every change up to
// then has arrived; then the latest version with version time <= the left time is used
// ('-U' and '-D' versions mean "no row": no match). Output is append-only.
//
// State: the waiting left rows, and per key the versions a waiting (or future) left row can
// still need: the latest version at or before the watermark plus every later one. A right
// change older than the watermark still lands in the history (future left rows see it) but
// does not revise rows already emitted; a left row older than the watermark is joined at
// once against the history kept.
import { MinHeap } from '../heap.ts';
import { isRetraction, type Row, type StatefulOp } from './types.ts';

export interface TemporalJoinConfig {
  id: string;
  joinType: 'inner' | 'left';
  /** The left row's key (the expressions equated with the right primary key); null = no match. */
  leftKey: (row: Row) => unknown;
  /** The right row's primary key, as a comparable Map key; null = the row is ignored. */
  rightKey: (row: Row) => unknown;
  /** Index of the `AS OF` time in a left row. */
  leftTimeIndex: number;
  /** Index of the version time in a right row. */
  rightTimeIndex: number;
  /** Residual predicate; null when none. */
  residual: ((l: Row, r: Row) => boolean) | null;
  /** Builds the output row; `r` is null for an unmatched left row of a LEFT join. */
  join: (l: Row, r: Row | null) => Row;
  out: (row: Row) => void;
  /**
   * `state_ttl` of the view: a key's versions go once no change and no left row touched the
   * key for this long (processing time, as Flink's state retention); null = kept.
   */
  stateTtlMs?: number | null;
  /** Processing time (the runner's clock); needed with a TTL. */
  now?: () => number;
}

interface Waiting {
  /** The AS OF time. */
  t: number;
  seq: number;
  row: Row;
  key: unknown;
}

interface Version {
  t: number;
  /** null: the key was deleted (or updated away) at `t`. */
  row: Row | null;
}

/** Event time the watermark must move by between two sweeps of the changed keys. */
const SWEEP_STEP_MS = 1000;

export class TemporalJoinOp implements StatefulOp {
  readonly id: string;
  private wm = Number.NEGATIVE_INFINITY;
  private seq = 0;
  private readonly waiting = new MinHeap<Waiting>();
  private readonly versions = new Map<unknown, Version[]>();
  private versionCount = 0;
  /** Keys whose history holds more than one version or a deletion (candidates for pruning). */
  private readonly changed = new Set<unknown>();
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** Processing time each key was last touched, oldest first (only with a TTL). */
  private readonly touched = new Map<unknown, number>();
  /** Right rows without a key or version time (ignored). */
  ignoredRight = 0;

  constructor(private readonly cfg: TemporalJoinConfig) {
    this.id = cfg.id;
  }

  pushLeft(row: Row): void {
    const key = this.cfg.leftKey(row);
    const t = row[this.cfg.leftTimeIndex] as number | null;
    // No key or no time: nothing can match (a LEFT join keeps the row).
    if (key === null || t === null) {
      if (this.cfg.joinType === 'left') this.cfg.out(this.cfg.join(row, null));
      return;
    }
    if (t <= this.wm) this.emit(row, key, t);
    else this.waiting.push({ t, seq: this.seq++, row, key });
  }

  pushRight(row: Row): void {
    const key = this.cfg.rightKey(row);
    const t = row[this.cfg.rightTimeIndex] as number | null;
    if (key === null || t === null) {
      this.ignoredRight++;
      return;
    }
    const v: Version = { t, row: isRetraction(row) ? null : row };
    const vs = this.versions.get(key);
    if (vs === undefined) {
      if (v.row === null) return; // deleting a key never seen: nothing to remember
      this.versions.set(key, [v]);
      this.versionCount++;
      this.touch(key);
      return;
    }
    this.touch(key);
    // Versions stay sorted by time; an equal time goes after (the later change wins, so an
    // update's '-U' is overridden by its '+U' of the same commit).
    let i = vs.length;
    while (i > 0 && vs[i - 1]!.t > t) i--;
    vs.splice(i, 0, v);
    this.versionCount++;
    this.prune(key, vs);
  }

  advance(wm: number): void {
    if (wm <= this.wm) return;
    this.wm = wm;
    for (let w = this.waiting.peek(); w !== undefined && w.t <= wm; w = this.waiting.peek()) {
      this.waiting.pop();
      this.emit(w.row, w.key, w.t);
    }
    if (wm === Number.POSITIVE_INFINITY || wm - this.lastSweep >= SWEEP_STEP_MS) {
      this.lastSweep = wm;
      for (const key of this.changed) this.prune(key, this.versions.get(key));
    }
  }

  /** Joins a left row with the version valid at `t`. */
  private emit(l: Row, key: unknown, t: number): void {
    const r = this.versionAt(key, t);
    if (r !== null && (this.cfg.residual === null || this.cfg.residual(l, r))) this.cfg.out(this.cfg.join(l, r));
    else if (this.cfg.joinType === 'left') this.cfg.out(this.cfg.join(l, null));
  }

  private versionAt(key: unknown, t: number): Row | null {
    const vs = this.versions.get(key);
    if (vs === undefined) return null;
    this.touch(key);
    for (let i = vs.length - 1; i >= 0; i--) if (vs[i]!.t <= t) return vs[i]!.row;
    return null;
  }

  /**
   * Drops what no waiting or future left row can need: versions before the latest one at or
   * before the watermark, and that one too when it is a deletion (no version = no match).
   */
  private prune(key: unknown, vs: Version[] | undefined): void {
    if (vs === undefined) {
      this.changed.delete(key);
      return;
    }
    let base = -1;
    for (let i = vs.length - 1; i >= 0; i--) {
      if (vs[i]!.t <= this.wm) {
        base = i;
        break;
      }
    }
    let drop = base > 0 ? base : 0;
    if (base >= 0 && vs[base]!.row === null) drop = base + 1;
    if (drop > 0) {
      vs.splice(0, drop);
      this.versionCount -= drop;
    }
    if (vs.length === 0) {
      this.versions.delete(key);
      this.changed.delete(key);
    } else if (vs.length === 1 && vs[0]!.row !== null) this.changed.delete(key);
    else this.changed.add(key);
  }

  private touch(key: unknown): void {
    if (this.cfg.stateTtlMs == null) return;
    // Re-inserted so the map stays in touch order: expiry stops at the first live key.
    this.touched.delete(key);
    this.touched.set(key, this.cfg.now!());
  }

  tick(nowMs: number): void {
    const ttl = this.cfg.stateTtlMs;
    if (ttl == null) return;
    for (const [key, at] of this.touched) {
      if (at + ttl > nowMs) break;
      this.touched.delete(key);
      this.versionCount -= this.versions.get(key)?.length ?? 0;
      this.versions.delete(key);
      this.changed.delete(key);
    }
  }

  stateSize(): number {
    return this.waiting.size + this.versionCount;
  }

  snapshot(): unknown {
    return {
      wm: this.wm,
      seq: this.seq,
      lastSweep: this.lastSweep,
      waiting: this.waiting.items.map((w) => [w.t, w.seq, w.row]),
      versions: [...this.versions].map(([k, vs]) => [k, vs.map((v) => [v.t, v.row])]),
      touched: [...this.touched],
    };
  }

  restore(state: unknown): void {
    const s = state as { wm: number; seq: number; lastSweep: number; waiting: [number, number, Row][]; versions: [unknown, [number, Row | null][]][]; touched?: [unknown, number][] };
    this.wm = s.wm;
    this.seq = s.seq;
    this.lastSweep = s.lastSweep;
    this.waiting.items.length = 0;
    for (const [t, seq, row] of s.waiting) this.waiting.push({ t, seq, row, key: this.cfg.leftKey(row) });
    this.versions.clear();
    this.changed.clear();
    this.versionCount = 0;
    for (const [k, vs] of s.versions) {
      this.versions.set(k, vs.map(([t, row]) => ({ t, row })));
      this.versionCount += vs.length;
      if (vs.length > 1 || vs[0]?.[1] === null) this.changed.add(k);
    }
    this.touched.clear();
    for (const [k, at] of s.touched ?? []) this.touched.set(k, at);
  }
}
