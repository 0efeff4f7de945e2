// Which lints fire on each hand-written fixture plan: worked out by reading each fixture
// against the rules (see each expectation's comment), so a lint that over- or under-fires shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as F from '../../fixtures/plans/index.ts';
import { codes, lint } from './helpers.ts';

test('orders revenue: only the ClickHouse append sink fed from Kafka is flagged', () => {
  // idle_timeout set, ON LATE TO, key = message key, acks=all late sink, BACKWARD subject.
  assert.deepEqual(codes(F.ordersRevenue()), ['clickhouse-duplicates-on-replay']);
});

test('IoT HOP: Kafka watermark without idle_timeout, and 1-min commits into 8 buckets', () => {
  assert.deepEqual(codes(F.iotHop()), ['iceberg-small-files', 'watermark-without-idle-timeout']);
});

test('clickstream SESSION: glob file source without idle_timeout, no ON LATE choice', () => {
  assert.deepEqual(codes(F.clickstreamSession()), ['watermark-without-idle-timeout', 'window-late-unspecified']);
});

test('CDC temporal join: no heartbeat, identity partition on a STRING column', () => {
  assert.deepEqual(codes(F.cdcTemporalJoin()), ['cdc-without-heartbeat', 'iceberg-identity-high-cardinality']);
});

test('group agg with TTL: datagen partitions, distinct state for 1 d, hot region key, acks=1', () => {
  assert.deepEqual(codes(F.groupAggTtl()), [
    'distinct-state-large',
    'hot-partition-group-key',
    'kafka-sink-not-idempotent',
    'watermark-without-idle-timeout',
  ]);
});

test('fan-out: NONE registry compatibility, ClickHouse append sink', () => {
  assert.deepEqual(codes(F.fanOut()), ['clickhouse-duplicates-on-replay', 'registry-compatibility-weak']);
});

test('every lint diagnostic is a warning with a help line and a span in the spec file', () => {
  for (const [name, make] of Object.entries(F.ALL_FIXTURES)) {
    const plan = make();
    for (const d of lint(plan)) {
      assert.equal(d.severity, 'warning', `${name}: ${d.code}`);
      assert.ok(d.help && d.help.length > 10, `${name}: ${d.code} has a help line`);
      assert.equal(d.span.file, plan.pipeline.file);
      assert.ok(!d.message.includes('\n'), `${name}: ${d.code} message is one line`);
    }
  }
});

test('linting does not modify the plan', () => {
  for (const make of Object.values(F.ALL_FIXTURES)) {
    const plan = make();
    const before = JSON.stringify(plan);
    lint(plan);
    assert.equal(JSON.stringify(plan), before);
  }
});

test('lints read plans built around checker errors without failing', () => {
  for (const make of Object.values(F.ALL_FIXTURES)) {
    const plan = make();
    // Dangling references everywhere: no scans, no sources.
    plan.operators = plan.operators.filter((o) => o.op !== 'scan');
    plan.sources = [];
    assert.deepEqual(lint(plan).filter((d) => d.code === 'internal-error'), []);
  }
});
