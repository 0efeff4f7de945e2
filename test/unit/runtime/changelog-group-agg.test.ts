// GROUP BY over a changelog, through the generated module and the runner: rows with kinds
// (a CDC source's +I / -U / +U / -D, fed from memory) pass the changelog normalize and
// retract from COUNT, SUM, AVG, MIN/MAX (retracting the current minimum/maximum), COUNT
// DISTINCT and FIRST/LAST_VALUE; the expected rows are computed by hand in the comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanBuilder, column, T, agg } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';
import { setRowKind, type Row, type RowKind } from '../../../targets/runtime/lib/ops/types.ts';
import { GroupAggOp } from '../../../targets/runtime/lib/ops/group-agg.ts';

const row = (kind: RowKind, ...values: unknown[]): Row => setRowKind(values, kind);

/** Runs a CDC source (id, k, v) → GROUP BY k → stdout NDJSON with the given rows. */
async function groupByOverCdc(rows: Row[], aggregates: Parameters<PlanBuilder['groupAgg']>[1]['aggregates']): Promise<Record<string, unknown>[]> {
  const b = new PlanBuilder('cdc_group');
  b.source({ name: 'orders', connector: 'postgres-cdc', columns: [column('id', T.int(false)), column('k', T.string(false)), column('v', T.bigint())], primaryKey: ['id'], options: { table: 'orders' } });
  const g = b.groupAgg(b.scan('orders'), { keys: ['k'], aggregates, stateTtlMs: null });
  b.sink({ name: 'out', connector: 'stdout', input: g, options: { format: 'ndjson' } });
  const plan = b.build();
  const gen = generateBody(plan);
  assert.deepEqual(gen.unsupported, []);
  const def = instantiateBody(gen.body, {});
  let out = '';
  let err = '';
  const r = await runPipelineDef(def, { baseDir: '/tmp', env: {}, handleSignals: false, stdout: (t) => (out += t), stderr: (t) => (err += t), memorySources: { [plan.sources[0]!.id]: { rows } } });
  assert.equal(r.exitCode, 0, err);
  return out.trim().split('\n').map((l) => JSON.parse(l));
}

test('COUNT, SUM and AVG retract updates and deletes exactly; an emptied group is deleted', async () => {
  const got = await groupByOverCdc(
    [
      row('+I', 1, 'a', 10),
      row('+I', 2, 'a', 20),
      row('+I', 3, 'b', 5),
      // The source sends a key-only old row (no REPLICA IDENTITY FULL); the normalize supplies (2, 'a', 20).
      row('-U', 2, null, null),
      row('+U', 2, 'a', 26),
      row('-D', 1, null, null), // key only: the normalize knows (1, 'a', 10)
      row('-D', 3, null, null), // b becomes empty
    ],
    (c) => [agg.countStar('n'), agg.sum('total', c('v'), T.bigint()), agg.avg('mean', c('v'))],
  );
  assert.deepEqual(got, [
    { op: '+I', k: 'a', n: 1, total: 10, mean: 10 },
    { op: '-U', k: 'a', n: 1, total: 10, mean: 10 },
    { op: '+U', k: 'a', n: 2, total: 30, mean: 15 },
    { op: '+I', k: 'b', n: 1, total: 5, mean: 5 },
    // update of id 2: 20 out (n 1, total 10), 26 in (n 2, total 36, mean 18)
    { op: '-U', k: 'a', n: 2, total: 30, mean: 15 },
    { op: '+U', k: 'a', n: 1, total: 10, mean: 10 },
    { op: '-U', k: 'a', n: 1, total: 10, mean: 10 },
    { op: '+U', k: 'a', n: 2, total: 36, mean: 18 },
    // delete of id 1: 10 out → n 1, total 26
    { op: '-U', k: 'a', n: 2, total: 36, mean: 18 },
    { op: '+U', k: 'a', n: 1, total: 26, mean: 26 },
    // delete of id 3: b has no row left
    { op: '-D', k: 'b', n: 1, total: 5, mean: 5 },
  ]);
});

test('MIN/MAX find the next extreme when the current one is retracted; SUM of no values is NULL again', async () => {
  const got = await groupByOverCdc(
    [
      row('+I', 1, 'a', 3),
      row('+I', 2, 'a', 1),
      row('+I', 3, 'a', 1),
      row('+I', 4, 'a', 7),
      row('-D', 2, null, null), // one of two 1s: MIN stays 1
      row('-D', 3, null, null), // the last 1: MIN becomes 3
      row('-D', 4, null, null), // MAX 7 retracted: MAX becomes 3
      row('+U', 1, 'a', null), // 3 → NULL: no non-NULL value left
    ],
    (c) => [agg.min('lo', c('v')), agg.max('hi', c('v')), agg.sum('total', c('v'), T.bigint()), agg.count('nv', c('v')), agg.countDistinct('dv', c('v'))],
  );
  const after = got.filter((r) => r.op !== '-U').map(({ lo, hi, total, nv, dv }) => [lo, hi, total, nv, dv]);
  assert.deepEqual(after, [
    [3, 3, 3, 1, 1],
    [1, 3, 4, 2, 2],
    [1, 3, 5, 3, 2],
    [1, 7, 12, 4, 3],
    [1, 7, 11, 3, 3], // -D id 2
    [3, 7, 10, 2, 2], // -D id 3: the current MIN 1 is gone
    [3, 3, 3, 1, 1], // -D id 4: the current MAX 7 is gone
    // +U id 1 (3 → NULL) arrives as -U (3) then +U (NULL): the -U takes the group's only row
    // back, so the group is deleted with its last row...
    [3, 3, 3, 1, 1],
    // ...and the +U starts it again: no non-NULL value, so MIN/MAX/SUM are NULL, counts 0.
    [null, null, null, 0, 0],
  ]);
  assert.deepEqual(got.slice(-2).map((r) => r.op), ['-D', '+I']);
});

