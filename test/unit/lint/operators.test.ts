// Operator lints: missing ON LATE choice, unbounded state, long COUNT(DISTINCT) state, group
// key vs Kafka message key, hot partitions on low-cardinality keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import * as F from '../../fixtures/plans/index.ts';
import { DAY, E, HOUR, PlanBuilder, T, agg, column } from '../../fixtures/plans/builder.ts';
import { lint, only } from './helpers.ts';

test('window-late-unspecified: at the window operator, naming its view', () => {
  const plan = F.clickstreamSession();
  const [d] = only(plan, 'window-late-unspecified');
  assert.deepEqual(d!.span, plan.operators.find((o) => o.id === 'session_user')!.span);
  assert.match(d!.message, /the window aggregate of view 'user_sessions' does not say what happens to events later/);
  assert.match(d!.help!, /ON LATE DROP.*ON LATE TO/);
});

test('window-late-unspecified: ON LATE DROP silences it', () => {
  const plan = F.clickstreamSession();
  const w = plan.operators.find((o) => o.id === 'session_user')!;
  if (w.op !== 'window_agg') throw new Error('fixture');
  w.late = { kind: 'drop' };
  assert.equal(only(plan, 'window-late-unspecified').length, 0);
});

function ttlLessPlan() {
  const b = new PlanBuilder('counts');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('k', T.string()), column('v', T.bigint())], messageKey: ['k'], options: { topic: 'ev' } });
  const s = b.scan('ev');
  const g = b.groupAgg(s, { id: 'g', keys: ['k'], aggregates: (c) => [agg.sum('total', c('v'), T.bigint())], stateTtlMs: null });
  b.view('totals', g);
  return b.build();
}

test('unbounded-state: reports the reason at the operator', () => {
  const plan = ttlLessPlan();
  const [d] = only(plan, 'unbounded-state');
  assert.equal(d!.message, "the aggregation of view 'totals' keeps state without bound: GROUP BY without a window or state_ttl");
  assert.deepEqual(d!.span, plan.operators[1]!.span);
});

test('unbounded-state: not repeated when the checker already reported an error there', () => {
  const plan = ttlLessPlan();
  const bag = new DiagnosticBag();
  bag.report('internal-error', plan.operators[1]!.span, { detail: 'stands in for the checker error' });
  assert.equal(lint(plan, bag).filter((d) => d.code === 'unbounded-state').length, 0);
});

test('unbounded-state: bounded operators are quiet', () => {
  for (const make of Object.values(F.ALL_FIXTURES)) assert.equal(only(make(), 'unbounded-state').length, 0);
});

test('distinct-state-large: COUNT(DISTINCT) under a 1 d TTL; not in a 30 min session', () => {
  const [d] = only(F.groupAggTtl(), 'distinct-state-large');
  assert.equal(d!.message, "COUNT(DISTINCT user_id) in view 'views_by_region' keeps every distinct value for 1 d per key");
  assert.match(d!.help!, /APPROX_COUNT_DISTINCT\(user_id\)/);
  assert.equal(only(F.clickstreamSession(), 'distinct-state-large').length, 0);
  const shorter = F.groupAggTtl();
  const g = shorter.operators.find((o) => o.id === 'group_region')!;
  if (g.op !== 'group_agg') throw new Error('fixture');
  g.stateTtlMs = 12 * HOUR;
  assert.equal(only(shorter, 'distinct-state-large').length, 0);
  g.stateTtlMs = DAY + 1;
  assert.match(only(shorter, 'distinct-state-large')[0]!.message, /for 86400001 ms/);
});

test('group-key-not-message-key: quiet when the topic is keyed by the grouping key', () => {
  assert.equal(only(F.ordersRevenue(), 'group-key-not-message-key').length, 0);
  assert.equal(only(F.iotHop(), 'group-key-not-message-key').length, 0);
});

test('group-key-not-message-key: a different message key stands in the way of scaling out', () => {
  const plan = F.ordersRevenue();
  plan.sources[0]!.messageKey = ['order_id'];
  const [d] = only(plan, 'group-key-not-message-key');
  assert.equal(
    d!.message,
    "view 'revenue_1m' groups by (customer_id) but topic of source 'orders' is keyed by (order_id): this pipeline cannot run on several processes (scale_out = 'partitions')",
  );
  assert.deepEqual(d!.span, plan.operators.find((o) => o.id === 'tumble_revenue')!.span);
});

test('group-key-not-message-key: an unkeyed topic too; a message key inside a wider group key is fine', () => {
  const unkeyed = F.ordersRevenue();
  unkeyed.sources[0]!.messageKey = null;
  assert.match(only(unkeyed, 'group-key-not-message-key')[0]!.message, /keyed by nothing/);

  const b = new PlanBuilder('wide');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('a', T.string()), column('b', T.string()), column('ts', T.timestamp())], messageKey: ['a'], watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 } });
  const w = b.windowAgg(b.scan('ev'), { window: { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, time: 'ts', keys: ['a', 'b'], aggregates: () => [agg.countStar('n')], late: { kind: 'drop' } });
  b.view('v', w);
  assert.equal(only(b.build(), 'group-key-not-message-key').length, 0);
});

