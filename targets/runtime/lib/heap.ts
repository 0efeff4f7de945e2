// A binary min-heap ordered by (time, seq): session windows fire in end-time order with a
// deterministic tie-break, so two runs over the same input emit rows in the same order.
export interface HeapItem {
  t: number;
  seq: number;
}

export class MinHeap<T extends HeapItem> {
  readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(x: T): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function less(a: HeapItem, b: HeapItem): boolean {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

/**
 * The same order as MinHeap, with the (time, seq) keys copied into typed arrays at push: the
 * comparisons of a sift read two contiguous arrays instead of one object per step, which on a
 * heap of ~100k open sessions (SESSION windows) is most of its cost (cache misses).
 */
export class KeyedMinHeap<T> {
  private items: T[] = [];
  private ts = new Float64Array(1024);
  private seqs = new Float64Array(1024);

  get size(): number {
    return this.items.length;
  }

  /** The smallest item, its time and its seq (undefined / NaN when empty). */
  peek(): T | undefined {
    return this.items[0];
  }
  peekT(): number {
    return this.items.length === 0 ? Number.NaN : this.ts[0]!;
  }
  peekSeq(): number {
    return this.items.length === 0 ? Number.NaN : this.seqs[0]!;
  }

  push(x: T, t: number, seq: number): void {
    let i = this.items.length;
    if (i === this.ts.length) this.grow();
    const { items, ts, seqs } = this;
    items.push(x);
    // Sift up: move parents down until the new keys' place is found.
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!(t < ts[p]! || (t === ts[p]! && seq < seqs[p]!))) break;
      items[i] = items[p]!;
      ts[i] = ts[p]!;
      seqs[i] = seqs[p]!;
      i = p;
    }
    items[i] = x;
    ts[i] = t;
    seqs[i] = seq;
  }

  pop(): T | undefined {
    const { items, ts, seqs } = this;
    const n = items.length - 1;
    if (n < 0) return undefined;
    const top = items[0]!;
    const last = items.pop()!;
    if (n === 0) return top;
    const t = ts[n]!;
    const seq = seqs[n]!;
    // Sift the last entry down from the root.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && (ts[r]! < ts[l]! || (ts[r] === ts[l] && seqs[r]! < seqs[l]!)) ? r : l;
      if (!(ts[m]! < t || (ts[m] === t && seqs[m]! < seq))) break;
      items[i] = items[m]!;
      ts[i] = ts[m]!;
      seqs[i] = seqs[m]!;
      i = m;
    }
    items[i] = last;
    ts[i] = t;
    seqs[i] = seq;
    return top;
  }

  private grow(): void {
    this.ts = doubled(this.ts);
    this.seqs = doubled(this.seqs);
  }
}

/** A copy of `a` in an array twice its length. */
function doubled(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}
