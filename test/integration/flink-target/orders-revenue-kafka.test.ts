// specs/orders_revenue.pipe.sql end to end on real Flink against the real Kafka broker, compared
// with `pipec run` of the same spec on the same input. The spec is copied with fresh names (topics,
// consumer group, ClickHouse/Iceberg table) so runs never share state; nothing else changes.
// Input: orders on ONE partition (so which events are late does not depend on how an engine
// interleaves partitions), out of order within the 5 s watermark delay, three orders far behind
// the watermark (the runtime sends them to orders_late, Flink drops them: flink-late-side-output),
// and a zero-amount order an hour later that closes every window (the view filters it out).
// pipec run writes all four sinks (ClickHouse, Iceberg, two Kafka topics); on Flink 2.3 the
// ClickHouse (flink-connector-unavailable) and Iceberg (needs Hadoop, docs/flink.md) statements
// are left out and the alerts topic is Flink's own. The alerts of both are compared with each
// other and with the windows computed here from the orders, in integer cents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createTopic, kafkaEnv, readTopic, unique } from '../kafka/helpers.ts';
import { ensureServices } from '../../support/services.ts';
import { flinkJars, runFlink } from '../../support/flink.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { chCommand } from '../clickhouse-sink/harness.ts';
import { PIPEC, pipec, repoRoot } from '../../cli/run-cli.ts';
import { prng } from '../../support/prng.ts';
import { splitScript } from './script.ts';

const BASE = Date.UTC(2024, 0, 1, 10, 0, 0);
const MIN = 60_000;
const isoMs = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const money = (c: number): string => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

interface Order {
  id: string;
  customer: number;
  cents: number;
  ts: number;
}

/** 400 orders of 8 customers over ~7 minutes, up to 4 s out of order; customers 1-2 spend big. */
function makeOrders(): { onTime: Order[]; late: Order[]; closer: Order } {
  const r = prng(16);
  const onTime: Order[] = [];
  for (let i = 0; i < 400; i++) {
    const customer = 1 + Math.floor(r() * 8);
    const cents = i % 29 === 0 ? -700 : (customer <= 2 ? 300_000 : 0) + Math.floor(r() * 20_000);
    onTime.push({ id: `o-${i}`, customer, cents, ts: BASE + i * 1000 - Math.floor(r() * 4000) });
  }
  // 60 s behind the last order: past the watermark and the 30 s allowed lateness.
  const last = Math.max(...onTime.map((o) => o.ts));
  const late = [1, 2, 3].map((c) => ({ id: `late-${c}`, customer: c, cents: 900_000, ts: last - 60_000 - c }));
  return { onTime, late, closer: { id: 'closer', customer: 99, cents: 0, ts: last + 60 * MIN } };
}

/** Alerts as the spec defines them (1-minute revenue > 10,000.00), key and revenue, sorted. */
function expectedAlerts(orders: Order[]): string[] {
  const m = new Map<string, number>();
  for (const o of orders) {
    if (o.cents <= 0) continue;
    const k = `${o.customer}|${Math.floor(o.ts / MIN) * MIN}`;
    m.set(k, (m.get(k) ?? 0) + o.cents);
  }
  return [...m].filter(([, c]) => c > 1_000_000).map(([k, c]) => `${k.split('|')[0]} ${k.split('|')[1]} ${money(c)}`).sort();
}

/** A topic's alert messages as `key window_start(ms) revenue`, sorted. */
const alertLines = (msgs: { key: string | null; value: string | null }[]): string[] =>
  msgs
    .map((m) => {
      const v = JSON.parse(m.value!) as { window_start: string; revenue: string | number };
      return `${m.key} ${Date.parse(v.window_start.replace(' ', 'T') + 'Z')} ${money(Math.round(Number(v.revenue) * 100))}`;
    })
    .sort();

