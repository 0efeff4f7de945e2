// The spec from specs/ that reads Kafka and writes ClickHouse, Iceberg and Kafka
// (specs/orders_revenue.pipe.sql), run end to end with `pipec run` against the real services:
// JSON orders on a Kafka topic → 1-minute revenue per customer → the Debian ClickHouse
// server, an Iceberg table in a SQLite catalog (read back with pyiceberg), an exactly-once
// alert topic (read_committed) and a late-events topic. Expected rows are computed here from
// the produced orders, in integer cents.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { ensureServices } from '../../support/services.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { chCommand, chQuery } from '../clickhouse-sink/harness.ts';
import { PIPEC, repoRoot } from '../../cli/run-cli.ts';

const SPEC = path.join(repoRoot, 'specs', 'orders_revenue.pipe.sql');
const TOPICS = { orders: 'orders', late: 'orders-late', alerts: 'revenue-alerts' };
const GROUP = 'pipec-orders-revenue';
const BASE = Date.UTC(2024, 0, 1, 10, 0, 0);
const MIN = 60_000;
const PARTITIONS = 3;

interface Order {
  order_id: string;
  customer_id: number;
  cents: number;
  ts: number;
}

/** Deterministic orders: 12 customers over 10 minutes; some non-positive amounts (filtered out). */
function makeOrders(): Order[] {
  const out: Order[] = [];
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 600; i++) {
    const customer = 1 + (i % 12);
    // Customers 1 and 2 are big spenders: their minutes pass 10,000 and raise alerts.
    const big = customer <= 2 ? 250_000 : 0;
    const cents = i % 37 === 0 ? -500 : big + Math.floor(rnd() * 20_000);
    out.push({ order_id: `o-${i}`, customer_id: customer, cents, ts: BASE + i * 1000 });
  }
  return out;
}

const money = (cents: number): string => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const isoMs = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** customer|window_start(ms) → revenue cents and order count, as the view defines them. */
function expectedWindows(orders: Order[]): Map<string, { customer_id: number; start: number; cents: number; orders: number }> {
  const m = new Map<string, { customer_id: number; start: number; cents: number; orders: number }>();
  for (const o of orders) {
    if (o.cents <= 0) continue;
    const start = Math.floor(o.ts / MIN) * MIN;
    const k = `${o.customer_id}|${start}`;
    const w = m.get(k) ?? { customer_id: o.customer_id, start, cents: 0, orders: 0 };
    w.cents += o.cents;
    w.orders++;
    m.set(k, w);
  }
  return m;
}

let admin: Admin | null = null;
after(async () => {
  await admin?.disconnect();
});

async function waitFor(what: string, cond: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function readTopic(kafka: Kafka, topic: string, expected: number): Promise<{ key: string | null; value: string | null }[]> {
  const consumer = kafka.consumer({ groupId: `e2e-reader-${process.pid}-${Date.now()}`, readUncommitted: false });
  const got: { key: string | null; value: string | null }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void got.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? null }) });
  // Wait for the expected count, then a little longer: a duplicate would arrive in that time.
  const t0 = Date.now();
  while (got.length < expected && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 2000));
  await consumer.disconnect();
  return got;
}

test('pipec run specs/orders_revenue.pipe.sql: Kafka → ClickHouse + Iceberg + Kafka, every row once', async () => {
  const log: string[] = [];
  try {
    await runOrdersRevenue(log);
  } catch (e) {
    // The pipeline's own messages explain most failures: show them with the assertion.
    (e as Error).message += `\n--- pipec run stderr ---\n${log.join('')}`;
    throw e;
  }
});

