// Emission rules that need no engine: coded diagnostics for what ClickHouse cannot express, lints,
// secrets, determinism, header, teardown order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clickhouseTarget, emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { clickhouseCodes } from '../../../src/diagnostics/codes/clickhouse.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { T } from '../../../src/types/sql-type.ts';
import type { IrSource, PlanDoc } from '../../../src/plan/ir.ts';
import { agg, bidWindowPlan, chSink, col, kafkaSource, opt, plan, ref, scan } from '../../fixtures/clickhouse/plan-builder.ts';
import { groupAggPlan, plainSourcePlan, sinkPlan, temporalJoinPlan } from '../../fixtures/clickhouse/plans.ts';

const codes = (p: PlanDoc, sourceMode: 'kafka' | 'insertable' = 'kafka'): string[] => emitClickHouse(p, { sourceMode }).diagnostics.items.map((d) => d.code);

test('SESSION windows are an error that names the difference and the nearest form', () => {
  const out = emitClickHouse(bidWindowPlan({ kind: 'session', gapMs: 300_000, partitionBy: [] }));
  const d = out.diagnostics.items.find((x) => x.code === 'clickhouse-session-window-unsupported');
  assert.ok(d);
  assert.equal(d.severity, 'error');
  assert.match(d.message, /gap 5 min/);
  assert.match(d.help ?? '', /TUMBLE/);
  assert.doesNotMatch(out.sql, /bid_windows__state/);
});

test('file and datagen sources: a warning and the nearest form, a plain table to insert into', () => {
  for (const connector of ['file', 'datagen'] as const) {
    const out = emitClickHouse(plainSourcePlan(connector));
    const d = out.diagnostics.items.find((x) => x.code === 'clickhouse-source-connector-unsupported');
    assert.equal(d?.severity, 'warning');
    assert.match(d!.message, new RegExp(`'${connector}'`));
    assert.match(out.sql, /CREATE TABLE IF NOT EXISTS `p`\.`events`\n\(\n {4}`n` Nullable\(Int32\)\n\)\nENGINE = MergeTree/);
    assert.doesNotMatch(out.sql, /Kafka/);
  }
});

test('formats ClickHouse cannot decode are errors', () => {
  const cases: Partial<IrSource>[] = [
    { format: 'avro', schemaRef: 'file:schemas/x.avsc' },
    { format: 'protobuf', schemaRef: 'registry:x-value' },
    { format: 'csv' },
  ];
  for (const c of cases) {
    const src = kafkaSource('x', [col('n', T.int())], c);
    const out = emitClickHouse(plan('p', { sources: [src] }));
    assert.deepEqual(out.diagnostics.items.map((d) => [d.code, d.severity]), [['clickhouse-format-unsupported', 'error']], JSON.stringify(c));
  }
});

test('a payload column named like a Kafka virtual column is an error', () => {
  assert.ok(codes(plan('p', { sources: [kafkaSource('x', [col('_offset', T.bigint())])] })).includes('clickhouse-reserved-column'));
});

