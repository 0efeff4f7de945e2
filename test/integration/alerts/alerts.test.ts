// The alert rules `pipec build` writes (generated/<pipeline>/alerts.yaml), checked by Prometheus's
// own tool: `promtool check rules` accepts every spec's rules, and `promtool test rules`
// evaluates each rule of a pipeline against the series its real `/metrics` endpoint exported
// during a run (same names, same labels), once with values that must fire it and once with
// values that must not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { PIPEC, pipec } from '../../cli/run-cli.ts';

interface Series {
  name: string;
  labels: Record<string, string>;
}

interface RuleDoc {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

function promtool(args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is not installed (Debian package prometheus; .ci/run installs it): ${r.error.message}`);
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** The `spec` of a PrometheusRule (a plain rule file), written where promtool can read it. */
function ruleFile(alertsYaml: string, dir: string): { file: string; rules: RuleDoc[] } {
  const doc = parse(alertsYaml) as { kind: string; spec: { groups: { rules: RuleDoc[] }[] } };
  assert.equal(doc.kind, 'PrometheusRule');
  const file = path.join(dir, 'rules.yaml');
  writeFileSync(file, stringify(doc.spec));
  return { file, rules: doc.spec.groups.flatMap((g) => g.rules) };
}

test('promtool accepts the alert rules of every shipped spec', () => {
  const out = tempDir('pipec-alerts-build-');
  const b = pipec(['build', 'specs', '--out', out, '--target', 'runtime']);
  assert.equal(b.status, 0, b.stderr);
  const pipelines = readdirSync(out).filter((p) => !p.startsWith('.'));
  assert.ok(pipelines.length >= 5, `a folder per spec (${pipelines.join(', ')})`);
  for (const p of pipelines) {
    const dir = path.join(out, p);
    const { rules } = ruleFile(readFileSync(path.join(dir, 'alerts.yaml'), 'utf8'), dir);
    assert.ok(rules.some((r) => r.alert === 'PipecCheckpointsStopped'), `${p}: every pipeline has the checkpoint rules`);
    const r = promtool(['check', 'rules', 'rules.yaml'], dir);
    assert.equal(r.status, 0, `${p}: promtool check rules:\n${r.out}`);
    assert.match(r.out, new RegExp(`SUCCESS: ${rules.length} rules found`), `${p}: ${r.out}`);
  }
});

// ---------------------------------------------------------------- a real run's /metrics

const SPEC = `
PIPELINE alerting WITH (checkpoint_interval = '1 s');
CREATE SOURCE ticks (
  id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  connector = 'datagen', total_rows = 700, rows_per_second = 100, fields.id.kind = 'sequence',
  fields.ts.kind = 'sequence', fields.ts.min = '2026-01-01 00:00:00', fields.ts.step = '10 ms', idle_timeout = '5 s'
);
CREATE SOURCE events (
  id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'events.ndjson', format = 'ndjson', idle_timeout = '5 s');
CREATE VIEW per_sec AS
SELECT window_start, window_end, COUNT(*) AS n FROM TUMBLE(events, ts, INTERVAL '1' SECOND)
GROUP BY window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'wh');
-- pipec:allow iceberg-small-files
CREATE SINK per_sec_lake FROM per_sec WITH (connector = 'iceberg', catalog = 'lake', table = 'a.per_sec', commit_interval = '1 s');
CREATE SINK ticks_out FROM ticks WITH (connector = 'file', path = 'ticks.ndjson', format = 'ndjson');
`;

/** 20 events over 10 s, one 8 s late (dropped and counted), one line that is no JSON (a dead letter). */
function eventsFile(): string {
  const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: i, ts: `2026-01-01 00:00:${String(Math.floor(i / 2)).padStart(2, '0')}.000` }));
  return [...lines, JSON.stringify({ id: 99, ts: '2026-01-01 00:00:01.000' }), '{not json', ''].join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function parseScrape(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} \S+$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    out.push({ name: m[1]!, labels });
  }
  return out;
}

/** Runs the spec with a metrics port and returns the series of a scrape taken while the last checkpoints and commits happen. */
async function scrapeRealRun(dir: string): Promise<Series[]> {
  const port = await freePort();
  const child = spawn(process.execPath, [PIPEC, 'run', 'alerting.pipe.sql', '--checkpoint-dir', 'ck', '--metrics-port', String(port)], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let last = '';
  const deadline = Date.now() + 60_000;
  // Scrape every 300 ms until the Iceberg sink reports a commit, the last family to appear.
  while (Date.now() < deadline && !last.includes('pipec_iceberg_data_files_committed_total{')) {
    await new Promise((r) => setTimeout(r, 300));
    last = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()).catch(() => last);
  }
  const code = await ended;
  assert.equal(code, 0, `pipec run failed:\n${stderr}`);
  assert.ok(last.includes('pipec_iceberg_data_files_committed_total{'), `the scrape has the Iceberg counters:\n${last}`);
  return parseScrape(last);
}

/** Values a rule's series take (promtool expanding notation, one sample a minute for 4 h) to make it fire or stay quiet. */
const SCENARIOS: Record<string, (metric: string) => { fire: string; quiet: string }> = {
  PipecConsumerLagHigh: () => ({ fire: '1000000000+0x240', quiet: '0+0x240' }),
  PipecWatermarkStalled: (m) => (m === 'pipec_watermark_ms' ? { fire: '1000+0x240', quiet: '1000+60000x240' } : { fire: '0+10x240', quiet: '0+10x240' }),
  PipecDeadLetters: () => ({ fire: '0+1x240', quiet: '5+0x240' }),
  PipecLateEvents: () => ({ fire: '0+1x240', quiet: '1+0x240' }),
  PipecCheckpointSlow: () => ({ fire: '1000000+0x240', quiet: '0+0x240' }),
  PipecCheckpointsStopped: () => ({ fire: '3+0x240', quiet: '3+1x240' }),
  PipecReplicationSlotLag: () => ({ fire: '10000000000000+0x240', quiet: '0+0x240' }),
  PipecIcebergSmallFiles: (m) => (m.includes('_small_') ? { fire: '0+1x240', quiet: '0+0x240' } : { fire: '0+1x240', quiet: '0+1x240' }),
};

/** The metric selectors of an expression: `name{a="x", b="y"}`. */
function selectors(expr: string): { metric: string; labels: Record<string, string> }[] {
  return [...expr.matchAll(/(pipec_[a-z_]+)\{([^}]*)\}/g)].map((m) => ({
    metric: m[1]!,
    labels: Object.fromEntries([...m[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!])),
  }));
}

const seriesText = (s: Series): string => `${s.name}{${Object.entries(s.labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`;

/** The annotation as Prometheus expands it for an alert with these labels. */
const expand = (text: string, labels: Record<string, string>): string =>
  text.replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, k: string) => labels[k] ?? '').replaceAll('{{ "{{" }}', '{{');

test('each alert rule fires on the series a real run exports, and stays quiet on healthy values (promtool test rules)', async () => {
  const dir = tempDir('pipec-alerts-run-');
  writeFileSync(path.join(dir, 'alerting.pipe.sql'), SPEC);
  writeFileSync(path.join(dir, 'events.ndjson'), eventsFile());
  const out = path.join(dir, 'generated');
  const b = pipec(['build', 'alerting.pipe.sql', '--out', out, '--target', 'runtime'], { cwd: dir });
  assert.equal(b.status, 0, b.stderr);
  const ruleDir = path.join(dir, 'promtool');
  mkdirSync(ruleDir);
  const { rules } = ruleFile(readFileSync(path.join(out, 'alerting', 'alerts.yaml'), 'utf8'), ruleDir);
  assert.deepEqual(
    rules.map((r) => `${r.alert}/${r.labels.source ?? r.labels.sink ?? ''}`).sort(),
    ['PipecCheckpointSlow/', 'PipecCheckpointsStopped/', 'PipecDeadLetters/events', 'PipecIcebergSmallFiles/per_sec_lake', 'PipecLateEvents/', 'PipecWatermarkStalled/events', 'PipecWatermarkStalled/ticks'],
    'the rules this plan calls for (no lag rule without Kafka or CDC, no dead letters from datagen)',
  );
  const scraped = await scrapeRealRun(dir);

  const tests: unknown[] = [];
  for (const rule of rules) {
    const scenario = SCENARIOS[rule.alert];
    assert.ok(scenario, `a scenario for ${rule.alert}`);
    // The real series each selector of the rule picks: there must be some, or the rule watches nothing.
    const picked = new Map<string, Series>();
    for (const sel of selectors(rule.expr)) {
      const hits = scraped.filter((s) => s.name === sel.metric && Object.entries(sel.labels).every(([k, v]) => s.labels[k] === v));
      assert.ok(hits.length > 0, `${rule.alert}: ${sel.metric}${JSON.stringify(sel.labels)} matches a series of the real /metrics`);
      for (const h of hits) picked.set(seriesText(h), h);
    }
    const inputs = (which: 'fire' | 'quiet') => [...picked.values()].map((s) => ({ series: seriesText(s), values: scenario(s.name)[which] }));
    // The alert carries the labels of the series it was computed from (the first selector's), its severity and static labels.
    const first = selectors(rule.expr)[0]!;
    const alerts = [...picked.values()]
      .filter((s) => s.name === first.metric)
      .map((s) => {
        const labels = { ...s.labels, ...rule.labels };
        return { exp_labels: labels, exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, expand(v, labels)])) };
      });
    tests.push(
      { name: `${rule.alert} fires`, interval: '1m', input_series: inputs('fire'), alert_rule_test: [{ eval_time: '3h', alertname: rule.alert, exp_alerts: alerts }] },
      { name: `${rule.alert} quiet`, interval: '1m', input_series: inputs('quiet'), alert_rule_test: [{ eval_time: '3h', alertname: rule.alert, exp_alerts: [] }] },
    );
  }
  writeFileSync(path.join(ruleDir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }));
  const r = promtool(['test', 'rules', 'tests.yaml'], ruleDir);
  assert.equal(r.status, 0, `promtool test rules:\n${r.out}\n(tests in ${ruleDir}/tests.yaml)`);
  assert.match(r.out, /SUCCESS/);
});