async function runOrdersRevenue(log: string[]): Promise<void> {
  const env = await ensureServices(['kafka', 'clickhouse']);
  const brokers = env.PIPEC_KAFKA_BROKERS!;
  const chUrl = env.PIPEC_CLICKHOUSE_URL!;
  const kafka = new Kafka({ clientId: 'e2e-orders', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();

  // Fresh topics and group: the spec names them, so earlier runs must not leak in.
  const existing = await admin.listTopics();
  const ours = Object.values(TOPICS).filter((t) => existing.includes(t));
  if (ours.length > 0) await admin.deleteTopics({ topics: ours });
  await admin.deleteGroups([GROUP]).catch(() => {});
  await waitFor('old topics to go', async () => !(await admin!.listTopics()).some((t) => ours.includes(t)), 60_000);
  await admin.createTopics({
    topics: [
      { topic: TOPICS.orders, numPartitions: PARTITIONS, replicationFactor: 1 },
      { topic: TOPICS.late, numPartitions: 1, replicationFactor: 1 },
      { topic: TOPICS.alerts, numPartitions: 1, replicationFactor: 1 },
    ],
    waitForLeaders: true,
  });

  // The runtime sink writes final rows into a table the user creates (as with Flink's JDBC sinks).
  await chCommand(chUrl, 'CREATE DATABASE IF NOT EXISTS analytics');
  await chCommand(chUrl, 'DROP TABLE IF EXISTS analytics.revenue_1m');
  await chCommand(chUrl, 'CREATE TABLE analytics.revenue_1m (customer_id Int64, window_start DateTime, window_end DateTime, revenue Decimal(38, 2), orders Int64) ENGINE = MergeTree ORDER BY (customer_id, window_start)');

  const orders = makeOrders();
  const producer = kafka.producer();
  await producer.connect();
  const send = (list: Order[], partitionOf: (o: Order) => number): Promise<unknown> =>
    producer.send({
      topic: TOPICS.orders,
      acks: -1,
      messages: list.map((o) => ({
        partition: partitionOf(o),
        key: String(o.customer_id),
        value: JSON.stringify({ order_id: o.order_id, customer_id: o.customer_id, amount: money(o.cents), order_ts: isoMs(o.ts) }),
      })),
    });
  await send(orders, (o) => o.customer_id % PARTITIONS);
  // One order an hour later on every partition moves the watermark past every window above.
  const sentinels = Array.from({ length: PARTITIONS }, (_, p): Order => ({ order_id: `s-${p}`, customer_id: 900 + p, cents: 100, ts: BASE + 60 * MIN }));
  await send(sentinels, (o) => o.customer_id - 900);

  const dir = tempDir('pipec-e2e-');
  const runEnv = {
    ...process.env,
    NO_COLOR: '1',
    PIPEC_KAFKA_BROKERS: brokers,
    PIPEC_CLICKHOUSE_URL: chUrl,
    PIPEC_CATALOG_URI: `sqlite://${dir}/catalog.db`,
    PIPEC_WAREHOUSE: `file://${dir}/warehouse`,
  };
  const child = spawn(process.execPath, [PIPEC, 'run', SPEC, '--checkpoint-dir', path.join(dir, 'ck')], { cwd: dir, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => void log.push(String(d)));
  child.stdout.resume();
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

  const windows = expectedWindows(orders);
  try {
    await waitFor('ClickHouse to hold every closed window', async () => {
      const [r] = await chQuery<{ n: string }>(chUrl, 'SELECT count() AS n FROM analytics.revenue_1m');
      return Number(r?.n ?? 0) >= windows.size;
    });
    // Now late orders (10:00, far behind the watermark) go to the late topic.
    const late: Order[] = [1, 2, 3].map((i) => ({ order_id: `late-${i}`, customer_id: i, cents: 1000 * i, ts: BASE + 5_000 }));
    await send(late, (o) => o.customer_id % PARTITIONS);
    const lateRows = await readTopic(kafka, TOPICS.late, late.length);
    assert.deepEqual(lateRows.map((r) => JSON.parse(r.value!).order_id).sort(), ['late-1', 'late-2', 'late-3']);
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  assert.equal(code, 143, 'pipec run exits 143 (128 + SIGTERM) after a clean stop');

  // ClickHouse: every window once (no FINAL or dedup involved: a plain MergeTree).
  const chRows = await chQuery<{ customer_id: string; ws: string; revenue: string; orders: string }>(
    chUrl,
    "SELECT customer_id, toString(window_start) AS ws, toString(revenue) AS revenue, orders FROM analytics.revenue_1m ORDER BY customer_id, window_start",
  );
  const want = [...windows.values()].sort((a, b) => a.customer_id - b.customer_id || a.start - b.start);
  assert.deepEqual(
    chRows.map((r) => `${r.customer_id} ${r.ws} ${Number(r.revenue).toFixed(2)} ${r.orders}`),
    want.map((w) => `${w.customer_id} ${isoMs(w.start).slice(0, 19)} ${money(w.cents)} ${w.orders}`),
  );

  // Iceberg: the same rows, read by pyiceberg from the SQLite catalog the spec names.
  const table = await readIcebergTable({ catalog: { uri: `sqlite:///${dir}/catalog.db`, name: 'lake' }, table: 'analytics.revenue_1m' });
  const iceRows = table.rows
    .map((r) => `${r.customer_id} ${String(r.window_start).slice(0, 19).replace('T', ' ')} ${r.revenue} ${r.orders}`)
    .sort();
  assert.deepEqual(iceRows, want.map((w) => `${w.customer_id} ${isoMs(w.start).slice(0, 19)} ${money(w.cents)} ${w.orders}`).sort());

  // Alerts: windows over 10,000.00, exactly once for a read_committed consumer.
  const bigOnes = want.filter((w) => w.cents > 1_000_000);
  assert.ok(bigOnes.length > 0, 'the data has alert windows');
  const alerts = await readTopic(kafka, TOPICS.alerts, bigOnes.length);
  assert.deepEqual(
    alerts.map((a) => `${a.key} ${JSON.parse(a.value!).revenue}`).sort(),
    bigOnes.map((w) => `${w.customer_id} ${money(w.cents)}`).sort(),
  );
  await producer.disconnect();
}
