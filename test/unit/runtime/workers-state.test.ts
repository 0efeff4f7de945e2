// `--workers N` checkpoints (targets/runtime/lib/workers/state-share.ts): window state split by
// key over workers, merged into the one-thread format and split again, must fire the same
// windows as one operator that saw every row — so a checkpoint of 2 workers resumes with 1 or 3.
// Real WindowAggOps on both sides: a change of the snapshot's shape fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowAggOp } from '../../../targets/runtime/lib/ops/window-agg.ts';
import type { AggFns, Row } from '../../../targets/runtime/lib/ops/types.ts';
import { ownerOf } from '../../../targets/runtime/lib/workers/key-hash.ts';
import { mergeClocks, mergeWindowSnapshots, windowShare, clockShare, OPERATOR_STATE, type GroupSnapshot, type SessionSnapshot, type WindowSnapshot } from '../../../targets/runtime/lib/workers/state-share.ts';
import { GroupAggOp } from '../../../targets/runtime/lib/ops/group-agg.ts';
import { IntervalJoinOp } from '../../../targets/runtime/lib/ops/interval-join.ts';
import { SessionAggOp } from '../../../targets/runtime/lib/ops/session-agg.ts';

// COUNT(*) and SUM(v) by key k: rows [k, v, ts].
const fns: AggFns = {
  keyOf: (r) => r[0],
  keyVals: (r) => [r[0]],
  create: () => [0, 0],
  add: (a, r) => {
    (a[0] as number)++;
    (a[1] as number) += r[1] as number;
  },
  merge: (a, b) => {
    (a[0] as number) += b[0] as number;
    (a[1] as number) += b[1] as number;
  },
  output: (k, ws, we, a) => [k[0], ws, we, a[0], a[1]],
};

function op(out: Row[]): WindowAggOp {
  return new WindowAggOp({ id: 'w', shape: { kind: 'hop', slideMs: 2000, sizeMs: 10_000 }, paneMs: 2000, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 2, fns, out: (r) => void out.push(r) }, { late: () => {}, now: () => 0 });
}

const rows = (from: number, to: number): Row[] => {
  const r: Row[] = [];
  for (let i = from; i < to; i++) r.push([i % 37 === 0 ? 'k' + (i % 5) : i % 23, i % 11, i * 7]);
  return r;
};
const sorted = (r: Row[]): string[] => r.map((x) => JSON.stringify(x)).sort();

test('window state of 2 workers, merged and split for 1 or 3, fires what one operator fires', () => {
  const first = rows(0, 3000);
  const rest = rows(3000, 6000);
  const wmMid = 3000 * 7 - 5000;

  const oneOut: Row[] = [];
  const one = op(oneOut);
  for (const r of [...first, ...rest]) one.push(r);
  one.advance(wmMid);
  one.advance(Number.POSITIVE_INFINITY);

  // Two workers up to the checkpoint: each sees the rows whose key it owns.
  const before: Row[] = [];
  const shares = [op(before), op(before)];
  for (const r of first) shares[ownerOf(r[0], 2)]!.push(r);
  for (const s of shares) s.advance(wmMid);
  const merged = mergeWindowSnapshots(shares.map((s) => s.snapshot() as WindowSnapshot));
  // Through JSON, as the checkpoint file does (numbers and strings only here); a fresh copy per
  // resume, as every worker gets its own (a restored operator adds into the accumulators it gets).
  const doc = (): WindowSnapshot => JSON.parse(JSON.stringify(merged)) as WindowSnapshot;

  for (const n of [1, 3]) {
    const after: Row[] = [];
    const resumed = Array.from({ length: n }, () => op(after));
    resumed.forEach((o, i) => o.restore(windowShare(doc(), i, n)));
    for (const r of rest) resumed[ownerOf(r[0], n)]!.push(r);
    for (const o of resumed) o.advance(Number.POSITIVE_INFINITY);
    assert.deepEqual(sorted([...before, ...after]), sorted(oneOut), `resumed with ${n}`);
  }
  assert.ok(oneOut.length > 300, `${oneOut.length} windows`);
});

test('partition clocks: merged side by side at the lowest watermark, split by owner', () => {
  const m = mergeClocks([
    { wm: 5000, parts: [['b.ndjson', 6000, false]] },
    { wm: 3000, parts: [['a.ndjson', 4000, true]] },
    { wm: Number.NEGATIVE_INFINITY, parts: [] },
  ]);
  assert.deepEqual(m, { wm: 3000, parts: [['a.ndjson', 4000, true], ['b.ndjson', 6000, false]] });
  assert.deepEqual(clockShare(m, (p) => p === 'b.ndjson'), { wm: 3000, parts: [['b.ndjson', 6000, false]] });
});

function sessionOp(out: Row[]): SessionAggOp {
  return new SessionAggOp({ id: 's', gapMs: 500, allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 2, fns, out: (r) => void out.push(r) }, { late: () => {}, now: () => 0 });
}

