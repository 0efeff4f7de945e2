// Event-time temporal join operator (lib/ops/temporal-join.ts): each left row joins the
// version of its key valid at its AS OF time, once the watermark passes that time. Rows are
// [key, time, value]; expected outputs are worked out by hand from the version histories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TemporalJoinOp, type TemporalJoinConfig } from '../../../targets/runtime/lib/ops/temporal-join.ts';
import { setRowKind, type Row, type RowKind } from '../../../targets/runtime/lib/ops/types.ts';
import { decodeState, encodeState } from '../../../targets/runtime/lib/codec.ts';

const SINCE_EVER = Number.MIN_SAFE_INTEGER;

/** A right change: [key, version time, name] with a row kind. */
const change = (kind: RowKind, key: number, t: number, name: string | null): Row => setRowKind([key, t, name], kind);
/** A left row: [order id, customer key, order time]. */
const order = (id: string, key: number | null, t: number | null): Row => [id, key, t];

function makeJoin(joinType: 'inner' | 'left', extra: Partial<TemporalJoinConfig> = {}): { op: TemporalJoinOp; out: string[] } {
  const out: string[] = [];
  const op = new TemporalJoinOp({
    id: 'j',
    joinType,
    leftKey: (r) => r[1],
    rightKey: (r) => r[0],
    leftTimeIndex: 2,
    rightTimeIndex: 1,
    residual: null,
    // Output: order id + the joined name (NULL when unmatched).
    join: (l, r) => [l[0], r === null ? null : r[2]],
    out: (row) => out.push(`${row[0]}:${row[1] ?? 'NULL'}`),
    ...extra,
  });
  return { op, out };
}

test('each left row gets the version valid at its time (latest version at or before it)', () => {
  const { op, out } = makeJoin('inner');
  op.pushRight(change('+I', 1, SINCE_EVER, 'a')); // snapshot row: valid since ever
  op.pushRight(change('-U', 1, 100, null));
  op.pushRight(change('+U', 1, 100, 'b'));
  op.pushRight(change('-U', 1, 200, null));
  op.pushRight(change('+U', 1, 200, 'c'));
  for (const [id, t] of [['o50', 50], ['o99', 99], ['o100', 100], ['o150', 150], ['o250', 250]] as const) op.pushLeft(order(id, 1, t));
  assert.deepEqual(out, [], 'nothing is emitted before the watermark passes the left times');
  op.advance(300);
  // 50, 99 < 100 → a; 100 ≤ t < 200 → b (a version is valid from its own time on); 250 → c.
  assert.deepEqual(out, ['o50:a', 'o99:a', 'o100:b', 'o150:b', 'o250:c']);
});

test('left rows wait for the watermark; a change arriving before it passes is seen', () => {
  const { op, out } = makeJoin('inner');
  op.pushRight(change('+I', 1, 10, 'a'));
  op.advance(100);
  op.pushLeft(order('o150', 1, 150));
  op.advance(149);
  assert.deepEqual(out, []);
  // Committed at 120, arrives after the order but before the watermark reaches 150.
  op.pushRight(change('+U', 1, 120, 'b'));
  op.advance(150);
  assert.deepEqual(out, ['o150:b']);
});

test('rows come out in AS OF order (arrival order for equal times), whatever order they arrived in', () => {
  const { op, out } = makeJoin('inner');
  op.pushRight(change('+I', 1, 0, 'a'));
  op.pushLeft(order('x30', 1, 30));
  op.pushLeft(order('y10', 1, 10));
  op.pushLeft(order('z30', 1, 30));
  op.pushLeft(order('w20', 1, 20));
  op.advance(25);
  assert.deepEqual(out, ['y10:a', 'w20:a']);
  op.advance(40);
  assert.deepEqual(out, ['y10:a', 'w20:a', 'x30:a', 'z30:a']);
});

test('a deleted key matches nothing from the delete on; an inner join drops, a left join pads NULLs', () => {
  for (const joinType of ['inner', 'left'] as const) {
    const { op, out } = makeJoin(joinType);
    op.pushRight(change('+I', 1, 100, 'a'));
    op.pushRight(change('-D', 1, 200, 'a'));
    op.pushRight(change('+I', 1, 300, 'again'));
    op.pushLeft(order('o50', 1, 50)); // before the key existed
    op.pushLeft(order('o199', 1, 199));
    op.pushLeft(order('o200', 1, 200)); // the delete is valid from 200 on
    op.pushLeft(order('o250', 1, 250));
    op.pushLeft(order('o300', 1, 300));
    op.pushLeft(order('o7', 7, 250)); // a key never seen
    op.advance(1000);
    const expected = joinType === 'inner' ? ['o50', 'o199:a', 'o200', 'o250', 'o7', 'o300:again'] : ['o50:NULL', 'o199:a', 'o200:NULL', 'o250:NULL', 'o7:NULL', 'o300:again'];
    assert.deepEqual(out, expected.filter((x) => joinType === 'left' || x.includes(':')), joinType);
  }
});

test("an update's '-U' is overridden by its '+U' of the same time; a '-U' alone means the row is gone", () => {
  const { op, out } = makeJoin('left');
  op.pushRight(change('+I', 1, 0, 'a'));
  op.pushRight(change('-U', 1, 100, 'a'));
  op.pushRight(change('+U', 1, 100, 'b'));
  op.pushRight(change('+I', 2, 0, 'x'));
  // A view that filtered the new row away sends only the old one's retraction.
  op.pushRight(change('-U', 2, 100, 'x'));
  op.pushLeft(order('k1', 1, 150));
  op.pushLeft(order('k2', 2, 150));
  op.pushLeft(order('k2early', 2, 99));
  op.advance(200);
  assert.deepEqual(out, ['k2early:x', 'k1:b', 'k2:NULL']);
});

