// Projection pruning: each source's usedColumns becomes the minimal set the plan reads (schema
// order; watermark column and primary key kept), unread project outputs go, exposed outputs
// stay whole. Expected column sets are worked out by hand from each plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneProjections } from '../../../src/plan/optimize/projection-pruning.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import * as F from '../../fixtures/plans/index.ts';
import { E, MIN, PlanBuilder, T, agg, column } from '../../fixtures/plans/builder.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

const used = (p: PlanDoc) => Object.fromEntries(p.sources.map((s) => [s.name, s.usedColumns]));

test('orders revenue: ON LATE TO keeps every column the window reads (late rows carry them)', () => {
  assert.deepEqual(used(pruneProjections(F.ordersRevenue())), { orders: ['order_id', 'customer_id', 'amount', 'order_ts', 'kafka_offset'] });
});

test('orders revenue with ON LATE DROP: only key, amount and time are decoded', () => {
  const plan = F.ordersRevenue();
  plan.sinks = plan.sinks.filter((s) => s.name !== 'orders_late');
  const w = plan.operators.find((o) => o.id === 'tumble_revenue')!;
  if (w.op !== 'window_agg') throw new Error('fixture');
  w.late = { kind: 'drop' };
  const after = pruneProjections(plan);
  assert.deepEqual(used(after), { orders: ['customer_id', 'amount', 'order_ts'] });
  // The scan and the WHERE filter narrow with it.
  assert.deepEqual(after.operators.find((o) => o.id === 'scan_orders')!.schema.map((c) => c.name), ['customer_id', 'amount', 'order_ts']);
  assert.deepEqual(after.operators.find((o) => o.id === 'where_amount')!.schema.map((c) => c.name), ['customer_id', 'amount', 'order_ts']);
});

test('clickstream: referrer is never read; is_bot is read by the filter only', () => {
  assert.deepEqual(used(pruneProjections(F.clickstreamSession())), { clicks: ['user_id', 'page', 'is_bot', 'click_ts'] });
});

test('CDC temporal join: email is dropped; key, joined columns and version time stay', () => {
  assert.deepEqual(used(pruneProjections(F.cdcTemporalJoin())), {
    customers: ['id', 'name', 'country', 'updated_at'],
    orders: ['order_id', 'customer_id', 'amount', 'order_ts'],
  });
});

test('group agg: view_id is not read, the watermark column is kept although no operator reads it', () => {
  assert.deepEqual(used(pruneProjections(F.groupAggTtl())), { page_views: ['region', 'user_id', 'view_ts'] });
});

test('fan-out: payload and the partition metadata column are dropped', () => {
  assert.deepEqual(used(pruneProjections(F.fanOut())), { events: ['event_id', 'user_id', 'event_type', 'amount', 'event_ts'] });
});

test('a primary key is kept even when nothing reads it', () => {
  const b = new PlanBuilder('pk');
  b.source({ name: 'c', connector: 'postgres-cdc', columns: [column('id', T.bigint(false)), column('a', T.string()), column('b', T.string())], primaryKey: ['id'] });
  const p = b.project(b.scan('c', 's'), (c) => [['a', c('a')]], 'sel');
  b.sink({ name: 'out', connector: 'stdout', input: p });
  assert.deepEqual(used(pruneProjections(b.build())), { c: ['id', 'a'] });
});

function computed() {
  const b = new PlanBuilder('proj');
  b.source({
    name: 'ev',
    connector: 'kafka',
    columns: [column('k', T.string()), column('v', T.bigint()), column('w', T.string()), column('ts', T.timestamp())],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 },
    options: { topic: 'ev' },
  });
  const p = b.project(
    b.scan('ev', 's'),
    (c) => [['k', c('k')], ['ts', c('ts')], ['v2', E.call('mul', [c('v'), E.bigint(2)], T.bigint())], ['w', c('w')]],
    'p',
  );
  const w = b.windowAgg(p, { id: 'win', window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 }, time: 'ts', keys: ['k'], aggregates: (c) => [agg.sum('total', c('v2'), T.bigint())], late: { kind: 'drop' } });
  b.view('totals', w);
  return b.build();
}

