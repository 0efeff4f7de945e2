// Which targets `--target` selects: `all` is every target but the opt-in ones (flink), which run
// only when named, so their warnings never fail `check --deny-warnings` of pipelines that do not use them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveTargets } from '../../../src/build/targets.ts';

const names = (r: ReturnType<typeof resolveTargets>): string[] => (typeof r === 'string' ? [r] : r.map((t) => t.name));

test('all leaves out flink; flink and all,flink name it', () => {
  assert.deepEqual(names(resolveTargets('all')), ['clickhouse', 'iceberg', 'runtime']);
  assert.deepEqual(names(resolveTargets('flink')), ['flink']);
  assert.deepEqual(names(resolveTargets('all,flink')), ['clickhouse', 'iceberg', 'runtime', 'flink']);
  assert.deepEqual(names(resolveTargets('runtime,runtime')), ['runtime'], 'a target named twice runs once');
  assert.match(names(resolveTargets('spark'))[0]!, /^unknown target 'spark' \(targets: clickhouse, flink, iceberg, runtime, all = clickhouse, iceberg, runtime\)$/);
});
