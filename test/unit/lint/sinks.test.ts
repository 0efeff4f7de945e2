// Sink lints: Kafka acks/idempotence, ClickHouse duplicates on replay, Iceberg small files
// (with the estimate), identity partitions on high-cardinality columns, bucket on non-keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as F from '../../fixtures/plans/index.ts';
import { opt } from '../../fixtures/plans/builder.ts';
import { PlanIndex } from '../../../src/plan/graph.ts';
import { estimateFilesPerDay } from '../../../src/connectors/iceberg/small-files-lint.ts';
import { only } from './helpers.ts';
import { section } from '../../support/ir-sections.ts';
import type { IrSinkOf } from '../../../src/plan/ir.ts';

test('kafka-sink-not-idempotent: acks=1 without idempotence, at the sink', () => {
  const plan = F.groupAggTtl();
  const [d] = only(plan, 'kafka-sink-not-idempotent');
  assert.equal(d!.message, "Kafka sink 'region_counts' writes with acks=1 and without idempotence: a broker failover can lose or duplicate records");
  assert.deepEqual(d!.span, plan.sinks[0]!.span);
});

test('kafka-sink-not-idempotent: acks=all alone is not enough; both are quiet', () => {
  const plan = F.groupAggTtl();
  section(plan.sinks[0]!, 'kafka').acks = 'all';
  assert.match(only(plan, 'kafka-sink-not-idempotent')[0]!.message, /acks=all and without idempotence/);
  section(plan.sinks[0]!, 'kafka').idempotent = true;
  assert.equal(only(plan, 'kafka-sink-not-idempotent').length, 0);
});

test('clickhouse-duplicates-on-replay: names the table and the replaying sources; the help gives both fixes', () => {
  const plan = F.ordersRevenue();
  const [d] = only(plan, 'clickhouse-duplicates-on-replay');
  assert.equal(
    d!.message,
    "ClickHouse sink 'revenue_ch' is fed at least once from 'orders' (kafka) and its rows have no key: rows replayed after a restart are inserted into analytics.revenue_1m again",
  );
  assert.equal(
    d!.help,
    "set delivery = 'exactly-once' on sink 'revenue_ch' and let analytics.revenue_1m deduplicate inserts (SETTINGS non_replicated_deduplication_window = 100, or a Replicated* engine), or give the rows a key (EMIT CHANGES makes an upsert stream for a ReplacingMergeTree), or write '-- pipec:allow clickhouse-duplicates-on-replay' above the sink if duplicates are acceptable",
  );
  assert.deepEqual(d!.span, plan.sinks.find((s) => s.name === 'revenue_ch')!.span);
});

test("clickhouse-duplicates-on-replay: quiet for a keyed sink and for delivery = 'exactly-once', not for explicit at-least-once", () => {
  const upsert = F.ordersRevenue();
  upsert.sinks[0]!.changelog = 'upsert';
  upsert.sinks[0]!.upsertKey = ['customer_id', 'window_start'];
  assert.equal(only(upsert, 'clickhouse-duplicates-on-replay').length, 0);
  const eos = F.ordersRevenue();
  eos.sinks[0]!.options['delivery'] = opt('exactly-once');
  assert.equal(only(eos, 'clickhouse-duplicates-on-replay').length, 0);
  const alo = F.ordersRevenue();
  alo.sinks[0]!.options['delivery'] = opt('at-least-once');
  assert.equal(only(alo, 'clickhouse-duplicates-on-replay').length, 1);
});

test('iceberg-small-files: 1 min commits x (day x bucket 8) = 11,520 files a day', () => {
  const plan = F.iotHop();
  const [d] = only(plan, 'iceberg-small-files');
  assert.equal(
    d!.message,
    "Iceberg sink 'device_temp_lake' commits every 1 min into 8 partitions per commit: an estimated 11,520 data files per day",
  );
  assert.deepEqual(d!.span, plan.sinks.find((s) => s.name === 'device_temp_lake')!.span);
});

