// The lag rules of alerts.yaml against a real Kafka broker and a real PostgreSQL: `pipec run` of
// a Kafka + CDC pipeline exports the series PipecConsumerLagHigh and PipecReplicationSlotLag
// select (same names, same labels), and the lag it really reports drives the rule: a backlog of
// records stamped two hours ago makes PipecConsumerLagHigh fire on the scraped value itself,
// and the caught-up scrape keeps it quiet. The slot-lag gauge is checked against PostgreSQL's
// own figure for the slot.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { PIPEC, pipec } from '../../cli/run-cli.ts';
import { ensureServices } from '../../support/services.ts';
import { createTopic, kafkaEnv } from '../kafka/helpers.ts';
import { cleanup, pgClient, unique } from '../postgres-cdc/harness.ts';
import { ndjson, until } from '../runtime-cdc/harness.ts';
import { SCENARIOS, freePort, parseScrape, pickedSeries, ruleCase, ruleFile, runRuleTests, scrape, type Series } from './promtool-harness.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const BACKLOG = 6000;
const AGE_MS = 2 * 3600_000;

const spec = (topic: string, table: string, slot: string, pub: string): string => `
PIPELINE lagging WITH (checkpoint_interval = '1 s');
CREATE SOURCE clicks (
  id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  connector = 'kafka', brokers = '\${PIPEC_KAFKA_BROKERS}', topic = '${topic}', startup = 'earliest', format = 'json',
  idle_timeout = '5 s',
  -- a slow consumer: a fetch brings about a dozen records, so the backlog lasts for seconds
  fetch.max_bytes = '1024'
);
CREATE SOURCE orders (
  id INT NOT NULL, amount DECIMAL(10, 2),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.${table}', slot = '${slot}', publication = '${pub}', heartbeat = '1 s');
CREATE SINK clicks_out FROM clicks WITH (connector = 'file', path = 'clicks.ndjson', format = 'ndjson');
CREATE SINK orders_out FROM orders WITH (connector = 'file', path = 'orders.ndjson', format = 'ndjson');
`;

const sample = (scraped: Series[], name: string, source: string): Series | undefined => scraped.find((s) => s.name === name && s.labels.source === source);

