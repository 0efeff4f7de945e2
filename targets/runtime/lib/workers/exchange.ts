// The in-process exchange of a `--workers N` run, in one worker: rows on their way into a
// stateful operator go to the worker owning their key (key-hash.ts) — straight in when that is
// this worker, else into a batch for that worker's port — and each operator's watermark is the
// minimum over what every worker (this one included) last said about its own partitions, as an
// operator's watermark is the minimum over the partitions feeding it in one thread. A sender's
// watermark follows its rows on the same port, so it never overtakes a row it covers.
import type { MessagePort } from 'node:worker_threads';
import type { Row } from '../ops/types.ts';
import { ownerOf } from './key-hash.ts';
import { packRows, unpackRows } from './packed-rows.ts';
import type { ToPeer } from './protocol.ts';

type ToPeerRows = Extract<ToPeer, { t: 'rows' }>;

/** What the exchange drives: one stateful operator's real instance in this worker. */
export interface ExchangedOp {
  push(row: Row): void;
  advance(wm: number): void;
}

/** Rows per batch before it is sent without waiting for the end of the poll. */
const BATCH_ROWS = 2048;
/** Batches a worker may have in flight to one other worker before it stops reading its sources. */
const MAX_IN_FLIGHT = 8;

export class Exchange {
  /** Per peer: per operator, rows waiting to be sent. */
  private readonly out: Row[][][];
  private readonly outCount: number[];
  private readonly sent: number[];
  /** Per operator: per worker, its watermark as last heard. */
  private readonly heard: Float64Array[];
  /** Per operator: the watermark it was advanced to. */
  private readonly wm: Float64Array;
  /** Per operator: this worker's own watermark, and whether peers have heard it yet. */
  private readonly mine: number[];
  private mineDirty = false;
  private readonly taken: Int32Array;
  private readonly barriers = new Map<number, number>();
  private barrierWait: { seq: number; done: () => void } | null = null;

  constructor(
    private readonly n: number,
    private readonly self: number,
    private readonly peers: (MessagePort | null)[],
    private readonly ops: ExchangedOp[],
    private readonly keyOf: ((row: Row) => unknown)[],
    taken: SharedArrayBuffer,
  ) {
    this.taken = new Int32Array(taken);
    this.out = peers.map(() => ops.map(() => []));
    this.outCount = peers.map(() => 0);
    this.sent = peers.map(() => 0);
    this.heard = ops.map(() => new Float64Array(n).fill(Number.NEGATIVE_INFINITY));
    this.wm = new Float64Array(ops.length).fill(Number.NEGATIVE_INFINITY);
    this.mine = ops.map(() => Number.NEGATIVE_INFINITY);
    peers.forEach((port, from) => port?.on('message', (m: ToPeer) => this.receive(from, m)));
  }

  /** A row for operator `op`: into it here, or batched for the worker owning its key. */
  route(op: number, row: Row): void {
    const to = this.n === 1 ? 0 : ownerOf(this.keyOf[op]!(row), this.n);
    if (to === this.self) {
      this.ops[op]!.push(row);
      return;
    }
    this.out[to]![op]!.push(row);
    if (++this.outCount[to]! >= BATCH_ROWS) this.send(to, false);
  }

  /** This worker's partitions say operator `op` will see nothing before `w` from here. */
  ownWatermark(op: number, w: number): void {
    if (w <= this.mine[op]!) return;
    this.mine[op] = w;
    this.mineDirty = true;
    this.hear(op, this.self, w);
  }

  /** Sends every waiting batch, with this worker's watermarks when they moved. */
  flush(): void {
    const wm = this.mineDirty;
    this.mineDirty = false;
    for (let to = 0; to < this.n; to++) if (to !== this.self && (wm || this.outCount[to]! > 0)) this.send(to, wm);
  }

  /** Some worker has too many batches of this one's still to take: read no more input for now. */
  get congested(): boolean {
    for (let to = 0; to < this.n; to++) {
      if (to !== this.self && this.sent[to]! - Atomics.load(this.taken, this.self * this.n + to) >= MAX_IN_FLIGHT) return true;
    }
    return false;
  }

  /** Every operator has been closed by +∞ from every worker: all its windows have fired. */
  get allEnded(): boolean {
    for (let i = 0; i < this.wm.length; i++) if (this.wm[i] !== Number.POSITIVE_INFINITY) return false;
    return true;
  }

  /**
   * A checkpoint barrier: after everything sent so far, tell every other worker; resolves once
   * each has told this one (so every row sent before its barrier is in this worker's operators).
   */
  align(seq: number): Promise<void> {
    this.flush();
    for (let to = 0; to < this.n; to++) if (to !== this.self) this.peers[to]!.postMessage({ t: 'barrier', seq } satisfies ToPeer);
    return new Promise((done) => {
      this.barrierWait = { seq, done };
      this.checkAligned();
    });
  }

  private checkAligned(): void {
    const w = this.barrierWait;
    if (w === null || (this.barriers.get(w.seq) ?? 0) < this.n - 1) return;
    this.barriers.delete(w.seq);
    this.barrierWait = null;
    w.done();
  }

  private send(to: number, withWm: boolean): void {
    const per = this.out[to]!;
    const ops: ToPeerRows['ops'] = [];
    const moved: ArrayBuffer[] = [];
    for (let op = 0; op < per.length; op++) {
      const rows = per[op]!;
      if (rows.length === 0) continue;
      const packed = packRows(rows);
      if (packed === null) ops.push([op, rows]);
      else {
        ops.push([op, packed]);
        moved.push(packed.values.buffer as ArrayBuffer);
      }
      per[op] = [];
    }
    this.outCount[to] = 0;
    this.sent[to]!++;
    this.peers[to]!.postMessage({ t: 'rows', ops, wm: withWm ? this.mine : null } satisfies ToPeer, moved);
  }

  private receive(from: number, m: ToPeer): void {
    if (m.t === 'barrier') {
      this.barriers.set(m.seq, (this.barriers.get(m.seq) ?? 0) + 1);
      this.checkAligned();
      return;
    }
    for (const [op, rows] of m.ops) {
      const target = this.ops[op]!;
      if (!Array.isArray(rows)) unpackRows(rows, (row) => target.push(row));
      else for (let i = 0; i < rows.length; i++) target.push(rows[i]!);
    }
    if (m.wm !== null) for (let op = 0; op < m.wm.length; op++) this.hear(op, from, m.wm[op]!);
    Atomics.add(this.taken, from * this.n + this.self, 1);
  }

  private hear(op: number, from: number, w: number): void {
    const heard = this.heard[op]!;
    if (w <= heard[from]!) return;
    heard[from] = w;
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < heard.length; i++) if (heard[i]! < min) min = heard[i]!;
    if (min > this.wm[op]!) {
      this.wm[op] = min;
      this.ops[op]!.advance(min);
    }
  }
}
