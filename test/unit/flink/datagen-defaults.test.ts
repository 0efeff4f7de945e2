// A datagen column without settings gets the runtime generator's defaults in the Flink script
// too (targets/runtime/lib/io/datagen-source.ts): a TIMESTAMP column is a sequence from
// 2024-01-01 00:00:00, one row's interval at rows_per_second apart (else 1 ms); other columns are
// random. The settings come from the resolved config's `fields`, as the runtime reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../../../src/api.ts';

async function scriptOf(spec: string): Promise<string> {
  const r = await build({ sources: { 'p.pipe.sql': spec }, targets: ['flink'] });
  const file = Object.entries(r.outputs).find(([p]) => p.endsWith('flink/pipeline.sql'));
  assert.ok(file, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
  return String(file[1]);
}

const START = Date.UTC(2024, 0, 1); // 1704067200000

test('an unset TIMESTAMP column is the runtime sequence: from 2024-01-01, 1000 / rows_per_second ms apart', async () => {
  const sql = await scriptOf(`CREATE SOURCE g (ts TIMESTAMP(3), n INT) WITH (connector = 'datagen', rows_per_second = '10', total_rows = '5');
CREATE SINK out FROM g WITH (connector = 'stdout');`);
  assert.match(sql, new RegExp(`\`ts\` AS CAST\\(TO_TIMESTAMP_LTZ\\(${START} \\+ \`__row\` \\* 100, 3\\)`));
  assert.match(sql, /'fields\.n\.kind' = 'random'/);
  assert.doesNotMatch(sql, /'fields\.ts\.kind'/);
});

test('without a rate the sequence steps 1 ms; given min and step win', async () => {
  const unset = await scriptOf(`CREATE SOURCE g (ts TIMESTAMP(3)) WITH (connector = 'datagen', total_rows = '5');
CREATE SINK out FROM g WITH (connector = 'stdout');`);
  assert.match(unset, new RegExp(`TO_TIMESTAMP_LTZ\\(${START} \\+ \`__row\` \\* 1, 3\\)`));
  const set = await scriptOf(`CREATE SOURCE g (ts TIMESTAMP(3)) WITH (connector = 'datagen', total_rows = '5', fields.ts.min = '2026-01-01 00:00:00', fields.ts.step = '2 s');
CREATE SINK out FROM g WITH (connector = 'stdout');`);
  assert.match(set, new RegExp(`TO_TIMESTAMP_LTZ\\(${Date.UTC(2026, 0, 1)} \\+ \`__row\` \\* 2000, 3\\)`));
});
