// The Spark CALL generated for REWRITE DELETE FILES picks the files `pipec compact` picks:
// only those whose delete ratio is strictly above the threshold (Spark compares with >=, so
// the threshold passed is the next double up), not every small file (min-file-size 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maintenanceSparkSql, nextDoubleUp } from '../../../targets/iceberg/maintenance-plan.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';
import { icebergSinks } from '../../../targets/iceberg/sink-input.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';

test('nextDoubleUp: ratio >= nextDoubleUp(x) exactly when ratio > x', () => {
  assert.equal(nextDoubleUp(0.3), 0.30000000000000004);
  assert.equal(nextDoubleUp(0.25), 0.25000000000000006);
  assert.equal(nextDoubleUp(0), Number.MIN_VALUE);
  // 3 of 10 rows deleted: not above 0.3 in pipec compact, and not >= the threshold passed to Spark.
  assert.ok(!(3 / 10 > 0.3) && !(3 / 10 >= nextDoubleUp(0.3)));
  assert.ok(4 / 10 > 0.3 && 4 / 10 >= nextDoubleUp(0.3));
});

test('REWRITE DELETE FILES → rewrite_data_files with the size floor off and the strict threshold', () => {
  const plan = icebergPlan();
  const sql = maintenanceSparkSql({ name: 'm', sink: 'lake', actions: [{ kind: 'rewrite_delete_files', deleteRatioAbove: 0.3 }], scheduleMs: null }, icebergSinks(plan, lowerPlan(plan))[0]!, 'spec.pipe.sql');
  const call = sql.split('\n').find((l) => l.startsWith('CALL'))!;
  assert.equal(
    call,
    "CALL `lake`.system.rewrite_data_files(table => '`analytics`.`revenue`', strategy => 'binpack', options => map('target-file-size-bytes', '134217728', 'min-file-size-bytes', '0', 'delete-ratio-threshold', '0.30000000000000004'));",
  );
});
