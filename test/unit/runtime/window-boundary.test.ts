// Which rows are late at the window boundary (issue #19.1): pipec must drop exactly the rows
// Flink SQL drops. Flink's rule (window-close.ts): a window [start, end) fires when the watermark
// reaches end - 1 ms, and an event is dropped when the last window it belongs to has fired. The
// watermark is max(event time) - delay, moved after each record (the record itself is counted
// first). The driver below does what the runner does per record; every expected value is
// derived from that rule by hand in the comments (and the case `tumble, delay 2 s, watermark =
// end - 1` was run through Flink 2.3 itself: window [0, 5 s) counts 1, the event at 4.999 s is dropped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowAggOp, type WindowShape } from '../../../targets/runtime/lib/ops/window-agg.ts';
import { SessionAggOp } from '../../../targets/runtime/lib/ops/session-agg.ts';
import type { AggFns, Row, StatefulOp } from '../../../targets/runtime/lib/ops/types.ts';
import { windowClosed } from '../../../targets/runtime/lib/ops/window-close.ts';

// Rows: [ts]; output: [window_start, window_end, count].
const count: AggFns = {
  keyOf: () => '',
  keyVals: () => [],
  create: () => [0],
  add: (a) => void ((a[0] as number) += 1),
  merge: (a, b) => void ((a[0] as number) += b[0] as number),
  output: (_k, ws, we, a) => [ws, we, a[0]],
};

interface Result {
  rows: Row[];
  late: number[];
}

type Make = (out: (r: Row) => void, late: (t: number) => void) => StatefulOp & { push(r: Row): void };

function windowOp(shape: WindowShape, paneMs: number): Make {
  return (out, late) =>
    new WindowAggOp(
      { id: 'w', shape, paneMs, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 0, fns: count, out },
      { late: (_id, r) => late(r[0] as number), now: () => 0 },
    );
}
const sessionOp = (gapMs: number): Make => (out, late) =>
  new SessionAggOp({ id: 's', gapMs, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 0, fns: count, out }, { late: (_id, r) => late(r[0] as number), now: () => 0 });

/** Each event is pushed, then the watermark moves to max(ts) - delay (the runner's order, Flink's too). */
function run(make: Make, delayMs: number, events: number[]): Result {
  const rows: Row[] = [];
  const late: number[] = [];
  const op = make((r) => rows.push(r), (t) => late.push(t));
  let max = Number.NEGATIVE_INFINITY;
  for (const t of events) {
    op.push([t]);
    if (t > max) max = t;
    op.advance(max - delayMs);
  }
  op.advance(Number.POSITIVE_INFINITY);
  return { rows: [...rows].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)), late };
}

const tumble = windowOp({ kind: 'tumble', sizeMs: 5000, offsetMs: 0 }, 5000);
const hop = windowOp({ kind: 'hop', slideMs: 5000, sizeMs: 10_000 }, 5000);
const cumulate = windowOp({ kind: 'cumulate', stepMs: 5000, sizeMs: 10_000 }, 5000);
const session = sessionOp(5000);

test('the rule: closed when end - 1 + lateness <= watermark', () => {
  assert.equal(windowClosed(5000, 0, 4998), false);
  assert.equal(windowClosed(5000, 0, 4999), true, 'watermark = end - 1 closes the window');
  assert.equal(windowClosed(5000, 2000, 6999), true, 'lateness moves it by L');
  assert.equal(windowClosed(5000, 2000, 6998), false);
});

test('TUMBLE, delay 2 s: watermark = window end - 1 drops an event at end - 1', () => {
  // 6999 moves the watermark to 4999 = end - 1 of [0, 5000): it fires with the event at 0.
  assert.deepEqual(run(tumble, 2000, [0, 6999, 4999]), { rows: [[0, 5000, 1], [5000, 10_000, 1]], late: [4999] });
});

test('TUMBLE, delay 2 s: watermark = window end - 2 keeps an event at end - 1', () => {
  assert.deepEqual(run(tumble, 2000, [0, 6998, 4999]), { rows: [[0, 5000, 2], [5000, 10_000, 1]], late: [] });
});

test('TUMBLE, delay 2 s: an event at window end belongs to the next window, on time', () => {
  assert.deepEqual(run(tumble, 2000, [0, 6999, 5000]), { rows: [[0, 5000, 1], [5000, 10_000, 2]], late: [] });
});

