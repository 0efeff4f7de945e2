// Which alert rules a plan gets and with which thresholds: derived from the spec's checkpoint
// interval and each source's watermark delay and idle timeout, one rule per source or sink that
// can fail that way, and names in annotations kept literal (Prometheus expands them as templates).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { build } from '../../../src/api.ts';
import { alertRules, promDuration } from '../../../targets/runtime/alerts/alert-rules.ts';
import { prometheusRuleYaml, resourceName } from '../../../targets/runtime/alerts/prometheus-rule.ts';

async function planOf(sql: string) {
  const r = await build({ sources: { 'a.pipe.sql': sql }, targets: ['runtime'] });
  assert.ok(r.ok, `compiles: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  return { plan: Object.values(r.plans)[0]!, outputs: r.outputs };
}

const KAFKA = (name: string, delay: string, idle: string | null) => `
CREATE SOURCE ${name} (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '${delay}' SECOND)
WITH (connector = 'kafka', topic = '${name}', brokers = 'localhost:9092', format = 'json'${idle ? `, idle_timeout = '${idle}'` : ''});`;

test('thresholds follow the checkpoint interval, the watermark delay and the idle timeout', async () => {
  const { plan } = await planOf(`
PIPELINE p WITH (checkpoint_interval = '2 min');
${KAFKA('fast', '5', '1 min')}
${KAFKA('slow', '600', null)}
CREATE SINK out FROM fast WITH (connector = 'stdout');
CREATE SINK out2 FROM slow WITH (connector = 'stdout');`);
  const rules = alertRules(plan);
  const lag = rules.filter((r) => r.alert === 'PipecConsumerLagHigh');
  assert.deepEqual(lag.map((r) => r.labels.source), ['fast', 'slow'], 'a lag rule per Kafka source');
  assert.match(lag[0]!.expr, /\) > 1200$/, 'ten checkpoint intervals of 2 min');
  const stalled = rules.filter((r) => r.alert === 'PipecWatermarkStalled');
  assert.match(stalled[0]!.expr, /\[10m\]/, 'fast: 3 × (5 s + 60 s) is under the 10 min floor');
  assert.match(stalled[1]!.expr, /\[30m\]/, 'slow: 3 × 600 s');
  assert.match(stalled[1]!.description, /sets no idle_timeout/);
  const slow = rules.find((r) => r.alert === 'PipecCheckpointSlow')!;
  assert.match(slow.expr, /> 96$/, '80 % of 120 s');
  assert.equal(slow.for, '6m', 'three intervals');
  assert.match(rules.find((r) => r.alert === 'PipecCheckpointsStopped')!.expr, /\[20m\]/, 'ten intervals');
  assert.equal(rules.some((r) => r.alert === 'PipecLateEvents'), false, 'no window or join: no late-event rule');
});

test('datagen sources get no lag or dead-letter rule; a window gets the late-event rule', async () => {
  const { plan, outputs } = await planOf(`
PIPELINE q;
CREATE SOURCE g (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'datagen', total_rows = 10, fields.id.kind = 'sequence', fields.ts.kind = 'sequence', idle_timeout = '5 s');
CREATE VIEW w AS SELECT window_start, window_end, COUNT(*) AS n FROM TUMBLE(g, ts, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK out FROM w WITH (connector = 'stdout');`);
  const names = alertRules(plan).map((r) => r.alert);
  assert.deepEqual(names, ['PipecWatermarkStalled', 'PipecLateEvents', 'PipecCheckpointSlow', 'PipecCheckpointsStopped']);
  assert.ok(outputs['q/alerts.yaml'], `alerts.yaml is a build output (${Object.keys(outputs).join(', ')})`);
});

test('names reach PromQL as string literals and annotations as literal text', async () => {
  const { plan } = await planOf(`
PIPELINE "Odd {{ .Name }}";
${KAFKA('"src ""x"" {{"', '1', '5 s')}
CREATE SINK out FROM "src ""x"" {{" WITH (connector = 'stdout');`);
  const text = prometheusRuleYaml(plan);
  const doc = parse(text) as { metadata: { name: string }; spec: { groups: { rules: { expr: string; annotations: { summary: string } }[] }[] } };
  assert.equal(doc.metadata.name, 'pipec-odd-name', 'a DNS-1123 resource name');
  const lag = doc.spec.groups[0]!.rules[0]!;
  assert.ok(lag.expr.includes('source="src \\"x\\" {{"'), `the source name as an escaped PromQL string: ${lag.expr}`);
  assert.ok(lag.annotations.summary.includes('pipeline Odd {{ "{{" }} .Name }}'), `no template action from a name: ${lag.annotations.summary}`);
  assert.equal(resourceName('---'), 'pipec-pipeline');
});

test('durations print in the largest whole unit', () => {
  assert.deepEqual([promDuration(90), promDuration(600), promDuration(7200), promDuration(0.5)], ['90s', '10m', '2h', '1s']);
});