test('the lag rules read the series a real Kafka + CDC run exports, and the real Kafka backlog fires PipecConsumerLagHigh', async (t) => {
  const env = await ensureServices(['kafka', 'postgres']);
  const { kafka } = await kafkaEnv();
  const url = env.PIPEC_PG_URL!;
  const topic = await createTopic(1, 'alerts-lag');
  const [table, slot, pub] = [unique('alerts_cdc'), unique('slot'), unique('pub')];
  const c = await pgClient(url);
  t.after(async () => {
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, amount numeric(10,2))`);
  await c.query(`INSERT INTO ${table} SELECT g, g * 1.5 FROM generate_series(1, 50) g`);

  // The backlog: every record's Kafka timestamp two hours before now, so the true lag is known here.
  const stampedAt = Date.now() - AGE_MS;
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < BACKLOG; i += 1000) {
    const messages = Array.from({ length: 1000 }, (_, j) => ({ value: JSON.stringify({ id: i + j, ts: '2026-01-01 00:00:00.000' }), timestamp: String(stampedAt) }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();

  const dir = tempDir('pipec-alerts-lag-');
  writeFileSync(path.join(dir, 'lagging.pipe.sql'), spec(topic, table, slot, pub));
  const b = pipec(['build', 'lagging.pipe.sql', '--out', 'generated', '--target', 'runtime'], { cwd: dir, env });
  assert.equal(b.status, 0, b.stderr);
  const ruleDir = path.join(dir, 'promtool');
  mkdirSync(ruleDir);
  const { rules } = ruleFile(readFileSync(path.join(dir, 'generated', 'lagging', 'alerts.yaml'), 'utf8'), ruleDir);
  assert.deepEqual(
    rules.map((r) => `${r.alert}/${r.labels.source ?? ''}`).sort(),
    [
      'PipecCheckpointSlow/',
      'PipecCheckpointsStopped/',
      'PipecConsumerLagHigh/clicks',
      'PipecConsumerLagHigh/orders',
      'PipecDeadLetters/clicks',
      'PipecDeadLetters/orders',
      'PipecReplicationSlotLag/orders',
      'PipecWatermarkStalled/clicks',
    ],
    'a lag rule per Kafka and CDC source, a slot rule per CDC source',
  );

  const port = await freePort();
  const child = spawn(process.execPath, [PIPEC, 'run', 'lagging.pipe.sql', '--checkpoint-dir', 'ck', '--metrics-port', String(port)], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => void child.kill('SIGKILL'));

  // While the backlog drains: the scrape with the highest Kafka lag.
  let behind: Series[] = [];
  let caughtUp: Series[] = [];
  const clicks = (): unknown[] => ndjson(path.join(dir, 'clicks.ndjson'));
  await until(
    async () => {
      const text = await scrape(port);
      if (text === null) return false;
      const now = parseScrape(text);
      const lag = sample(now, 'pipec_consumer_lag_seconds', 'clicks')?.value ?? 0;
      if (lag > (sample(behind, 'pipec_consumer_lag_seconds', 'clicks')?.value ?? 0)) behind = now;
      // Caught up: every record out, no lag left, and the slot gauge (refreshed every 5 s) present.
      if (clicks().length === BACKLOG && lag === 0 && sample(now, 'pipec_replication_slot_lag_bytes', 'orders') && ndjson(path.join(dir, 'orders.ndjson')).length === 50) {
        caughtUp = now;
        return true;
      }
      return false;
    },
    () => ({ clicks: clicks().length, stderr }),
    90_000,
  );
  const pgLag = Number((await c.query('SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::float8 AS lag FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0].lag);
  child.kill('SIGTERM');
  assert.equal(await ended, 143, `pipec run ends on SIGTERM with 143:\n${stderr}`);

  // The lag the run reported is the records' real age (two hours, plus the seconds since they were stamped).
  const reported = sample(behind, 'pipec_consumer_lag_seconds', 'clicks')?.value ?? 0;
  const age = (Date.now() - stampedAt) / 1000;
  assert.ok(reported >= AGE_MS / 1000 - 1 && reported <= age + 1, `reported Kafka lag ${reported} s is the backlog's age (${AGE_MS / 1000}–${age.toFixed(0)} s)`);
  assert.ok((sample(behind, 'pipec_consumer_lag_records', 'clicks')?.value ?? 0) > 0, 'records behind while the lag is high');
  // The slot gauge is PostgreSQL's WAL distance of the slot, at most one 5 s refresh old.
  const slotGauge = sample(caughtUp, 'pipec_replication_slot_lag_bytes', 'orders')!.value;
  assert.ok(slotGauge >= 0 && Math.abs(slotGauge - pgLag) < 16 * 1024 ** 2, `slot gauge ${slotGauge} B ≈ PostgreSQL's ${pgLag} B`);

  const constant = (s: Series): string => `${s.value}+0x240`;
  const tests: unknown[] = [];
  for (const rule of rules) {
    const scenario = SCENARIOS[rule.alert];
    assert.ok(scenario, `a scenario for ${rule.alert}`);
    const picked = pickedSeries(rule, caughtUp);
    tests.push(
      ruleCase(`${rule.alert} fires`, rule, picked, (s) => scenario(s.name).fire, true),
      ruleCase(`${rule.alert} quiet`, rule, picked, (s) => scenario(s.name).quiet, false),
    );
  }
  // The real values: the backlog's scrape fires the Kafka lag rule, the caught-up one does not,
  // and neither the CDC source's lag nor its slot (a few KiB of WAL) fires.
  const byAlert = (alert: string, source: string) => rules.find((r) => r.alert === alert && r.labels.source === source)!;
  const lagClicks = byAlert('PipecConsumerLagHigh', 'clicks');
  tests.push(
    ruleCase('real Kafka backlog fires', lagClicks, pickedSeries(lagClicks, behind), constant, true),
    ruleCase('real caught-up Kafka stays quiet', lagClicks, pickedSeries(lagClicks, caughtUp), constant, false),
  );
  for (const alert of ['PipecConsumerLagHigh', 'PipecReplicationSlotLag']) {
    const rule = byAlert(alert, 'orders');
    tests.push(ruleCase(`real CDC ${alert} stays quiet`, rule, pickedSeries(rule, caughtUp), constant, false));
  }
  runRuleTests(ruleDir, tests);
});
