// Predicate pushdown: filters move below projects (pass-through columns only), into every input
// of a union, below aggregates only on group keys and without an ON LATE TO sink, and into the
// preserved side of joins only. Expected plans are built by hand with the fixture builder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pushDownPredicates } from '../../../src/plan/optimize/predicate-pushdown.ts';
import type { IrOperator, LateHandling, PlanDoc } from '../../../src/plan/ir.ts';
import { DAY, E, MIN, PlanBuilder, T, agg, column } from '../../fixtures/plans/builder.ts';
import { ALL_FIXTURES } from '../../fixtures/plans/index.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

const amountType = T.decimal(12, 2);

function base() {
  const b = new PlanBuilder('pd');
  b.source({
    name: 'orders',
    connector: 'kafka',
    columns: [column('id', T.string(false)), column('cust', T.bigint()), column('amount', amountType), column('ts', T.timestamp())],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 },
    options: { topic: 'orders' },
    line: 1,
  });
  return b;
}

const ids = (p: PlanDoc) => p.operators.map((o) => `${o.op}:${o.id}<${o.inputs.join(',')}`);

test('a filter on passed-through columns moves below the project (renamed to input names)', () => {
  const before = (() => {
    const b = base();
    const p = b.project(b.scan('orders', 's'), (c) => [['order_id', c('id')], ['total', c('amount')], ['ts', c('ts')]], 'sel', 2);
    const f = b.filter(p, (c) => E.cmp('gt', c('total'), E.dec('10', 2, 0)), 'where', 3);
    b.sink({ name: 'out', connector: 'stdout', input: f, line: 4 });
    return b.build();
  })();
  const expected = (() => {
    const b = base();
    const f = b.filter(b.scan('orders', 's'), (c) => E.cmp('gt', c('amount'), E.dec('10', 2, 0)), 'where', 3);
    const p = b.project(f, (c) => [['order_id', c('id')], ['total', c('amount')], ['ts', c('ts')]], 'sel', 2);
    b.sink({ name: 'out', connector: 'stdout', input: p, line: 4 });
    return b.build();
  })();
  assert.deepEqual(pushDownPredicates(before), expected);
});

test('a conjunct on a computed column stays; the rest moves under a derived id', () => {
  const b = base();
  const p = b.project(
    b.scan('orders', 's'),
    (c) => [['cust', c('cust')], ['doubled', E.call('mul', [c('amount'), E.int(2)], T.decimal(13, 2))]],
    'sel',
  );
  const f = b.filter(p, (c) => E.and(E.cmp('eq', c('cust'), E.bigint(7)), E.cmp('gt', c('doubled'), E.dec('1', 1, 0))), 'where');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const after = pushDownPredicates(b.build());
  assert.deepEqual(ids(after), ['scan:s<', 'filter:where_0<s', 'project:sel<where_0', 'filter:where<sel']);
  const pushed = after.operators[1]!;
  const kept = after.operators[3]!;
  assert.ok(pushed.op === 'filter' && kept.op === 'filter');
  assert.deepEqual(pushed.predicate, E.cmp('eq', E.col('cust', T.bigint()), E.bigint(7)));
  assert.deepEqual(kept.predicate, E.cmp('gt', E.col('doubled', T.decimal(13, 2)), E.dec('1', 1, 0)));
});

test('a project that is a view (or feeds another reader) keeps the filter above it', () => {
  const b = base();
  const p = b.project(b.scan('orders', 's'), (c) => [['cust', c('cust')]], 'sel');
  b.view('customers', p);
  const f = b.filter(p, (c) => E.cmp('eq', c('cust'), E.bigint(7)), 'where');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const before = b.build();
  assert.deepEqual(pushDownPredicates(before), before);
});

test('a filter above a union goes into every input, columns matched by position', () => {
  const b = base();
  b.source({ name: 'refunds', connector: 'kafka', columns: [column('rid', T.string(false)), column('rcust', T.bigint()), column('ramount', amountType), column('rts', T.timestamp())], options: { topic: 'refunds' } });
  const u = b.union([b.scan('orders', 's1'), b.scan('refunds', 's2')], 'u');
  const f = b.filter(u, (c) => E.cmp('gt', c('amount'), E.dec('0', 1, 0)), 'where');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const after = pushDownPredicates(b.build());
  assert.deepEqual(ids(after), ['scan:s1<', 'scan:s2<', 'filter:where_0<s1', 'filter:where_1<s2', 'union:u<where_0,where_1']);
  const f1 = after.operators[3]!;
  assert.ok(f1.op === 'filter');
  assert.deepEqual(f1.predicate, E.cmp('gt', E.col('ramount', amountType), E.dec('0', 1, 0)));
  assert.equal(after.sinks[0]!.input, 'u');
});

