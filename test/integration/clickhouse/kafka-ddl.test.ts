// The production (Kafka engine) DDL on a real engine, one short-lived chdb session per script: creating a
// Kafka table parses and validates it (engine, settings, named collection), then chdb reports "Shutdown
// was called" from its consumer set-up. So each Kafka statement must fail with exactly that, while
// everything downstream is proven by the insertable variant, whose non-source statements are identical.
// Real consumption (a long-lived session reading a live topic) is tested in kafka-live.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { T } from '../../../src/types/sql-type.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { agg, BID_PRICE, bidSource, chSink, col, envOpt, kafkaSource, opt, plan, ref, scan, span, windowAgg } from '../../fixtures/clickhouse/plan-builder.ts';
import { runChdb } from '../../support/chdb.ts';

const CHDB_NO_CONSUMERS = /Shutdown was called/;

function multiSourcePlan(): PlanDoc {
  const bid = bidSource();
  const avro = kafkaSource('orders', [col('id', T.bigint(false)), col('amount', T.decimal(12, 2)), col('kafka_offset', T.bigint(), 'offset')], {
    format: 'avro',
    schemaRef: 'registry:orders-value',
    options: { topic: opt('orders'), brokers: envOpt('PIPEC_KAFKA_BROKERS'), group_id: opt('orders-ch') },
  });
  const proto = kafkaSource('clicks', [col('url', T.string()), col('at', T.timestamp(3))], {
    format: 'protobuf',
    schemaRef: 'file:schemas/clicks.proto#Click',
    options: { topic: opt('clicks'), brokers: opt('localhost:9092'), consumers: opt('3') },
  });
  const w = windowAgg('w', 'scan', { kind: 'tumble', sizeMs: 600_000, offsetMs: 0 }, 'bidtime', [{ name: 'item', expr: ref('item', T.string()) }], [agg('total', 'sum', ref('price', BID_PRICE), T.decimal(38, 2))]);
  return plan('shop', {
    sources: [bid, avro, proto],
    operators: [scan('scan', bid), w, scan('scan_orders', avro), scan('scan_clicks', proto)],
    views: [{ name: 'totals', operator: 'w', span }],
    sinks: [
      chSink('totals_ch', 'w', w.schema, 'analytics.totals', {}, { orderBy: ['item', 'window_start'], partitionBy: 'toYYYYMM(window_start)', ttl: 'toDateTime(window_start) + INTERVAL 30 DAY' }),
      chSink('orders_ch', 'scan_orders', avro.columns, 'analytics.orders', {}, { orderBy: ['id'], partitionBy: 'id % 4', ttl: null }),
    ],
  });
}

const collections = (sql: string): string =>
  [...sql.matchAll(/^-- {3}(CREATE NAMED COLLECTION .*;)$/gm)].map((m) => m[1]!.replace(/'\$\{[A-Z_]+\}'/g, "'localhost:9092'")).join('\n');

test('downstream DDL is byte-identical between the Kafka and the insertable variants', () => {
  const k = emitClickHouse(multiSourcePlan());
  const i = emitClickHouse(multiSourcePlan(), { sourceMode: 'insertable' });
  const downstream = (o: typeof k): string[] => o.statements.filter((s) => s.role !== 'source').map((s) => s.sql);
  assert.deepEqual(downstream(k), downstream(i));
  assert.equal(k.statements.filter((s) => s.role === 'source').length, 3);
});

test('each Kafka engine table is accepted by ClickHouse up to consumer start-up', async () => {
  const out = emitClickHouse(multiSourcePlan());
  const setup = out.statements.filter((s) => s.role === 'setup').map((s) => `${s.sql};`);
  const kafka = out.statements.filter((s) => s.role === 'source');
  for (const s of kafka) {
    await assert.rejects(runChdb([collections(out.sql), ...setup, `${s.sql};`].join('\n')), (e: Error) => {
      assert.match(e.message, CHDB_NO_CONSUMERS, `unexpected failure of:\n${s.sql}\n${e.message}`);
      return true;
    });
  }
});

test('the Kafka check has teeth: a wrong setting fails before consumer start-up', async () => {
  const out = emitClickHouse(multiSourcePlan());
  const first = out.statements.find((s) => s.role === 'source')!;
  const broken = first.sql.replace('kafka_handle_error_mode', 'kafka_handle_eror_mode');
  await assert.rejects(runChdb(`${collections(out.sql)}\nCREATE DATABASE IF NOT EXISTS \`shop\`;\n${broken};`), (e: Error) => {
    assert.doesNotMatch(e.message, CHDB_NO_CONSUMERS);
    assert.match(e.message, /UNKNOWN_SETTING|Unknown setting/);
    return true;
  });
});

test('the insertable variant of the whole pipeline runs, and its teardown removes every object', async () => {
  const out = emitClickHouse(multiSourcePlan(), { sourceMode: 'insertable' });
  const res = await runChdb(
    [
      out.sql,
      "SELECT name FROM system.tables WHERE database IN ('shop', 'analytics') ORDER BY name;",
      out.teardown,
      "SELECT count() AS n FROM system.tables WHERE database IN ('shop', 'analytics');",
    ].join('\n'),
  );
  const names = res.find((r) => r.statement.startsWith('SELECT name'))!.rows.map((r) => r['name']);
  for (const n of ['bid', 'orders', 'clicks', 'totals', 'totals__state', 'totals__merged', 'orders__dead_letters', 'bid__watermark', 'totals_ch__read']) assert.ok(names.includes(n), `${n} missing from ${names.join(', ')}`);
  assert.deepEqual(res.at(-1)!.rows, [{ n: 0 }]);
});

test('formats: JSONEachRow, AvroConfluent with the registry from a named collection, Protobuf with its schema', () => {
  const { sql } = emitClickHouse(multiSourcePlan());
  assert.match(sql, /kafka_format = 'JSONEachRow'/);
  assert.match(sql, /kafka_format = 'AvroConfluent'/);
  assert.match(sql, /CREATE NAMED COLLECTION `pipec_kafka_brokers__schema_registry_url` AS kafka_broker_list = '\$\{PIPEC_KAFKA_BROKERS\}', format_avro_schema_registry_url = '\$\{PIPEC_SCHEMA_REGISTRY_URL\}'/);
  assert.match(sql, /kafka_format = 'Protobuf',\n {4}kafka_schema = 'clicks\.proto:Click'/);
  assert.match(sql, /kafka_group_name = 'orders-ch'/);
  assert.match(sql, /kafka_num_consumers = 3/);
  assert.equal(sql.match(/kafka_handle_error_mode = 'stream'/g)?.length, 3);
  // A literal broker list (no ${VAR}) may be written; env-valued ones never are.
  assert.match(sql, /kafka_broker_list = 'localhost:9092'/);
  assert.doesNotMatch(sql, /secret-host/);
});