test('an intermediate project loses the outputs nobody reads', () => {
  const after = pruneProjections(computed());
  const p = after.operators.find((o) => o.id === 'p')!;
  assert.ok(p.op === 'project');
  assert.deepEqual(p.exprs.map((e) => e.name), ['k', 'ts', 'v2']);
  assert.deepEqual(p.schema.map((c) => c.name), ['k', 'ts', 'v2']);
  assert.deepEqual(used(after), { ev: ['k', 'v', 'ts'] });
});

test('a view or sink output is never narrowed', () => {
  const plan = computed();
  plan.views.push({ name: 'projected', operator: 'p', span: plan.views[0]!.span });
  const after = pruneProjections(plan);
  const p = after.operators.find((o) => o.id === 'p')!;
  assert.ok(p.op === 'project');
  assert.equal(p.exprs.length, 4);
  assert.deepEqual(used(after), { ev: ['k', 'v', 'w', 'ts'] });
});

test('two scans of one source: usedColumns is the union of their needs', () => {
  const b = new PlanBuilder('two');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('a', T.string()), column('b', T.string()), column('c', T.string())], options: { topic: 'ev' } });
  const p1 = b.project(b.scan('ev', 's1'), (c) => [['c', c('c')]], 'p1');
  const p2 = b.project(b.scan('ev', 's2'), (c) => [['a', c('a')]], 'p2');
  b.sink({ name: 'o1', connector: 'stdout', input: p1 });
  b.sink({ name: 'o2', connector: 'stdout', input: p2 });
  const after = pruneProjections(b.build());
  assert.deepEqual(used(after), { ev: ['a', 'c'] });
  assert.deepEqual(planProblems(after), []);
});

test('the pass changes no sink or view output schema, leaves valid plans, and is idempotent', () => {
  for (const [name, make] of [...Object.entries(F.ALL_FIXTURES), ['computed', computed] as const]) {
    const before = make();
    const after = pruneProjections(before);
    assert.deepEqual(outputSchemas(after), outputSchemas(before), name);
    assert.deepEqual(planProblems(after), [], name);
    assert.deepEqual(pruneProjections(after), after, name);
  }
});

test('an intermediate join loses the outputs nobody reads, and its inputs decode less', () => {
  const plan = F.cdcTemporalJoin();
  // Read the join through a project that keeps only order_id and country.
  const join = plan.operators.find((o) => o.id === 'join_customer')!;
  plan.views = [];
  plan.operators.push({
    op: 'project', id: 'sel', inputs: ['join_customer'],
    exprs: [{ name: 'order_id', expr: E.col('order_id', T.string(false)) }, { name: 'country', expr: E.col('country', T.string()) }, { name: 'order_ts', expr: E.col('order_ts', T.timestamp()) }],
    schema: [column('order_id', T.string(false)), column('country', T.string()), column('order_ts', T.timestamp())],
    changelog: 'append', upsertKey: null, stateBound: { kind: 'stateless' }, timeColumn: 'order_ts', span: join.span,
  });
  plan.sinks[0]!.input = 'sel';
  plan.sinks[0]!.schema = plan.operators.at(-1)!.schema;
  const after = pruneProjections(plan);
  const j = after.operators.find((o) => o.id === 'join_customer')!;
  assert.ok(j.op === 'temporal_join');
  // customer_id stays: it is the join key (read from the left input, not an output).
  assert.deepEqual(j.outputMap.map((m) => m.name), ['order_id', 'order_ts', 'country']);
  assert.deepEqual(j.schema.map((c) => c.name), ['order_id', 'order_ts', 'country']);
  assert.deepEqual(used(after), {
    customers: ['id', 'country', 'updated_at'],
    orders: ['order_id', 'customer_id', 'order_ts'],
  });
  assert.deepEqual(planProblems(after), []);
  assert.deepEqual(outputSchemas(after), outputSchemas(plan));
});
