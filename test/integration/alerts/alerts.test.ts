// The alert rules `pipec build` writes (generated/<pipeline>/alerts.yaml), checked by Prometheus's
// own tool: `promtool check rules` accepts every spec's rules, and `promtool test rules`
// evaluates each rule of a pipeline against the series its real `/metrics` endpoint exported
// during a run (same names, same labels), once with values that must fire it and once with
// values that must not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { PIPEC, pipec } from '../../cli/run-cli.ts';
import { SCENARIOS, freePort, parseScrape, pickedSeries, promtool, ruleCase, ruleFile, runRuleTests, scrape, type Series } from './promtool-harness.ts';

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
    last = (await scrape(port)) ?? last;
  }
  const code = await ended;
  assert.equal(code, 0, `pipec run failed:\n${stderr}`);
  assert.ok(last.includes('pipec_iceberg_data_files_committed_total{'), `the scrape has the Iceberg counters:\n${last}`);
  return parseScrape(last);
}

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
    const picked = pickedSeries(rule, scraped);
    tests.push(
      ruleCase(`${rule.alert} fires`, rule, picked, (s) => scenario(s.name).fire, true),
      ruleCase(`${rule.alert} quiet`, rule, picked, (s) => scenario(s.name).quiet, false),
    );
  }
  runRuleTests(ruleDir, tests);
});