test('iceberg-small-files: estimate from the partition spec', () => {
  const plan = F.iotHop();
  const sink = plan.sinks[0]!;
  const est = () => estimateFilesPerDay(sink, new PlanIndex(plan));
  assert.deepEqual(est(), { commitsPerDay: 1440, partitionsPerCommit: 8, filesPerDay: 11520, exact: true });
  section(sink, 'iceberg').partitionBy = [];
  section(sink, 'iceberg').commitIntervalMs = 10 * 60_000;
  assert.deepEqual(est(), { commitsPerDay: 144, partitionsPerCommit: 1, filesPerDay: 144, exact: true });
  section(sink, 'iceberg').partitionBy = [{ column: 'device_id', transform: 'truncate', param: 4 }, { column: 'window_start', transform: 'hour', param: null }];
  assert.deepEqual(est(), { commitsPerDay: 144, partitionsPerCommit: 1, filesPerDay: 144, exact: false });
});

test('iceberg-small-files: identity on a column with a known cardinality multiplies by it', () => {
  const plan = F.groupAggTtl();
  // Re-point the Kafka sink at Iceberg: region has 3 values (datagen choice).
  section(plan.sinks[0], 'kafka');
  const { kafka: _kafka, ...rest } = plan.sinks[0] as IrSinkOf<'kafka'>;
  plan.sinks[0] = {
    ...rest,
    connector: 'iceberg',
    iceberg: {
      catalog: 'lake', table: 'x.y', partitionBy: [{ column: 'region', transform: 'identity', param: null }], sortBy: [],
      formatVersion: 2, targetFileSizeBytes: 1, commitIntervalMs: 60_000, writeMode: 'merge-on-read', compressionCodec: 'zstd',
    },
  };
  assert.match(only(plan, 'iceberg-small-files')[0]!.message, /into 3 partitions per commit: an estimated 4,320 data files per day/);
});

test('iceberg-small-files: unknown factors give a lower bound, said as such', () => {
  const plan = F.cdcTemporalJoin();
  section(plan.sinks[0]!, 'iceberg').commitIntervalMs = 30_000;
  // identity(country): unknown; day(order_ts): 1 → at least 2,880 per day.
  assert.match(only(plan, 'iceberg-small-files')[0]!.message, /into at least 1 partition per commit: an estimated at least 2,880 data files per day/);
});

test('iceberg-small-files: a compaction policy rewriting data files silences it; 288 a day is quiet', () => {
  const plan = F.iotHop();
  plan.compactions.push({
    name: 'm', sink: 'device_temp_lake', scheduleMs: 3_600_000, span: plan.sinks[0]!.span,
    actions: [{ kind: 'rewrite_data_files', fileSizeBelowBytes: 32 << 20, targetBytes: 128 << 20, minInputFiles: 5 }],
  });
  assert.equal(only(plan, 'iceberg-small-files').length, 0);
  assert.equal(only(F.fanOut(), 'iceberg-small-files').length, 0);
});

test('iceberg-identity-high-cardinality: STRING without a known small cardinality', () => {
  const plan = F.cdcTemporalJoin();
  const [d] = only(plan, 'iceberg-identity-high-cardinality');
  assert.match(d!.message, /partitions by identity\(country\) on a STRING column/);
  assert.equal(d!.help, 'partition by bucket(16, country) (or truncate(W, country)) instead');
  plan.sources.find((s) => s.name === 'customers')!.columns.find((c) => c.name === 'country')!.cardinalityHint = 250;
  assert.equal(only(plan, 'iceberg-identity-high-cardinality').length, 0);
});

test('iceberg-identity-high-cardinality: time transforms and INT columns are fine', () => {
  assert.equal(only(F.iotHop(), 'iceberg-identity-high-cardinality').length, 0);
  assert.equal(only(F.fanOut(), 'iceberg-identity-high-cardinality').length, 0);
});

test('iceberg-bucket-non-key: bucket on the grouping key is quiet, on another column warns', () => {
  assert.equal(only(F.iotHop(), 'iceberg-bucket-non-key').length, 0);
  const plan = F.fanOut();
  // clean_events is keyed by the message key user_id (passed through the view).
  section(plan.sinks[0]!, 'iceberg').partitionBy.push({ column: 'event_type', transform: 'bucket', param: 4 });
  const [d] = only(plan, 'iceberg-bucket-non-key');
  assert.equal(d!.message, "Iceberg sink 'events_lake' buckets on 'event_type', which is not a key of the rows it writes (key: user_id)");
  section(plan.sinks[0]!, 'iceberg').partitionBy[1] = { column: 'user_id', transform: 'bucket', param: 4 };
  assert.equal(only(plan, 'iceberg-bucket-non-key').length, 0);
});
