// Source lints: watermark without idle_timeout on multi-partition sources, CDC without
// heartbeat, registry subjects with weak compatibility. Each: fires, message, span, non-firing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as F from '../../fixtures/plans/index.ts';
import { opt } from '../../fixtures/plans/builder.ts';
import { only } from './helpers.ts';

test('watermark-without-idle-timeout: a Kafka source, at the source statement', () => {
  const plan = F.iotHop();
  const [d, ...rest] = only(plan, 'watermark-without-idle-timeout');
  assert.equal(rest.length, 0);
  assert.deepEqual(d!.span, plan.sources[0]!.span);
  assert.match(d!.message, /source 'readings' has a watermark but no idle_timeout/);
  assert.match(d!.message, /Kafka topic \('sensor-readings'\)/);
  assert.match(d!.help!, /idle_timeout = '30 s'.*'readings'/);
});

test('watermark-without-idle-timeout: quiet once idle_timeout is set', () => {
  const plan = F.iotHop();
  plan.sources[0]!.watermark!.idleTimeoutMs = 30_000;
  assert.equal(only(plan, 'watermark-without-idle-timeout').length, 0);
});

test('watermark-without-idle-timeout: file sources only when the path is a glob', () => {
  const glob = F.clickstreamSession();
  assert.match(only(glob, 'watermark-without-idle-timeout')[0]!.message, /path 'data\/clicks\/\*\.ndjson' is a glob/);
  const single = F.clickstreamSession();
  single.sources[0]!.options['path'] = opt('data/clicks.ndjson');
  assert.equal(only(single, 'watermark-without-idle-timeout').length, 0);
});

test('watermark-without-idle-timeout: datagen only with partitions > 1', () => {
  const four = F.groupAggTtl();
  assert.match(only(four, 'watermark-without-idle-timeout')[0]!.message, /4 datagen partitions/);
  const one = F.groupAggTtl();
  one.sources[0]!.options['partitions'] = opt('1');
  assert.equal(only(one, 'watermark-without-idle-timeout').length, 0);
  delete one.sources[0]!.options['partitions'];
  assert.equal(only(one, 'watermark-without-idle-timeout').length, 0);
});

test('watermark-without-idle-timeout: no watermark, no warning; CDC is one stream', () => {
  const plan = F.iotHop();
  plan.sources[0]!.watermark = null;
  assert.equal(only(plan, 'watermark-without-idle-timeout').length, 0);
  // customers (postgres-cdc) has a watermark without idle_timeout in the fixture.
  assert.equal(only(F.cdcTemporalJoin(), 'watermark-without-idle-timeout').length, 0);
});

test('cdc-without-heartbeat: fires on the CDC source, not on Kafka; heartbeat silences it', () => {
  const plan = F.cdcTemporalJoin();
  const ds = only(plan, 'cdc-without-heartbeat');
  assert.equal(ds.length, 1);
  assert.deepEqual(ds[0]!.span, plan.sources.find((s) => s.name === 'customers')!.span);
  assert.match(ds[0]!.message, /PostgreSQL CDC source 'customers' sets no heartbeat/);
  plan.sources[0]!.options['heartbeat'] = opt('30 s');
  assert.equal(only(plan, 'cdc-without-heartbeat').length, 0);
  plan.sources[0]!.options['heartbeat'] = opt('0 s');
  assert.equal(only(plan, 'cdc-without-heartbeat').length, 1, 'a zero heartbeat is no heartbeat');
});

test('registry-compatibility-weak: NONE and FORWARD warn; BACKWARD/FULL(_TRANSITIVE) and unknown do not', () => {
  const plan = F.fanOut();
  const [d] = only(plan, 'registry-compatibility-weak');
  assert.equal(d!.message, "schema subject 'events-value' of source 'events' has compatibility NONE: a producer can register a schema this pipeline cannot read");
  assert.deepEqual(d!.span, plan.sources[0]!.span);
  for (const level of ['FORWARD', 'forward_transitive']) {
    plan.sources[0]!.schemaCompatibility = level;
    assert.equal(only(plan, 'registry-compatibility-weak').length, 1, level);
  }
  for (const level of ['BACKWARD', 'BACKWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', null, undefined]) {
    plan.sources[0]!.schemaCompatibility = level;
    assert.equal(only(plan, 'registry-compatibility-weak').length, 0, String(level));
  }
});

test('registry-compatibility-weak: only for registry: schemas', () => {
  const plan = F.fanOut();
  plan.sources[0]!.schemaRef = 'file:schemas/events.avsc';
  assert.equal(only(plan, 'registry-compatibility-weak').length, 0);
});

test('watermark-without-idle-timeout: a Kafka topic declared with one partition is quiet', () => {
  const plan = F.iotHop();
  plan.sources[0]!.options['partitions'] = opt('1');
  assert.equal(only(plan, 'watermark-without-idle-timeout').length, 0);
  plan.sources[0]!.options['partitions'] = opt('6');
  assert.equal(only(plan, 'watermark-without-idle-timeout').length, 1);
});