test('late right changes do not revise emitted rows but serve later ones; late left rows join at once', () => {
  const { op, out } = makeJoin('inner');
  op.pushRight(change('+I', 1, 0, 'a'));
  op.pushLeft(order('o150', 1, 150));
  op.advance(160);
  assert.deepEqual(out, ['o150:a']);
  // Committed at 140 but arriving after the watermark passed 160: too late for o150.
  op.pushRight(change('+U', 1, 140, 'late'));
  op.pushLeft(order('o170', 1, 170));
  op.advance(180);
  assert.deepEqual(out, ['o150:a', 'o170:late']);
  // A left row older than the watermark is joined immediately with the history kept.
  op.pushLeft(order('o175', 1, 175));
  assert.deepEqual(out, ['o150:a', 'o170:late', 'o175:late']);
});

test('NULL key or NULL time on the left: no match (LEFT join pads at once); right rows without key are ignored', () => {
  const { op, out } = makeJoin('left');
  op.pushRight(change('+I', 1, 0, 'a'));
  op.pushRight([null, 5, 'nokey']);
  op.pushLeft(order('nokey', null, 10));
  op.pushLeft(order('notime', 1, null));
  assert.deepEqual(out, ['nokey:NULL', 'notime:NULL']);
  assert.equal(op.ignoredRight, 1);
});

test('residual predicate: a false residual is no match (inner drops, left pads)', () => {
  for (const joinType of ['inner', 'left'] as const) {
    const { op, out } = makeJoin(joinType, { residual: (_l, r) => r[2] !== 'blocked' });
    op.pushRight(change('+I', 1, 0, 'ok'));
    op.pushRight(change('+U', 1, 100, 'blocked'));
    op.pushLeft(order('o50', 1, 50));
    op.pushLeft(order('o150', 1, 150));
    op.advance(200);
    assert.deepEqual(out, joinType === 'inner' ? ['o50:ok'] : ['o50:ok', 'o150:NULL'], joinType);
  }
});

test('state is bounded: history behind the watermark shrinks to the latest version per key; deleted keys vanish', () => {
  const { op } = makeJoin('inner');
  for (let k = 1; k <= 3; k++) for (let t = 0; t < 10; t++) op.pushRight(change(t === 0 ? '+I' : '+U', k, t * 100, `v${t}`));
  op.pushRight(change('-D', 3, 950, 'v9'));
  op.pushLeft(order('wait', 1, 5000));
  assert.equal(op.stateSize(), 3 * 10 + 1 + 1, 'all versions are kept while the watermark is behind them');
  op.advance(2000);
  // Keys 1 and 2: one version each (v9, valid at 900); key 3 deleted at 950: nothing; the waiting left row.
  assert.equal(op.stateSize(), 1 + 1 + 0 + 1);
  op.advance(6000);
  assert.equal(op.stateSize(), 2);
});

test('snapshot and restore (through the checkpoint codec) continue exactly as an uninterrupted run', () => {
  const feed1 = (op: TemporalJoinOp): void => {
    op.pushRight(change('+I', 1, SINCE_EVER, 'a'));
    op.pushRight(change('+I', 2, 50, 'x'));
    op.pushLeft(order('o1', 1, 120));
    op.pushLeft(order('o2', 2, 130));
    op.pushRight(change('+U', 1, 110, 'b'));
    op.advance(125);
    op.pushRight(change('-D', 2, 128, 'x'));
    op.pushLeft(order('o3', 1, 300));
  };
  const feed2 = (op: TemporalJoinOp): void => {
    op.pushRight(change('+U', 1, 250, 'c'));
    op.pushLeft(order('o4', 2, 400));
    op.advance(Number.POSITIVE_INFINITY);
  };
  const whole = makeJoin('left');
  feed1(whole.op);
  feed2(whole.op);
  // By hand: o1 (120) → b (110); o2 (130) → deleted at 128 → NULL; o3 (300) → c (250); o4 → NULL.
  assert.deepEqual(whole.out, ['o1:b', 'o2:NULL', 'o3:c', 'o4:NULL']);

  const first = makeJoin('left');
  feed1(first.op);
  const state = JSON.parse(JSON.stringify(encodeState(first.op.snapshot())));
  const second = makeJoin('left');
  second.op.restore(decodeState(state));
  assert.equal(second.op.stateSize(), first.op.stateSize());
  feed2(second.op);
  assert.deepEqual([...first.out, ...second.out], whole.out);
});

test('state_ttl: a key untouched (no change, no left row) for the TTL of processing time is forgotten', () => {
  let now = 0;
  const { op, out } = makeJoin('left', { stateTtlMs: 1000, now: () => now });
  op.pushRight(change('+I', 1, 0, 'a'));
  op.pushRight(change('+I', 2, 0, 'b'));
  now = 600;
  op.pushLeft(order('o1', 1, 10));
  op.advance(20); // the lookup touches key 1 at 600
  now = 1200;
  op.tick(now); // key 2 last touched at 0: gone; key 1 at 600: kept
  assert.equal(op.stateSize(), 1);
  op.pushLeft(order('o1b', 1, 30));
  op.pushLeft(order('o2', 2, 30));
  op.advance(40);
  assert.deepEqual(out, ['o1:a', 'o1b:a', 'o2:NULL']);
  now = 2300;
  op.tick(now);
  assert.equal(op.stateSize(), 0);
});
