// The whole optimizer over every fixture: valid plans, unchanged sink/view schemas, pure
// (input untouched), deterministic, and a fixed point when run again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optimizePlan } from '../../../src/plan/optimize/index.ts';
import { ALL_FIXTURES } from '../../fixtures/plans/index.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

for (const [name, make] of Object.entries(ALL_FIXTURES)) {
  test(`optimizePlan(${name}): valid, same outputs, pure, deterministic, idempotent`, () => {
    const before = make();
    const snapshot = JSON.stringify(before);
    const after = optimizePlan(before);
    assert.equal(JSON.stringify(before), snapshot, 'the input plan is not modified');
    assert.deepEqual(planProblems(after), []);
    assert.deepEqual(outputSchemas(after), outputSchemas(before));
    assert.equal(JSON.stringify(optimizePlan(make())), JSON.stringify(after));
    assert.deepEqual(optimizePlan(after), after);
  });
}

test('optimizePlan sets panes and prunes in one go (IoT HOP)', () => {
  const after = optimizePlan(ALL_FIXTURES['iotHop']!());
  const w = after.operators.find((o) => o.op === 'window_agg')!;
  assert.ok(w.op === 'window_agg' && w.paneMs === 60_000);
  // Late rows carry every input column, so nothing is pruned here.
  assert.deepEqual(after.sources[0]!.usedColumns, ['device_id', 'site', 'temperature', 'humidity', 'reading_ts']);
});

test('a plan with dangling references (built around checker errors) is returned unchanged', () => {
  const plan = ALL_FIXTURES['ordersRevenue']!();
  plan.operators = plan.operators.filter((o) => o.op !== 'scan');
  assert.equal(optimizePlan(plan), plan);
  const noSource = ALL_FIXTURES['fanOut']!();
  noSource.sources = [];
  assert.equal(optimizePlan(noSource), noSource);
});