test('window aggregates warn about the missing watermark and late rows; FIRST/LAST_VALUE about event-time order', () => {
  const c = codes(bidWindowPlan({ kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, [agg('f', 'first_value', ref('item', T.string()), T.string())]));
  assert.deepEqual(c.sort(), ['clickhouse-first-last-by-event-time', 'clickhouse-late-rows-merge', 'clickhouse-no-watermark']);
  // EMIT CHANGES needs no watermark, so that warning goes.
  assert.ok(!codes(bidWindowPlan({ kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, undefined, { emit: 'changes' })).includes('clickhouse-no-watermark'));
});

test('aggregating sink: ORDER BY without the group key is extended and warned about', () => {
  const out = emitClickHouse(sinkPlan(['window_start'], 'max'));
  const d = out.diagnostics.items.find((x) => x.code === 'clickhouse-order-by-missing-key');
  assert.match(d?.message ?? '', /item, window_end/);
  assert.match(out.sql, /ENGINE = AggregatingMergeTree\nORDER BY \(`window_start`, `item`, `window_end`\)/);
  // max() is idempotent: a redelivered block cannot change it.
  assert.ok(!out.diagnostics.items.some((x) => x.code === 'clickhouse-at-least-once-duplicates'));
  const ok = emitClickHouse(sinkPlan(['item', 'window_start', 'window_end'], 'sum'));
  assert.ok(!ok.diagnostics.items.some((x) => x.code === 'clickhouse-order-by-missing-key'));
  assert.ok(ok.diagnostics.items.some((x) => x.code === 'clickhouse-at-least-once-duplicates'));
});

test('append sink from Kafka into MergeTree warns about duplicates; nullable composites are named', () => {
  const src = kafkaSource('e', [col('tags', T.array(T.string())), col('n', T.int())]);
  const out = emitClickHouse(plan('p', { sources: [src], operators: [scan('s', src)], sinks: [chSink('o', 's', src.columns, 'db.o', {}, { orderBy: ['n'] })] }));
  const c = out.diagnostics.items.map((d) => d.code);
  assert.ok(c.includes('clickhouse-at-least-once-duplicates'));
  assert.ok(c.includes('clickhouse-nullable-composite'));
  assert.match(out.sql, /ENGINE = MergeTree\nORDER BY \(`n`\)\nSETTINGS allow_nullable_key = 1/);
});

test('no secret reaches the DDL: env-valued options become named collections', () => {
  const out = emitClickHouse(bidWindowPlan({ kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }));
  assert.doesNotMatch(out.sql, /secret-host/);
  assert.match(out.sql, /ENGINE = Kafka\(`pipec_kafka_brokers`\)/);
  assert.match(out.sql, /^-- {3}CREATE NAMED COLLECTION `pipec_kafka_brokers` AS kafka_broker_list = '\$\{PIPEC_KAFKA_BROKERS\}';$/m);
  assert.doesNotMatch(out.sql, /kafka_broker_list = 'secret/);
});

test('output: header names the spec, deterministic bytes, teardown drops in reverse order', async () => {
  const p = bidWindowPlan({ kind: 'hop', slideMs: 60_000, sizeMs: 120_000 });
  const ctx = { diagnostics: new DiagnosticBag(), readPrevious: () => null };
  const a = await clickhouseTarget.emit(p, ctx);
  const b = await clickhouseTarget.emit(structuredClone(p), { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  assert.deepEqual(a, b);
  assert.deepEqual(a.map((f) => f.path), ['clickhouse.sql', 'clickhouse.teardown.sql']);
  const sql = String(a[0]!.contents);
  assert.match(sql.split('\n')[0]!, /generated by pipec from specs\/test\.pipe\.sql/);
  const created = [...sql.matchAll(/^CREATE (?:TABLE|VIEW|MATERIALIZED VIEW) IF NOT EXISTS (\S+)/gm)].map((m) => m[1]);
  const dropped = [...String(a[1]!.contents).matchAll(/^DROP (?:TABLE|VIEW) IF EXISTS (\S+);/gm)].map((m) => m[1]);
  assert.deepEqual(dropped, [...created].reverse());
  // Every statement is idempotent.
  assert.equal((sql.match(/^CREATE /gm) ?? []).length, (sql.match(/^CREATE [A-Z ]+ IF NOT EXISTS /gm) ?? []).length);
  assert.equal(clickhouseTarget.appliesTo(p), false);
});

test('CONTEXT.md lists every ClickHouse diagnostic code, one line each', () => {
  const md = readFileSync(new URL('../../../targets/clickhouse/CONTEXT.md', import.meta.url), 'utf8');
  for (const code of Object.keys(clickhouseCodes)) assert.equal(md.split('\n').filter((l) => l.startsWith(`| \`${code}\``)).length, 1, code);
  const listed = [...md.matchAll(/^\| `(clickhouse-[a-z-]+)`/gm)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), Object.keys(clickhouseCodes).sort());
  void opt;
});

test('temporal joins warn that ClickHouse reads the latest version; group aggregates that state_ttl is ignored', () => {
  const t = emitClickHouse(temporalJoinPlan());
  assert.ok(t.diagnostics.items.some((d) => d.code === 'clickhouse-temporal-join-latest'));
  assert.ok(t.diagnostics.items.some((d) => d.code === 'clickhouse-mv-join-left-only'));
  assert.match(t.sql, /FROM `crm`\.`customers` FINAL WHERE \(`_is_deleted` = 0\)/);
  const g = emitClickHouse(groupAggPlan());
  assert.ok(g.diagnostics.items.some((d) => d.code === 'clickhouse-state-ttl-ignored' && d.message.includes('1 d')));
});

test('aggregating a CDC changelog is an error (it would need retractions); startup notes the server setting', async () => {
  const { customers } = await import('../../fixtures/clickhouse/plans.ts');
  const s = { ...scan('s', customers), changelog: 'upsert' as const, upsertKey: ['id'] };
  const w = { ...(await import('../../fixtures/clickhouse/plan-builder.ts')).windowAgg('w', 's', { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 }, 'updated_at', [], [agg('n', 'count_star', null, T.bigint(false))]) };
  const out = emitClickHouse(plan('crm', { sources: [customers], operators: [s, w] }));
  assert.ok(out.diagnostics.items.some((d) => d.code === 'clickhouse-operator-unsupported' && /changelog/.test(d.message)));
  const k = kafkaSource('k', [col('n', T.int())], { options: { topic: opt('k'), startup: opt('earliest') } });
  assert.match(emitClickHouse(plan('p', { sources: [k] })).sql, /-- startup = 'earliest': set <kafka><auto_offset_reset>smallest<\/auto_offset_reset><\/kafka>/);
  void chSink;
  void ref;
});

test('a topic or group taken from the environment moves into the named collection too', () => {
  const env = (name: string) => ({ value: 'prod-topic', template: `\${${name}}`, envVars: [name] });
  const k = kafkaSource('k', [col('n', T.int())], { options: { topic: env('ORDERS_TOPIC'), group_id: opt('g1') } });
  const out = emitClickHouse(plan('p', { sources: [k] }));
  assert.doesNotMatch(out.sql, /prod-topic/);
  assert.doesNotMatch(out.sql, /^ {4}kafka_topic_list =/m);
  assert.match(out.sql, /kafka_group_name = 'g1'/);
  assert.match(out.sql, /CREATE NAMED COLLECTION `pipec_kafka_brokers__orders_topic` AS kafka_broker_list = '\$\{PIPEC_KAFKA_BROKERS\}', kafka_topic_list = '\$\{ORDERS_TOPIC\}'/);
});

test('a sink table named like a generated view is an error, not a silent IF NOT EXISTS no-op', () => {
  const p = bidWindowPlan({ kind: 'tumble', sizeMs: 60_000, offsetMs: 0 });
  const w = p.operators.find((o) => o.op === 'window_agg')!;
  const out = emitClickHouse({ ...p, sinks: [chSink('s', w.id, w.schema, 'analytics.s', {}, { ddlTable: 'bid_windows' })] });
  assert.deepEqual(out.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.code), ['clickhouse-name-collision']);
});

test("the default consumer group is not the runtime's: a server and `pipec run` of one spec never split a topic", async () => {
  const { resolveKafkaSource } = await import('../../../targets/runtime/lib/config/kafka/config.ts');
  const k = kafkaSource('orders', [col('n', T.int())], { options: { topic: opt('orders') } });
  const sql = emitClickHouse(plan('shop', { sources: [k] })).sql;
  const runtimeGroup = resolveKafkaSource('orders', { topic: opt('orders') }, 'shop').groupId;
  const group = /kafka_group_name = '([^']+)'/.exec(sql)?.[1];
  assert.equal(group, 'pipec-shop-orders-clickhouse');
  assert.notEqual(group, runtimeGroup);
  // A group the spec names is used as given: the user chose to share it.
  const named = kafkaSource('orders', [col('n', T.int())], { options: { topic: opt('orders'), group_id: opt('g1') } });
  assert.match(emitClickHouse(plan('shop', { sources: [named] })).sql, /kafka_group_name = 'g1'/);
});

test('the header names the oldest ClickHouse server the DDL runs on', () => {
  const k = kafkaSource('orders', [col('n', T.int())], { options: { topic: opt('orders') } });
  const out = emitClickHouse(plan('shop', { sources: [k] }));
  assert.match(out.sql.split('\n')[1]!, /^-- Needs ClickHouse 23\.2 or newer/);
});

test('a Kafka engine table is made from the physical plan\'s topic, never from the options', async () => {
  const { emitStatements } = await import('../../../targets/clickhouse/emit.ts');
  const { lowerPlan } = await import('../../../src/plan/physical/lower.ts');
  const k = kafkaSource('orders', [col('n', T.int())], { options: { topic: opt('orders'), group_id: opt('g1') } });
  const p = plan('shop', { sources: [k] });
  const phys = lowerPlan(p);
  const t = phys.sources[0]!.topic!;
  assert.deepEqual([t.topic.text, t.groupId?.text, t.brokers.text], ['orders', 'g1', '${PIPEC_KAFKA_BROKERS}']);
  phys.sources[0]!.topic = { ...t, topic: { text: 'from-plan', envVars: [] }, groupId: { text: 'g-plan', envVars: [] }, consumers: 4 };
  const sql = emitStatements(p, new DiagnosticBag(), {}, phys).sql;
  assert.match(sql, /kafka_topic_list = 'from-plan'/);
  assert.match(sql, /kafka_group_name = 'g-plan'/);
  assert.match(sql, /kafka_num_consumers = 4/);
  assert.doesNotMatch(sql, /'orders'|'g1'/);
});