function windowed(late: LateHandling, pred: 'key' | 'agg') {
  const b = base();
  const w = b.windowAgg(b.scan('orders', 's'), {
    id: 'w',
    window: { kind: 'tumble', sizeMs: MIN, offsetMs: 0 },
    time: 'ts',
    keys: ['cust'],
    aggregates: (c) => [agg.sum('total', c('amount'), T.decimal(38, 2))],
    late,
  });
  const f = b.filter(w, (c) => (pred === 'key' ? E.cmp('eq', c('cust'), E.bigint(7)) : E.cmp('gt', c('total'), E.dec('0', 1, 0))), 'having');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  if (late.kind === 'to') b.sink({ name: 'late', connector: 'stdout', input: null, lateFrom: [w], schema: b.lateSchema(w) });
  return b.build();
}

test('a filter on a group key moves below the window aggregate', () => {
  const after = pushDownPredicates(windowed({ kind: 'drop' }, 'key'));
  assert.deepEqual(ids(after), ['scan:s<', 'filter:having<s', 'window_agg:w<having']);
  assert.equal(after.sinks[0]!.input, 'w');
});

test('never below a window on an aggregate, nor when late rows go to a sink', () => {
  const onAgg = windowed({ kind: 'drop' }, 'agg');
  assert.deepEqual(pushDownPredicates(onAgg), onAgg);
  const withLateSink = windowed({ kind: 'to', sink: 'late' }, 'key');
  assert.deepEqual(pushDownPredicates(withLateSink), withLateSink);
});

test('a filter on a computed group key stays above the aggregation', () => {
  const b = base();
  const s = b.scan('orders', 's');
  const g = b.groupAgg(s, { id: 'g', keys: ['cust'], aggregates: () => [agg.countStar('n')], stateTtlMs: DAY });
  const plan = (() => {
    const f = b.filter(g, (c) => E.cmp('eq', c('cust'), E.bigint(1)), 'having');
    b.sink({ name: 'out', connector: 'stdout', input: f });
    return b.build();
  })();
  // Make the key `cust + 1`: the filter on it cannot be rewritten over the input.
  const op = plan.operators.find((o) => o.id === 'g')!;
  if (op.op !== 'group_agg') throw new Error('fixture');
  op.groupKeys = [{ name: 'cust', expr: E.call('add', [E.col('cust', T.bigint()), E.bigint(1)], T.bigint()) }];
  assert.deepEqual(pushDownPredicates(plan), plan);
});

test('a conjunct reading both join sides stays above the join', () => {
  const plan = joined('inner');
  const f = plan.operators.find((o) => o.id === 'where')!;
  if (f.op !== 'filter') throw new Error('fixture');
  f.predicate = E.cmp('eq', E.col('id', T.string(false)), E.col('country', T.string()));
  assert.deepEqual(pushDownPredicates(plan), plan);
});

test('a filter on a group key moves below a non-windowed aggregation', () => {
  const b = base();
  const g = b.groupAgg(b.scan('orders', 's'), { id: 'g', keys: ['cust'], aggregates: () => [agg.countStar('n')], stateTtlMs: DAY });
  const f = b.filter(g, (c) => E.cmp('ne', c('cust'), E.bigint(0)), 'having');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  assert.deepEqual(ids(pushDownPredicates(b.build())), ['scan:s<', 'filter:having<s', 'group_agg:g<having']);
});

function joined(joinType: 'inner' | 'left') {
  const b = base();
  b.source({ name: 'customers', connector: 'postgres-cdc', columns: [column('cid', T.bigint(false)), column('country', T.string())], primaryKey: ['cid'], options: { table: 'c' } });
  const o = b.scan('orders', 'so');
  const c = b.scan('customers', 'sc');
  const j = b.temporalJoin(o, c, {
    id: 'j', joinType, leftKeys: ['cust'], rightKeys: ['cid'], asOf: 'ts',
    output: [['id', 0, 'id'], ['amount', 0, 'amount'], ['ts', 0, 'ts'], ['country', 1, 'country']],
    stateBound: { kind: 'ttl', ttlMs: DAY },
  });
  const f = b.filter(j, (col) => E.and(E.cmp('gt', col('amount'), E.dec('5', 1, 0)), E.cmp('eq', col('country'), E.str('FR'))), 'where');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  return b.build();
}

test('temporal join: left-side conjuncts move into the left input, right-side ones stay', () => {
  for (const kind of ['inner', 'left'] as const) {
    const after = pushDownPredicates(joined(kind));
    assert.deepEqual(ids(after), ['scan:so<', 'scan:sc<', 'filter:where_0<so', 'temporal_join:j<where_0,sc', 'filter:where<j'], kind);
    const kept = after.operators[4]!;
    assert.ok(kept.op === 'filter');
    assert.deepEqual(kept.predicate, E.cmp('eq', E.col('country', T.string()), E.str('FR')));
  }
});

