// The window operators against a naive reference: random events through pane-sliced
// TUMBLE/HOP/CUMULATE must give what assigning every event to every window it belongs to
// gives; sessions merge touching intervals; HyperLogLog stays within its documented error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowAggOp, type WindowShape } from '../../../targets/runtime/lib/ops/window-agg.ts';
import { SessionAggOp } from '../../../targets/runtime/lib/ops/session-agg.ts';
import type { AggFns, Row } from '../../../targets/runtime/lib/ops/types.ts';
import { hllAdd, hllCount, hllMerge, hllNew } from '../../../targets/runtime/lib/hll.ts';
import { SourceClock } from '../../../targets/runtime/lib/watermarks.ts';

// Rows: [ts, key, value]; output: [key, ws, we, sum, count].
const fns: AggFns = {
  keyOf: (r) => r[1],
  keyVals: (r) => [r[1]],
  create: () => [0, 0],
  add: (a, r) => {
    (a[0] as number) += r[2] as number;
    (a[1] as number)++;
  },
  merge: (a, b) => {
    (a[0] as number) += b[0] as number;
    (a[1] as number) += b[1] as number;
  },
  output: (k, ws, we, a) => [k[0], ws, we, a[0], a[1]],
};

function rnd(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function naive(events: Row[], windowsOf: (t: number) => [number, number][]): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  for (const e of events) {
    for (const [s, en] of windowsOf(e[0] as number)) {
      const k = `${e[1]}|${s}|${en}`;
      const x = m.get(k) ?? [0, 0];
      x[0] += e[2] as number;
      x[1]++;
      m.set(k, x);
    }
  }
  return m;
}

const shapes: [string, WindowShape, number, (t: number) => [number, number][]][] = [
  ['tumble', { kind: 'tumble', sizeMs: 1000, offsetMs: 300 }, 1000, (t) => {
    const s = Math.floor((t - 300) / 1000) * 1000 + 300;
    return [[s, s + 1000]];
  }],
  ['hop', { kind: 'hop', slideMs: 400, sizeMs: 1000 }, 200, (t) => {
    const r: [number, number][] = [];
    for (let s = Math.floor(t / 400) * 400; s > t - 1000; s -= 400) r.push([s, s + 1000]);
    return r;
  }],
  ['cumulate', { kind: 'cumulate', stepMs: 250, sizeMs: 1000 }, 250, (t) => {
    const cs = Math.floor(t / 1000) * 1000;
    const r: [number, number][] = [];
    for (let e = cs + 250; e <= cs + 1000; e += 250) if (e > t) r.push([cs, e]);
    return r;
  }],
];

for (const [name, shape, pane, windowsOf] of shapes) {
  test(`${name}: pane-sliced results equal the naive assignment (20,000 random events, out of order)`, () => {
    const r = rnd(name.length);
    const events: Row[] = [];
    for (let i = 0; i < 20_000; i++) events.push([i * 3 - Math.floor(r() * 500) - 1000, `k${Math.floor(r() * 7)}`, Math.floor(r() * 100)]);
    const out: Row[] = [];
    let late = 0;
    const op = new WindowAggOp({ id: 'w', shape, paneMs: pane, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 0, fns, out: (x) => out.push(x) }, { late: () => late++, now: () => 0 });
    let max = -Infinity;
    for (const e of events) {
      op.push(e);
      if ((e[0] as number) > max) {
        max = e[0] as number;
        op.advance(max - 600); // delay 600 ms > disorder 500 ms: nothing is late
      }
    }
    op.advance(Infinity);
    assert.equal(late, 0);
    assert.equal(op.stateSize(), 0, 'every pane is freed once its windows fired');
    const want = naive(events, windowsOf);
    const got = new Map(out.map((x) => [`${x[0]}|${x[1]}|${x[2]}`, [x[3], x[4]]]));
    assert.equal(got.size, out.length, 'each window row emitted once');
    assert.deepEqual(got, want);
    // Emission follows window end.
    for (let i = 1; i < out.length; i++) assert.ok((out[i]![2] as number) >= (out[i - 1]![2] as number));
  });
}