test('TUMBLE, delay 2 s: an event equal to the watermark is on time inside its window', () => {
  // 8000 → watermark 6000; an event at 6000 is in [5000, 10000), end - 1 = 9999 > 6000.
  assert.deepEqual(run(tumble, 2000, [0, 8000, 6000]), { rows: [[0, 5000, 1], [5000, 10_000, 2]], late: [] });
});

test('TUMBLE, delay 0: the event at end - 1 closes its own window (counted), the next one at end - 1 is late', () => {
  // 4999 is counted first, then the watermark 4999 fires [0, 5000) with both rows.
  assert.deepEqual(run(tumble, 0, [0, 4999, 4999, 3000]), { rows: [[0, 5000, 2]], late: [4999, 3000] });
});

test('TUMBLE, delay 0: an event equal to the watermark away from the boundary is on time', () => {
  assert.deepEqual(run(tumble, 0, [3000, 3000, 4998, 4998]), { rows: [[0, 5000, 4]], late: [] });
});

test('HOP 10 s / 5 s, delay 2 s: at watermark 4999 the event at 4999 is kept for [0, 10000) only', () => {
  // [-5000, 5000) fired at 4999 with the event at 0; [0, 10000) is still open: the late event
  // is not dropped (its last window has not fired) but misses the fired window, as in Flink.
  assert.deepEqual(run(hop, 2000, [0, 6999, 4999]), { rows: [[-5000, 5000, 1], [0, 10_000, 3], [5000, 15_000, 1]], late: [] });
});

test('HOP, delay 0: an event whose every window fired (last end - 1 = watermark) is late', () => {
  // 9999 closes [0, 10000), the last window holding an event at 4000.
  assert.deepEqual(run(hop, 0, [0, 9999, 4000]), { rows: [[-5000, 5000, 1], [0, 10_000, 2], [5000, 15_000, 1]], late: [4000] });
});

test('CUMULATE 5 s step / 10 s, delay 2 s: at watermark 4999 the event at 4999 counts in [0, 10000) only', () => {
  assert.deepEqual(run(cumulate, 2000, [0, 6999, 4999]), { rows: [[0, 5000, 1], [0, 10_000, 3]], late: [] });
});

test('CUMULATE, delay 2 s: watermark = end - 2 keeps the event in both windows', () => {
  assert.deepEqual(run(cumulate, 2000, [0, 6998, 4999]), { rows: [[0, 5000, 2], [0, 10_000, 3]], late: [] });
});

test('CUMULATE, delay 0: an event after its cumulation\'s last window fired is late', () => {
  // 9999 closes [0, 10000) (end - 1), the last window of the cumulation: a second 9999 and 7000 are late.
  assert.deepEqual(run(cumulate, 0, [0, 9999, 9999, 7000]), { rows: [[0, 5000, 1], [0, 10_000, 2]], late: [9999, 7000] });
});

test('SESSION gap 5 s, delay 2 s: a session ending at watermark + 1 has fired; a new event there is late', () => {
  // [0, 5000) fires at watermark 4999 (from 6999). An event at 0 would open [0, 5000): closed, late.
  // An event at 1 opens [1, 5001): end - 1 = 5000 > 4999, on time, a session of its own.
  assert.deepEqual(run(session, 2000, [0, 6999, 0, 1]), { rows: [[0, 5000, 1], [1, 5001, 1], [6999, 11_999, 1]], late: [0] });
});

test('SESSION, delay 2 s: watermark = end - 2 lets an event join the open session', () => {
  assert.deepEqual(run(session, 2000, [0, 6998, 0]), { rows: [[0, 5000, 2], [6998, 11_998, 1]], late: [] });
});

test('SESSION, delay 0: the event that reaches end - 1 is counted before its watermark closes the session', () => {
  // 0 → [0, 5000); 4999 joins it → [0, 9999), still open at watermark 4999. 9998 joins → [0, 14998).
  assert.deepEqual(run(session, 0, [0, 4999, 9998]), { rows: [[0, 14_998, 3]], late: [] });
  // 5999 touches nothing ([0, 5000) ends before it) and its watermark closes [0, 5000); 4999 then
  // opens [4999, 9999), which touches [5999, 10999): merged, on time.
  assert.deepEqual(run(session, 0, [0, 5999, 4999]), { rows: [[0, 5000, 1], [4999, 10_999, 2]], late: [] });
});