test('group-key-not-message-key: only for Kafka sources', () => {
  assert.equal(only(F.groupAggTtl(), 'group-key-not-message-key').length, 0);
});

test('hot-partition-group-key: a datagen choice of 3 values', () => {
  const plan = F.groupAggTtl();
  const [d] = only(plan, 'hot-partition-group-key');
  assert.equal(d!.message, "view 'views_by_region' groups only by (region), which has at most 3 distinct values: at most 3 workers can share the load");
});

test('hot-partition-group-key: the choice values are read from the options when no hint is set', () => {
  const plan = F.groupAggTtl();
  delete plan.sources[0]!.columns.find((c) => c.name === 'region')!.cardinalityHint;
  assert.equal(only(plan, 'hot-partition-group-key')[0]!.params['distinct'], 3);
});

test('hot-partition-group-key: BOOLEAN keys count 2; a key of unknown cardinality is quiet', () => {
  const b = new PlanBuilder('flags');
  b.source({
    name: 'ev',
    connector: 'kafka',
    columns: [column('is_test', T.boolean()), column('is_mobile', T.boolean()), column('user', T.string()), column('ts', T.timestamp())],
    messageKey: ['is_test'],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 },
  });
  const s = b.scan('ev');
  const w = b.windowAgg(s, { window: { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, time: 'ts', keys: ['is_test', 'is_mobile'], aggregates: () => [agg.countStar('n')], late: { kind: 'drop' } });
  b.view('by_flags', w);
  const w2 = b.windowAgg(s, { window: { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, time: 'ts', keys: ['is_test', 'user'], aggregates: () => [agg.countStar('n')], late: { kind: 'drop' } });
  b.view('by_user', w2);
  const ds = only(b.build(), 'hot-partition-group-key');
  assert.equal(ds.length, 1);
  assert.match(ds[0]!.message, /view 'by_flags' groups only by \(is_test, is_mobile\), which has at most 4 distinct values/);
});

test('hot-partition-group-key: a hint above the limit is quiet', () => {
  const plan = F.groupAggTtl();
  plan.sources[0]!.columns.find((c) => c.name === 'region')!.cardinalityHint = 200;
  assert.equal(only(plan, 'hot-partition-group-key').length, 0);
});

function filtered(pred: (c: (n: string) => import('../../../src/plan/ir.ts').IrExpr) => import('../../../src/plan/ir.ts').IrExpr) {
  const b = new PlanBuilder('f');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('status', T.string())], messageKey: ['status'], options: { topic: 'ev', partitions: '1' } });
  const f = b.filter(b.scan('ev'), pred, 'where');
  b.view('v', f);
  return b.build();
}

test('filter-always-false: `status = NULL` can never be true', () => {
  // A comparison with NULL is NULL for every row, whatever the column holds.
  const plan = filtered((c) => E.cmp('eq', c('status'), E.nul(T.string())));
  const [d] = only(plan, 'filter-always-false');
  assert.equal(d!.message, "the condition status = NULL in view 'v' is always false or NULL after constant folding: nothing flows past it");
  assert.deepEqual(d!.span, plan.operators[1]!.span);
  const isNull = filtered((c) => E.call('is_null', [c('status')], T.boolean(false)));
  assert.equal(only(isNull, 'filter-always-false').length, 0);
});

test('filter-always-false: x AND 1 > 2 folds to FALSE; x AND 1 < 2 is fine', () => {
  const never = filtered((c) => E.and(E.cmp('eq', c('status'), E.str('ok')), E.cmp('gt', E.int(1), E.int(2))));
  assert.equal(only(never, 'filter-always-false').length, 1);
  const fine = filtered((c) => E.and(E.cmp('eq', c('status'), E.str('ok')), E.cmp('lt', E.int(1), E.int(2))));
  assert.equal(only(fine, 'filter-always-false').length, 0);
});

test('unbounded-state: a temporal join against a changelog keeps one row per table key, not reported', () => {
  const plan = F.cdcTemporalJoin();
  const j = plan.operators.find((o) => o.id === 'join_customer')!;
  j.stateBound = { kind: 'unbounded', reason: "keeps the latest version of every key of 'customers'" };
  assert.equal(only(plan, 'unbounded-state').length, 0);
  // Against an append-only stream the same join would keep every row.
  const right = plan.operators.find((o) => o.id === 'scan_customers')!;
  right.changelog = 'append';
  assert.equal(only(plan, 'unbounded-state').length, 1);
});
