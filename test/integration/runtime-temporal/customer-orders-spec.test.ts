// specs/customer_orders_cdc.pipe.sql run by the runtime against the real services, as written:
// customers from PostgreSQL CDC (a database of its own, the spec's slot and publication names),
// order events from the spec's Kafka topic, joined FOR SYSTEM_TIME AS OF the order time, into
// ClickHouse 18.16 (sales.enriched_orders, created here as a user would) and an Iceberg table
// of format version 3 in Iceberg's reference REST catalog (which checks the snapshots' row
// lineage; read back with pyiceberg). The expected rows follow by hand from the customers'
// change history (commits bracketed by the clock, orders 300 ms before or after).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ensureServices } from '../../support/services.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { pgClient } from '../postgres-cdc/harness.ts';
import { chCommand, chQuery } from '../clickhouse-sink/harness.ts';
import { startRestCatalog } from '../iceberg/rest-server.ts';
import { lineageOf, rowLineage } from '../iceberg/v3-scenario.ts';
import { RestCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/rest-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { startPipeline, until } from '../runtime-cdc/harness.ts';

const SPEC = path.join(import.meta.dirname, '..', '..', '..', 'specs', 'customer_orders_cdc.pipe.sql');
// Names the spec fixes.
const TOPIC = 'order-events';
const GROUP = 'pipec-customer-orders';
const SLOT = 'pipec_customers';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('specs/customer_orders_cdc.pipe.sql: CDC customers ⋈ Kafka orders → ClickHouse + Iceberg (REST catalog)', { timeout: 240_000 }, async (t) => {
  const env = await ensureServices(['postgres', 'kafka', 'clickhouse']);
  const rest = await startRestCatalog();
  t.after(() => rest.stop());

  // PostgreSQL: a database of its own holds public.customers; the slot name is cluster-wide.
  const admin = await pgClient(env.PIPEC_PG_URL!);
  const db = `shop_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, [SLOT]);
  await admin.query(`CREATE DATABASE ${db}`);
  const dsn = new URL(env.PIPEC_PG_URL!);
  dsn.pathname = `/${db}`;
  const c = await pgClient(dsn.href);
  t.after(async () => {
    await c.end();
    await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, [SLOT]).catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => {});
    await admin.end();
  });
  await c.query(`CREATE TABLE public.customers (id bigint PRIMARY KEY, name text NOT NULL, email text, country text NOT NULL, tier text NOT NULL, updated_at timestamp(6) NOT NULL DEFAULT now())`);
  await c.query(`INSERT INTO public.customers (id, name, email, country, tier) VALUES (1, 'ann', 'ann@x', 'DE', 'silver'), (2, 'bob', NULL, 'FR', 'gold')`);

  // Kafka: the spec's topic and group, fresh.
  const kafka = new Kafka({ clientId: 'tj-spec', brokers: env.PIPEC_KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const kadmin = kafka.admin();
  await kadmin.connect();
  t.after(() => kadmin.disconnect());
  if ((await kadmin.listTopics()).includes(TOPIC)) await kadmin.deleteTopics({ topics: [TOPIC] });
  await kadmin.deleteGroups([GROUP]).catch(() => {});
  await until(async () => !(await kadmin.listTopics()).includes(TOPIC), () => 'old topic still listed');
  await kadmin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });

  // ClickHouse: the table the sink writes into (18.16: DateTime holds seconds).
  const ch = env.PIPEC_CLICKHOUSE_URL!;
  await chCommand(ch, 'CREATE DATABASE IF NOT EXISTS sales');
  await chCommand(ch, 'DROP TABLE IF EXISTS sales.enriched_orders');
  await chCommand(
    ch,
    'CREATE TABLE sales.enriched_orders (order_id String, customer_id Int64, customer_name String, country String, tier String, amount Decimal(12, 2), currency String, order_ts DateTime) ENGINE = MergeTree PARTITION BY toYYYYMM(order_ts) ORDER BY (customer_id, order_ts, order_id)',
  );

  const runEnv = {
    PIPEC_SHOP_DSN: dsn.href,
    PIPEC_KAFKA_BROKERS: env.PIPEC_KAFKA_BROKERS!,
    PIPEC_CLICKHOUSE_URL: ch,
    PIPEC_CATALOG_URI: rest.uri,
    PIPEC_WAREHOUSE: `file://${rest.warehouseDir}`,
  };
  const specText = readFileSync(SPEC, 'utf8');
  assert.match(specText, /format_version\s*=\s*'3'/);
  const p = await startPipeline(specText, runEnv);
  let stopped = false;
  t.after(async () => {
    if (!stopped) await p.stop();
  });

  const commit = async (sql: string): Promise<{ before: number; after: number }> => {
    const before = Date.now();
    await c.query(sql);
    const after = Date.now();
    await sleep(1200);
    return { before, after };
  };
  await sleep(1500); // snapshot taken, slot streaming
  const c1 = await commit(`UPDATE public.customers SET tier = 'gold', country = 'AT', updated_at = now() WHERE id = 1`);
  const c2 = await commit(`DELETE FROM public.customers WHERE id = 2`);
  const c3 = await commit(`INSERT INTO public.customers (id, name, email, country, tier) VALUES (3, 'cy', NULL, 'US', 'bronze')`);
  const orders: [string, number, number][] = [
    ['o-ancient', 1, Date.UTC(2024, 0, 15, 8, 30, 0)], // the snapshot row: valid since ever
    ['o-1-before-c1', 1, c1.before - 300],
    ['o-1-after-c1', 1, c1.after + 300],
    ['o-2-before-c2', 2, c2.before - 300],
    ['o-2-after-c2', 2, c2.after + 300], // bob deleted: dropped by the inner join
    ['o-3-before-c3', 3, c3.before - 300], // cy not there yet: dropped
    ['o-3-after-c3', 3, c3.after + 300],
    // The spec's watermark delay is 10 s: this one moves the orders' watermark past the rest.
    ['o-flush', 999, c3.after + 300 + 10_001],
  ];
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: TOPIC,
    acks: -1,
    messages: orders.map(([id, customer, ts]) => ({ key: String(customer), value: JSON.stringify({ order_id: id, customer_id: customer, amount: '19.99', currency: 'EUR', order_ts: ts }) })),
  });
  await producer.disconnect();

  const sec = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const at = new Map(orders.map(([id, , ts]) => [id, ts]));
  // By hand: snapshot {1 ann DE silver, 2 bob FR gold}; c1: 1 → AT gold; c2: -2; c3: +3 cy US bronze.
  const expected = [
    ['o-ancient', 1, 'ann', 'DE', 'silver'],
    ['o-1-before-c1', 1, 'ann', 'DE', 'silver'],
    ['o-1-after-c1', 1, 'ann', 'AT', 'gold'],
    ['o-2-before-c2', 2, 'bob', 'FR', 'gold'],
    ['o-3-after-c3', 3, 'cy', 'US', 'bronze'],
  ].map(([id, cid, name, country, tier]) => `${id} ${cid} ${name} ${country} ${tier} 19.99 EUR ${sec(at.get(id as string)!)}`);
  const fromCh = async (): Promise<string[]> =>
    (
      await chQuery<Record<string, string>>(
        ch,
        'SELECT order_id, customer_id, customer_name, country, tier, toString(amount) AS amount, currency, toString(order_ts) AS ts FROM sales.enriched_orders ORDER BY order_ts, order_id',
      )
    ).map((r) => `${r.order_id} ${r.customer_id} ${r.customer_name} ${r.country} ${r.tier} ${Number(r.amount).toFixed(2)} ${r.currency} ${r.ts}`);
  let last: string[] = [];
  // DateTime is written and read back as text in the server's time zone: the UTC text the sink wrote.
  await until(async () => (last = await fromCh()).length >= expected.length, () => ({ clickhouse: last, stderr: p.stderr() }), 90_000);
  await sleep(1000);
  stopped = true;
  assert.equal(await p.stop(), 0, p.stderr());
  // ORDER BY order_ts, order_id: the text ends with the time; sort on it, then on the order id.
  const byTime = (a: string, b: string): number => a.slice(-19).localeCompare(b.slice(-19)) || a.localeCompare(b);
  assert.deepEqual(await fromCh(), [...expected].sort(byTime));

  // Iceberg: the table the sink created in the REST catalog holds the same rows (published at stop).
  const table = await new IcebergTableWriter(new RestCatalog('lake', rest.uri), identFromName('sales.enriched_orders')).load();
  const dump = await readIcebergTable({ metadata: table.metadataLocation });
  const iceRows = dump.rows
    .map((r) => `${r.order_id} ${r.customer_id} ${r.customer_name} ${r.country} ${r.tier} ${Number(r.amount).toFixed(2)} ${r.currency} ${sec(Date.parse(String(r.order_ts).replace(' ', 'T') + (String(r.order_ts).endsWith('Z') ? '' : 'Z')))}`)
    .sort();
  assert.deepEqual(iceRows, [...expected].sort());
  // Format v3 with row lineage: the 5 rows were appended (in one snapshot at stop, or more if a
  // checkpoint published earlier): the snapshots' row-id ranges tile 0..4, the rows hold ids 0..4.
  assert.equal(dump.formatVersion, 3);
  const lineage = await lineageOf(table.metadataLocation, 'order_id');
  let next = 0;
  for (const s of [...lineage.snapshots].sort((a, b) => a.sequence_number - b.sequence_number)) {
    assert.equal(s.first_row_id, next);
    next += s.added_rows!;
  }
  assert.equal(next, expected.length);
  assert.equal(lineage.next_row_id, expected.length);
  const ids = rowLineage(lineage);
  assert.deepEqual([...ids.keys()].sort(), expected.map((e) => e.split(' ')[0]).sort());
  assert.deepEqual([...ids.values()].map((v) => v.id).sort(), [0, 1, 2, 3, 4]);
});