test('session state of 2 workers, merged and split for 1 or 3, closes the sessions one operator closes', () => {
  // Keys' events 7 ms apart with a pause in the middle of each half: sessions open at the checkpoint.
  const evs = (from: number, to: number): Row[] => rows(from, to).map((r, i) => [r[0], r[1], (from + i) * 7 + (from + i > 1500 ? 10_000 : 0)]);
  const first = evs(0, 3000);
  const rest = evs(3000, 6000);
  const wmMid = 3000 * 7 + 10_000 - 2000;

  const oneOut: Row[] = [];
  const one = sessionOp(oneOut);
  for (const r of first) one.push(r);
  one.advance(wmMid);
  for (const r of rest) one.push(r);
  one.advance(Number.POSITIVE_INFINITY);

  const before: Row[] = [];
  const shares = [sessionOp(before), sessionOp(before)];
  for (const r of first) shares[ownerOf(r[0], 2)]!.push(r);
  for (const s of shares) s.advance(wmMid);
  const merged = OPERATOR_STATE.sessionAgg.merge(shares.map((s) => s.snapshot()));
  const doc = (): unknown => JSON.parse(JSON.stringify(merged));
  assert.ok((merged as SessionSnapshot).parts.length > 0, 'sessions are open at the checkpoint');

  for (const n of [1, 3]) {
    const after: Row[] = [];
    const resumed = Array.from({ length: n }, () => sessionOp(after));
    resumed.forEach((s, i) => s.restore(OPERATOR_STATE.sessionAgg.share(doc(), i, n)));
    for (const r of rest) resumed[ownerOf(r[0], n)]!.push(r);
    for (const s of resumed) s.advance(wmMid);
    for (const s of resumed) s.advance(Number.POSITIVE_INFINITY);
    assert.deepEqual(sorted([...before, ...after]), sorted(oneOut), `resumed with ${n}`);
  }
});

test('GROUP BY state of 2 workers, merged and split for 1 or 3, ends in the groups one operator ends in; a TTL expires in touch order', () => {
  const make = (out: Row[], clock: { t: number }): GroupAggOp => new GroupAggOp({ id: 'g', stateTtlMs: 1000, fns, out: (r) => void out.push(r), now: () => clock.t });
  const clock = { t: 0 };
  const oneOut: Row[] = [];
  const one = make(oneOut, clock);
  const first = rows(0, 3000);
  const rest = rows(3000, 6000);
  const shares = [make([], clock), make([], clock)];
  first.forEach((r, i) => {
    clock.t = i; // a row a millisecond: groups touched at different times
    one.push(r);
    shares[ownerOf(r[0], 2)]!.push(r);
  });
  const merged = OPERATOR_STATE.groupAgg.merge(shares.map((s) => s.snapshot()));
  const touched = (merged as GroupSnapshot).groups.map((g) => g[3]);
  assert.deepEqual(touched, [...touched].sort((x, y) => x - y), 'groups in order of their last touch');
  const final = (ops: GroupAggOp[]): string[] => ops.flatMap((o) => (o.snapshot() as GroupSnapshot).groups.map(([key, , a]) => JSON.stringify([key, a]))).sort();
  for (const n of [1, 3]) {
    const resumed = Array.from({ length: n }, () => make([], clock));
    resumed.forEach((o, i) => o.restore(OPERATOR_STATE.groupAgg.share(JSON.parse(JSON.stringify(merged)), i, n)));
    const ref = make([], clock);
    ref.restore(JSON.parse(JSON.stringify(one.snapshot()))); // a copy: a restored operator adds into what it gets
    clock.t = 3000;
    for (const r of rest) {
      ref.push(r);
      resumed[ownerOf(r[0], n)]!.push(r);
    }
    // The TTL: groups not touched since t = 2500 expire, in one thread and in the shares alike.
    clock.t = 3500;
    ref.tick(3500);
    for (const o of resumed) o.tick(3500);
    assert.deepEqual(final(resumed), final([ref]), `resumed with ${n}`);
  }
});

test('interval-join state of 2 workers, merged and split for 1 or 3, joins what one operator joins', () => {
  // Rows [k, v, ts] on both sides; pairs of one key within 200 ms of each other.
  const join = (out: Row[]): IntervalJoinOp =>
    new IntervalJoinOp(
      { id: 'j', joinType: 'left', leftKey: (r) => r[0], rightKey: (r) => r[0], leftTimeIndex: 2, rightTimeIndex: 2, lowerMs: -200, upperMs: 200, residual: null, join: (l, r) => [l[0], l[1], r === null ? null : r[1]], out: (r) => void out.push(r), allowedLatenessMs: 0, lateLeft: (l) => l, lateRight: (r) => r },
      { late: () => {}, now: () => 0 },
    );
  const feed = (o: IntervalJoinOp, rs: Row[]): void => rs.forEach((r, i) => (i % 2 === 0 ? o.pushLeft(r) : o.pushRight(r)));
  const first = rows(0, 3000);
  const rest = rows(3000, 6000);
  const wmMid = 3000 * 7 - 200;
  const oneOut: Row[] = [];
  const one = join(oneOut);
  feed(one, first);
  one.advance(wmMid);
  feed(one, rest);
  one.advance(Number.POSITIVE_INFINITY);

  const before: Row[] = [];
  const shares = [join(before), join(before)];
  first.forEach((r, i) => (i % 2 === 0 ? shares[ownerOf(r[0], 2)]!.pushLeft(r) : shares[ownerOf(r[0], 2)]!.pushRight(r)));
  for (const s of shares) s.advance(wmMid);
  const merged = OPERATOR_STATE.intervalJoin.merge(shares.map((s) => s.snapshot()));
  for (const n of [1, 3]) {
    const after: Row[] = [];
    const resumed = Array.from({ length: n }, () => join(after));
    resumed.forEach((o, i) => o.restore(OPERATOR_STATE.intervalJoin.share(JSON.parse(JSON.stringify(merged)), i, n)));
    rest.forEach((r, i) => (i % 2 === 0 ? resumed[ownerOf(r[0], n)]!.pushLeft(r) : resumed[ownerOf(r[0], n)]!.pushRight(r)));
    for (const o of resumed) o.advance(Number.POSITIVE_INFINITY);
    assert.deepEqual(sorted([...before, ...after]), sorted(oneOut), `resumed with ${n}`);
  }
  assert.ok(oneOut.some((r) => r[2] !== null) && oneOut.some((r) => r[2] === null), 'matched and unmatched left rows');
});