test('session windows merge intervals that touch and fire at end - 1 ms + lateness (Flink)', () => {
  const out: Row[] = [];
  const op = new SessionAggOp({ id: 's', gapMs: 10, allowedLatenessMs: 5, emit: 'on_window_close', timeIndex: 0, fns, out: (x) => out.push(x) }, { late: () => {}, now: () => 0 });
  op.push([0, 'a', 1]);
  op.push([30, 'a', 2]); // separate: [0,10) and [30,40)
  op.push([20, 'a', 4]); // [20,30) touches [30,40) and not [0,10): merged [20,40)
  op.push([10, 'a', 8]); // [10,20) touches both: everything merges into [0,40)
  op.advance(43);
  assert.deepEqual(out, []);
  op.advance(44); // end 40 - 1 + lateness 5
  assert.deepEqual(out, [['a', 0, 40, 15, 4]]);
});

test('HyperLogLog: within 3 standard errors (3 x 1.6%) and exact-ish for small sets; merge = union', () => {
  for (const n of [10, 1000, 100_000]) {
    const h = hllNew();
    for (let i = 0; i < n; i++) hllAdd(h, `user-${i}`);
    for (let i = 0; i < n; i++) hllAdd(h, `user-${i}`); // duplicates do not count
    const est = hllCount(h);
    assert.ok(Math.abs(est - n) / n <= 0.05, `n=${n} estimate ${est}`);
    if (n === 10) assert.equal(est, 10);
  }
  const a = hllNew();
  const b = hllNew();
  for (let i = 0; i < 5000; i++) hllAdd(a, i);
  for (let i = 2500; i < 7500; i++) hllAdd(b, i);
  hllMerge(a, b);
  assert.ok(Math.abs(hllCount(a) - 7500) / 7500 <= 0.05);
});

test('source watermark: minimum over partitions, idle partitions skipped, all idle follows processing time', () => {
  const c = new SourceClock(100, 1000);
  const p1 = c.partition('a', 0);
  const p2 = c.partition('b', 0);
  c.observe(p1, 5000, 0);
  assert.equal(c.wm, Number.NEGATIVE_INFINITY, 'b has no record yet: it holds the watermark');
  c.observe(p2, 3000, 0);
  assert.equal(c.wm, 2900);
  c.observe(p1, 9000, 500);
  assert.equal(c.wm, 2900);
  c.tick(1200); // b silent for 1200 ms ≥ idle_timeout: no longer holds
  assert.equal(c.wm, 8900);
  c.observe(p2, 4000, 1300); // b back: it may not move the watermark backwards
  assert.equal(c.wm, 8900);
  c.tick(5000); // both silent, but processing time minus the delay (4900) is behind: no step back
  assert.equal(c.wm, 8900);
  c.tick(20_000); // both silent: processing time minus the delay
  assert.equal(c.wm, 19_900);
  c.finish(p1, 20_000);
  c.finish(p2, 20_000);
  assert.equal(c.wm, Number.POSITIVE_INFINITY);
});

test('source watermark across a rebalance: a revoked partition stops holding it back and never ends the source', () => {
  const c = new SourceClock(0, null);
  const p1 = c.partition('t-0', 0);
  const p2 = c.partition('t-1', 0);
  c.observe(p1, 5000, 0);
  c.observe(p2, 1000, 0);
  assert.equal(c.wm, 1000, 't-1 holds the watermark');
  c.setRevoked(p2, true, 10);
  assert.equal(c.wm, 5000, 't-1 moved to another member: only t-0 counts');
  c.setRevoked(p1, true, 20);
  assert.equal(c.wm, 5000, 'owning nothing: the watermark stays, it does not jump to the end of time');
  assert.equal(c.allDone, false);
  c.setRevoked(p1, false, 30);
  c.observe(p1, 7000, 30);
  assert.equal(c.wm, 7000);
  c.finish(p1, 40);
  assert.equal(c.allDone, false, 'a revoked partition is not finished');
});
