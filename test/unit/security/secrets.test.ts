// Where resolved `${NAME}` values may and may not go (issue 12 item 6): the plan IR keeps them
// (the runtime and `pipec compact` need them), every plan printer shows the template instead,
// diagnostics hide them, and the runtime hides what it substituted from what it prints.
// The test helpers resolve every variable NAME to `val_<name>`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check } from '../check/helpers.ts';
import { printPlanText } from '../../../src/plan/print/text.ts';
import { printPlanJson } from '../../../src/plan/print/json.ts';
import { printPlanDot } from '../../../src/plan/print/dot.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { syntheticSpan } from '../../../src/diagnostics/span.ts';
import { subst } from '../../../targets/runtime/lib/index.ts';
import { hideValues } from '../../../targets/runtime/lib/hidden-values.ts';
import { section } from '../../support/ir-sections.ts';

const SPEC = `CREATE SOURCE clicks (user_id STRING NOT NULL) WITH (connector = 'kafka', topic = 'clicks', brokers = '\${SECRET_BROKERS}', format = 'json');
CREATE SINK k FROM clicks WITH (connector = 'kafka', topic = '\${SINK_TOPIC}', format = 'json');
CREATE SINK f FROM clicks WITH (connector = 'file', path = '\${OUT_DIR}/clicks.ndjson');
CREATE SINK ch FROM clicks WITH (connector = 'clickhouse', url = '\${SECRET_URL}', table = '\${CH_DB}.clicks', order_by = 'user_id');
`;

test('the IR keeps resolved values; text, json and dot plans show only the templates', async () => {
  const { plan, errors } = await check(SPEC);
  assert.deepEqual(errors, []);
  assert.ok(plan);
  // The values are there for the runtime and `pipec compact` ...
  const sink = (n: string) => plan.sinks.find((s) => s.name === n)!;
  assert.equal(section(sink('k'), 'kafka').topic, 'val_sink_topic');
  assert.equal(section(sink('f'), 'file').path, 'val_out_dir/clicks.ndjson');
  assert.equal(section(sink('ch'), 'clickhouse').table, 'val_ch_db.clicks');
  assert.equal(sink('ch').options['url']?.value, 'val_secret_url');
  // ... and no printer shows one.
  const text = printPlanText(plan);
  const json = printPlanJson(plan);
  const dot = printPlanDot(plan);
  for (const [name, out] of [['text', text], ['json', json], ['dot', dot]]) assert.doesNotMatch(out!, /val_/, `${name} shows a resolved value`);
  assert.match(text, /sink k → kafka topic '\$\{SINK_TOPIC\}'/);
  assert.match(text, /sink f → file \$\{OUT_DIR\}\/clicks\.ndjson/);
  assert.match(text, /sink ch → clickhouse \$\{CH_DB\}\.clicks/);
  const printed = JSON.parse(json) as typeof plan;
  assert.deepEqual(printed.sources[0]!.options['brokers'], { value: '${SECRET_BROKERS}', template: '${SECRET_BROKERS}', envVars: ['SECRET_BROKERS'] });
  assert.equal(section(printed.sinks.find((s) => s.name === 'k')!, 'kafka').topic, '${SINK_TOPIC}');
  assert.equal(printPlanJson(plan), json, 'printing does not change the plan');
});

test('a diagnostic quoting a ${VAR}-fed option value shows the template, in message and params', async () => {
  const { diags } = await check(`CREATE SOURCE s (x INT) WITH (connector = 'datagen', rows_per_second = '\${RATE_SECRET}');
CREATE SINK o FROM s WITH (connector = 'clickhouse', url = '\${SECRET_URL}', table = 'a.\${CH_SECRET}.b', order_by = 'x');`);
  const shown = diags.map((d) => `${d.code}: ${d.message} | ${d.help ?? ''} | ${JSON.stringify(d.params)}`);
  assert.ok(shown.some((s) => s.startsWith('invalid-option-value') && s.includes("'${RATE_SECRET}'")), shown.join('\n'));
  assert.ok(shown.some((s) => s.startsWith('invalid-table-name') && s.includes("'a.${CH_SECRET}.b'")), shown.join('\n'));
  for (const s of shown) assert.doesNotMatch(s, /val_/);
});

test('the bag hides values from diagnostics added by a target too; short values are left alone', () => {
  const bag = new DiagnosticBag();
  bag.hideValue('DSN', 'postgres://u:pw@db/x');
  bag.hideValue('N', '1');
  const other = new DiagnosticBag();
  other.report('internal-error', syntheticSpan('f'), { detail: 'cannot reach postgres://u:pw@db/x (attempt 1)' });
  bag.addAll(other.items);
  assert.equal(bag.items[0]!.message, 'internal error: cannot reach ${DSN} (attempt 1)');
  assert.deepEqual(bag.items[0]!.params, { detail: 'cannot reach ${DSN} (attempt 1)' });
});

test('the runtime hides every value it substituted from what it prints', () => {
  const url = subst('${SECRET_URL}', { SECRET_URL: 'http://u:runtime-pw-1@h:1' });
  assert.equal(url, 'http://u:runtime-pw-1@h:1');
  assert.equal(hideValues(`sink failed: cannot POST ${url}/insert`), 'sink failed: cannot POST ${SECRET_URL}/insert');
});
