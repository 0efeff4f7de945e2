// The checkpoint fingerprint names the plan, not the machine: options count as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { fingerprint } from '../../../targets/runtime/codegen/module.ts';

function plan(url: { value: string; template: string }, table = 'db.t') {
  const b = new PlanBuilder('fp');
  b.source({ name: 's', connector: 'datagen', columns: [column('id', T.int(false))], options: { total_rows: '10' } });
  const sink = b.sink({ name: 'ch', connector: 'clickhouse', input: b.scan('s'), options: { table }, clickhouse: { table, orderBy: [], partitionBy: null, ttl: null } });
  sink.options.url = { value: url.value, template: url.template, envVars: url.template.startsWith('${') ? ['PIPEC_CLICKHOUSE_URL'] : [] };
  return b.build();
}

test('the fingerprint ignores option values behind ${VAR} (a moved server keeps its checkpoints) but not the plan', () => {
  const a = fingerprint(plan({ value: 'http://127.0.0.1:8123', template: '${PIPEC_CLICKHOUSE_URL}' }));
  const b = fingerprint(plan({ value: 'http://10.0.0.7:18123', template: '${PIPEC_CLICKHOUSE_URL}' }));
  assert.equal(a, b);
  const literal = fingerprint(plan({ value: 'http://10.0.0.7:18123', template: 'http://10.0.0.7:18123' }));
  assert.notEqual(a, literal, 'a different option as written is a different plan');
  assert.notEqual(a, fingerprint(plan({ value: 'http://127.0.0.1:8123', template: '${PIPEC_CLICKHOUSE_URL}' }, 'db.other')));
});