test('specs/orders_revenue.pipe.sql on Flink against the real Kafka broker gives pipec run\'s alerts', { timeout: 1_200_000 }, async () => {
  const env = await ensureServices(['kafka', 'clickhouse']);
  const brokers = env.PIPEC_KAFKA_BROKERS!;
  const chUrl = env.PIPEC_CLICKHOUSE_URL!;
  const { kafka } = await kafkaEnv();
  const id = unique('fo').replace(/-/g, '_');
  const topics = { orders: await createTopic(1, 'fo-orders'), late: await createTopic(1, 'fo-late'), alerts: await createTopic(1, 'fo-alerts'), flinkAlerts: await createTopic(1, 'fo-flink-alerts') };
  const dir = tempDir('pipec-flink-orders-');
  const table = `analytics.revenue_${id}`;
  const spec = readFileSync(path.join(repoRoot, 'specs', 'orders_revenue.pipe.sql'), 'utf8')
    .replace("topic        = 'orders'", `topic        = '${topics.orders}'`)
    .replace("topic       = 'orders-late'", `topic       = '${topics.late}'`)
    .replace("topic       = 'revenue-alerts'", `topic       = '${topics.alerts}'`)
    .replace("group_id     = 'pipec-orders-revenue'", `group_id     = 'pipec-${id}'`)
    .replaceAll("table     = 'analytics.revenue_1m'", `table     = '${table}'`)
    .replaceAll("table            = 'analytics.revenue_1m'", `table            = '${table}'`);
  assert.equal((spec.match(new RegExp(id, 'g')) ?? []).length, 3, 'group and both tables renamed');
  for (const t of Object.values(topics).slice(0, 3)) assert.ok(spec.includes(`'${t}'`), `topic ${t} in the spec`);
  writeFileSync(path.join(dir, 'orders_revenue.pipe.sql'), spec);

  const { onTime, late, closer } = makeOrders();
  const producer = kafka.producer();
  await producer.connect();
  const value = (o: Order) => JSON.stringify({ order_id: o.id, customer_id: o.customer, amount: money(o.cents), order_ts: isoMs(o.ts) });
  await producer.send({ topic: topics.orders, acks: -1, messages: [...onTime, ...late, closer].map((o) => ({ partition: 0, key: String(o.customer), value: value(o) })) });
  await producer.disconnect();
  const want = expectedAlerts(onTime);
  assert.ok(want.length >= 3, 'the input has alert windows');

  // pipec run: every sink of the spec, stopped once the alerts are all there.
  await chCommand(chUrl, 'CREATE DATABASE IF NOT EXISTS analytics');
  await chCommand(chUrl, `CREATE TABLE IF NOT EXISTS ${table} (customer_id Int64, window_start DateTime, window_end DateTime, revenue Decimal(38, 2), orders Int64) ENGINE = MergeTree ORDER BY (customer_id, window_start)`);
  const runEnv = { ...process.env, NO_COLOR: '1', PIPEC_KAFKA_BROKERS: brokers, PIPEC_CLICKHOUSE_URL: chUrl, PIPEC_CATALOG_URI: `sqlite://${dir}/catalog.db`, PIPEC_WAREHOUSE: `file://${dir}/warehouse` };
  const log: string[] = [];
  const child = spawn(process.execPath, [PIPEC, 'run', 'orders_revenue.pipe.sql', '--checkpoint-dir', path.join(dir, 'ck')], { cwd: dir, env: runEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (d) => void log.push(String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let pipecAlerts: string[];
  let pipecLate: string[];
  try {
    pipecAlerts = alertLines(await readTopic(topics.alerts, 'read_committed', { expect: want.length, timeoutMs: 180_000 }));
    pipecLate = (await readTopic(topics.late, 'read_uncommitted', { expect: late.length, timeoutMs: 60_000 })).map((m) => JSON.parse(m.value!).order_id as string).sort();
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 143, `pipec run stopped cleanly:\n${log.join('').slice(-3000)}`);
  assert.deepEqual(pipecAlerts, want, 'pipec run: the alerts computed from the orders');
  assert.deepEqual(pipecLate, ['late-1', 'late-2', 'late-3'], 'pipec run: the late orders on the late topic');

  // Flink: the generated script of the same spec, with the Kafka connector jar.
  const build = pipec(['build', 'orders_revenue.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir, env: runEnv });
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stderr, /flink-late-side-output/, 'the late sink difference is reported');
  const script = readFileSync(path.join(dir, 'generated', 'orders_revenue', 'flink', 'pipeline.sql'), 'utf8');
  const { config, ddl, inserts } = splitScript(script);
  const subst = (s: string): string => s.replaceAll('${PIPEC_KAFKA_BROKERS}', brokers);
  // Left out: the Iceberg catalog and its statements, and the ClickHouse table (see the header).
  const keep = (s: string): boolean => !/^CREATE (CATALOG|DATABASE)/.test(s) && !s.includes('`revenue_ch__sink`') && !s.includes('`lake`.');
  const flinkDdl = ddl.filter(keep).map((s) =>
    subst(s)
      // The job must end: read the topic up to its end offsets at the start (then the watermark is MAX).
      .replace(`'topic' = '${topics.orders}',`, `'topic' = '${topics.orders}',\n  'scan.bounded.mode' = 'latest-offset',`)
      .replace(`'topic' = '${topics.alerts}'`, `'topic' = '${topics.flinkAlerts}'`),
  );
  assert.ok(flinkDdl.some((s) => s.includes('scan.bounded.mode')) && flinkDdl.some((s) => s.includes(topics.flinkAlerts)), 'the source and alert sink were found');
  const flinkInserts = inserts.filter(keep);
  assert.equal(flinkInserts.length, 1, 'the alerts INSERT (orders_late gets none on Flink)');
  // A 1 s checkpoint: the bounded job's exactly-once sink commits at its final checkpoint.
  await runFlink({ ddl: flinkDdl, inserts: flinkInserts, sinks: {}, config: { ...config, 'execution.checkpointing.interval': '1 s' }, jars: flinkJars(['flink-sql-connector-kafka']) }, { timeoutMs: 900_000 });
  const flinkAlerts = alertLines(await readTopic(topics.flinkAlerts, 'read_committed', { expect: want.length, timeoutMs: 60_000 }));
  assert.deepEqual(flinkAlerts, pipecAlerts, "Flink's alerts (key, window, revenue) = pipec run's");
  assert.equal((await readTopic(topics.late, 'read_uncommitted', { expect: late.length, timeoutMs: 30_000 })).length, late.length, 'Flink wrote nothing to the late topic');
});