test('FIRST_VALUE / LAST_VALUE over a changelog fall back to the remaining rows in arrival order', async () => {
  const got = await groupByOverCdc(
    [row('+I', 1, 'a', 10), row('+I', 2, 'a', 20), row('+I', 3, 'a', 30), row('-D', 1, null, null), row('-D', 3, null, null)],
    (c) => [
      { name: 'first', fn: 'first_value', arg: c('v'), type: T.bigint() },
      { name: 'last', fn: 'last_value', arg: c('v'), type: T.bigint() },
    ],
  );
  assert.deepEqual(
    got.filter((r) => r.op !== '-U').map((r) => [r.first, r.last]),
    [
      [10, 10],
      [10, 20],
      [10, 30],
      [20, 30], // 10 retracted: the first remaining is 20
      [20, 20], // 30 retracted: the last remaining is 20
    ],
  );
});

test('a TRUNCATE marker deletes every group through the normalize', async () => {
  const { truncateRow } = await import('../../../targets/runtime/lib/ops/types.ts');
  const got = await groupByOverCdc([row('+I', 1, 'a', 1), row('+I', 2, 'b', 2), truncateRow(3)], () => [agg.countStar('n')]);
  assert.deepEqual(got, [
    { op: '+I', k: 'a', n: 1 },
    { op: '+I', k: 'b', n: 1 },
    { op: '-D', k: 'a', n: 1 },
    { op: '-D', k: 'b', n: 1 },
  ]);
});

test('append input: +I for a new group, +U after (no -U unless a consumer needs it)', () => {
  const out: Row[] = [];
  const op = new GroupAggOp({
    id: 'g',
    stateTtlMs: null,
    now: () => 0,
    out: (r) => out.push(r),
    fns: { keyOf: (r) => r[0], keyVals: (r) => [r[0]], create: () => [0], add: (a) => void (a[0] = (a[0] as number) + 1), merge: () => {}, output: (k, _s, _e, a) => [k[0], a[0]] },
  });
  op.push(['a']);
  op.push(['a']);
  op.push(['b']);
  assert.deepEqual(out.map((r) => [(r as { kind?: string }).kind ?? '+I', ...r]), [['+I', 'a', 1], ['+U', 'a', 2], ['+I', 'b', 1]]);
});

test('SUM and AVG become NULL when every non-NULL value is retracted while the group still has rows', async () => {
  const got = await groupByOverCdc([row('+I', 1, 'a', null), row('+I', 2, 'a', 5), row('-D', 2, null, null)], (c) => [
    agg.countStar('n'),
    agg.sum('total', c('v'), T.bigint()),
    agg.avg('mean', c('v')),
  ]);
  assert.deepEqual(got.at(-1), { op: '+U', k: 'a', n: 1, total: null, mean: null });
});

test('a retraction of a group evicted by state_ttl is ignored and counted (pipec_ignored_retractions_total)', () => {
  const out: Row[] = [];
  let now = 0;
  const op = new GroupAggOp({
    id: 'g',
    stateTtlMs: 1000,
    now: () => now,
    out: (r) => out.push(r),
    fns: {
      keyOf: (r) => r[0],
      keyVals: (r) => [r[0]],
      create: () => [0],
      add: (a) => void (a[0] = (a[0] as number) + 1),
      retract: (a) => void (a[0] = (a[0] as number) - 1),
      merge: () => {},
      output: (k, _s, _e, a) => [k[0], a[0]],
    },
  });
  op.push(['a']);
  op.push(['b']);
  now = 500;
  op.push(['b']); // b touched at 500, a at 0
  op.tick(1200); // a is past its TTL, b is not
  assert.equal(op.stateSize(), 1);
  op.push(setRowKind(['a'], '-D'));
  op.push(setRowKind(['b'], '-U'));
  assert.equal(op.ignoredRetractions, 1, "only a's retraction found no group");
  assert.deepEqual(out.map((r) => [(r as { kind?: string }).kind ?? '+I', ...r]).slice(-1), [['+U', 'b', 1]]);
});