function intervalJoined(joinType: 'inner' | 'left'): PlanDoc {
  const doc = joined('inner');
  // Turn the temporal join into an interval join over the same inputs.
  const j = doc.operators.find((o) => o.id === 'j')!;
  if (j.op !== 'temporal_join') throw new Error('fixture');
  const ij: IrOperator = {
    ...j, op: 'interval_join', joinType, rightKeys: [E.col('cid', T.bigint(false), 1)],
    leftTime: 'ts', rightTime: 'cid', lowerMs: 0, upperMs: 1000, allowedLatenessMs: 0, late: { kind: 'drop' }, stateBound: { kind: 'interval', retainMs: 1000 },
  } as IrOperator;
  delete (ij as { asOfColumn?: string }).asOfColumn;
  doc.operators = doc.operators.map((o) => (o.id === 'j' ? ij : o));
  return doc;
}

test('inner interval join: each side gets its own conjuncts; LEFT join: never the right side', () => {
  const inner = pushDownPredicates(intervalJoined('inner'));
  assert.deepEqual(ids(inner), ['scan:so<', 'scan:sc<', 'filter:where_0<so', 'filter:where_1<sc', 'interval_join:j<where_0,where_1']);
  const left = pushDownPredicates(intervalJoined('left'));
  assert.deepEqual(ids(left), ['scan:so<', 'scan:sc<', 'filter:where_0<so', 'interval_join:j<where_0,sc', 'filter:where<j']);
});

test('filters travel down several levels until they cannot move', () => {
  const b = base();
  const p1 = b.project(b.scan('orders', 's'), (c) => [['cust', c('cust')], ['amount', c('amount')], ['ts', c('ts')]], 'p1');
  const p2 = b.project(p1, (c) => [['customer', c('cust')], ['amount', c('amount')]], 'p2');
  const f = b.filter(p2, (c) => E.cmp('eq', c('customer'), E.bigint(1)), 'where');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const after = pushDownPredicates(b.build());
  assert.deepEqual(ids(after), ['scan:s<', 'filter:where<s', 'project:p1<where', 'project:p2<p1']);
  const moved = after.operators[1]!;
  assert.ok(moved.op === 'filter');
  assert.deepEqual(moved.predicate, E.cmp('eq', E.col('cust', T.bigint()), E.bigint(1)));
});

test('a filter on a filter merges into it and the merged conditions move on', () => {
  const b = base();
  const p = b.project(b.scan('orders', 's'), (c) => [['cust', c('cust')], ['big', E.call('mul', [c('amount'), E.int(2)], T.decimal(13, 2))]], 'p');
  const lower = b.filter(p, (c) => E.cmp('gt', c('big'), E.dec('10', 2, 0)), 'lower');
  const upper = b.filter(lower, (c) => E.cmp('eq', c('cust'), E.bigint(1)), 'upper');
  b.sink({ name: 'out', connector: 'stdout', input: upper });
  const after = pushDownPredicates(b.build());
  // upper merges into lower; cust = 1 then moves below the project, big > 10 cannot.
  assert.deepEqual(ids(after), ['scan:s<', 'filter:lower_0<s', 'project:p<lower_0', 'filter:lower<p']);
  assert.equal(after.sinks[0]!.input, 'lower');
  const kept = after.operators[3]!;
  assert.ok(kept.op === 'filter');
  assert.deepEqual(kept.predicate, E.cmp('gt', E.col('big', T.decimal(13, 2)), E.dec('10', 2, 0)));
});

test('a filter that is a view is not merged into', () => {
  const b = base();
  const lower = b.filter(b.scan('orders', 's'), (c) => E.cmp('gt', c('amount'), E.dec('10', 2, 0)), 'lower');
  b.view('big', lower);
  const upper = b.filter(lower, (c) => E.cmp('eq', c('cust'), E.bigint(1)), 'upper');
  b.sink({ name: 'out', connector: 'stdout', input: upper });
  const before = b.build();
  assert.deepEqual(pushDownPredicates(before), before);
});

test('the pass changes no sink or view output schema, and leaves valid plans', () => {
  const cases: [string, () => PlanDoc][] = [
    ...Object.entries(ALL_FIXTURES),
    ['window-key', () => windowed({ kind: 'drop' }, 'key')],
    ['temporal-left', () => joined('left')],
    ['interval-inner', () => intervalJoined('inner')],
  ];
  for (const [name, make] of cases) {
    const before = make();
    const after = pushDownPredicates(before);
    assert.deepEqual(outputSchemas(after), outputSchemas(before), name);
    assert.deepEqual(planProblems(after), [], name);
    assert.deepEqual(pushDownPredicates(after), after, `${name}: a second run changes nothing`);
  }
});
