// Pane-based HOP and CUMULATE stay O(1) per event (issue 18 item 3): whatever the number of
// windows an event belongs to (size / slide for HOP, size / step for CUMULATE), it updates
// exactly one accumulator, and panes are merged only when a window fires — once per pane and
// key of that window, never per event. Counted on the operator's accumulator calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowAggOp, type WindowShape } from '../../../targets/runtime/lib/ops/window-agg.ts';
import type { AggFns, Row } from '../../../targets/runtime/lib/ops/types.ts';

interface Counts {
  add: number;
  merge: number;
  create: number;
  rows: Row[];
}

/** COUNT(*) by key [k] over rows [ts, k], counting every accumulator call. */
function runCounted(shape: WindowShape, paneMs: number, events: [number, string][]): Counts {
  const c: Counts = { add: 0, merge: 0, create: 0, rows: [] };
  const fns: AggFns = {
    keyOf: (r) => r[1],
    keyVals: (r) => [r[1]],
    create: () => (c.create++, [0]),
    add: (a) => void (c.add++, ((a[0] as number) += 1)),
    merge: (a, b) => void (c.merge++, ((a[0] as number) += b[0] as number)),
    output: (k, ws, we, a) => [k[0], ws, we, a[0]],
  };
  const op = new WindowAggOp({ id: 'w', shape, paneMs, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 0, fns, out: (r) => c.rows.push(r) }, { late: () => {}, now: () => 0 });
  let max = Number.NEGATIVE_INFINITY;
  for (const [t, k] of events) {
    op.push([t, k]);
    if (t > max) max = t;
    op.advance(max);
  }
  op.advance(Number.POSITIVE_INFINITY);
  return c;
}

// 6 s of events, one every 10 ms, 3 keys: 600 events in 6 panes of 1 s.
const events: [number, string][] = Array.from({ length: 600 }, (_, i) => [i * 10, `k${i % 3}`]);

test('HOP 60 s / 1 s: one accumulator update per event, merges only at fire', () => {
  const c = runCounted({ kind: 'hop', slideMs: 1000, sizeMs: 60_000 }, 1000, events);
  // Each event belongs to 60 windows, yet updates one pane accumulator.
  assert.equal(c.add, 600);
  // Windows with data: starts -59 s .. 5 s (65 windows); window [s, s + 60 s) holds panes
  // max(s, 0) .. min(s + 59, 5), each with the 3 keys: sum over s of (panes in it) * 3.
  let panesInWindows = 0;
  for (let s = -59; s <= 5; s++) panesInWindows += Math.min(s + 59, 5) - Math.max(s, 0) + 1;
  assert.equal(c.merge, panesInWindows * 3);
  assert.equal(c.rows.length, 65 * 3);
  // The last window to see every event counts them all: 200 per key.
  assert.deepEqual(c.rows.filter((r) => r[1] === 0).map((r) => r[3]), [200, 200, 200]);
});

test('CUMULATE 60 s / 1 s: one accumulator update per event, merges only at fire', () => {
  const c = runCounted({ kind: 'cumulate', stepMs: 1000, sizeMs: 60_000 }, 1000, events);
  assert.equal(c.add, 600);
  // Windows [0, e) for e = 1 s .. 60 s: e panes, of which min(e, 6) hold data, 3 keys each;
  // the one-pane window [0, 1 s) is that pane itself, output without a merge.
  let panes = 0;
  for (let e = 2; e <= 60; e++) panes += Math.min(e, 6);
  assert.equal(c.merge, panes * 3);
  assert.equal(c.rows.length, 60 * 3);
});

test('the per-event cost does not grow with the number of windows per event', () => {
  const narrow = runCounted({ kind: 'hop', slideMs: 1000, sizeMs: 2000 }, 1000, events);
  const wide = runCounted({ kind: 'hop', slideMs: 1000, sizeMs: 60_000 }, 1000, events);
  assert.equal(narrow.add, wide.add);
  // Accumulators are created per (pane, key) and per fired (window, key), not per event.
  assert.equal(wide.create, 6 * 3 + 65 * 3);
});
