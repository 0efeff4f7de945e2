// Kafka connector settings as the runtime holds them: the resolved config's defaults (resolver),
// the broker list from the environment, producer settings implied by acks/idempotence/delivery,
// rejected values, and a def without a resolved config refused (never re-read from its options).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaOptionError } from '../../../targets/runtime/lib/kafka/at-start.ts';
import { KafkaSink } from '../../../targets/runtime/lib/kafka/kafka-sink.ts';
import { KafkaSource } from '../../../targets/runtime/lib/kafka/kafka-source.ts';
import type { SourceDef, SourceSink } from '../../../targets/runtime/lib/io/source-types.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import { sinkConfigOf, sourceConfigOf } from '../../support/resolved-config.ts';

const out = { partitionAdded: () => 0 } as unknown as SourceSink;

function source(options: Record<string, string>, env: Record<string, string>, pipeline?: string, withConfig = true): KafkaSource {
  const def: SourceDef = { id: 'orders', name: 'orders', connector: 'kafka', format: 'json', options, columns: [], decode: null, timeIndex: -1, delayMs: 0, idleTimeoutMs: null };
  if (withConfig) def.config = sourceConfigOf('kafka', 'orders', options, pipeline);
  return new KafkaSource(def, out, { env });
}

function sink(name: string, options: Record<string, string>, env: Record<string, string>, pipeline?: string, withConfig = true): KafkaSink {
  const def: SinkDef = { id: name, name, connector: 'kafka', options, columns: [{ name: 'region', kind: 'string', nullable: true }, { name: 'id', kind: 'int', nullable: true }], json: () => '', cells: () => [] };
  if (withConfig) def.config = sinkConfigOf('kafka', name, options, pipeline);
  return new KafkaSink(def, { env });
}

test('source defaults: committed startup, brokers from PIPEC_KAFKA_BROKERS, group named after pipeline and source', () => {
  const o = source({ topic: 't' }, { PIPEC_KAFKA_BROKERS: 'h1:9092, h2:9093' }, 'shop');
  assert.deepEqual(o.brokers, ['h1:9092', 'h2:9093']);
  assert.deepEqual(o.config, { connector: 'kafka', brokers: null, topic: 't', groupId: 'pipec-shop-orders', startup: 'committed', format: 'json', maxBytesPerPartition: 1048576, templated: [] });
  assert.equal(source({ topic: 't', brokers: 'x:1', group_id: 'mine', startup: 'latest' }, {}).config.groupId, 'mine');
  assert.deepEqual(source({ topic: 't', brokers: 'x:1' }, { PIPEC_KAFKA_BROKERS: 'ignored:1' }).brokers, ['x:1']);
});

test('source option errors name the source and the value; a def without its resolved config is refused', () => {
  assert.throws(() => source({}, { PIPEC_KAFKA_BROKERS: 'h:1' }), (e: Error) => e instanceof KafkaOptionError && /source 'orders'.*'topic'/.test(e.message));
  assert.throws(() => source({ topic: 't', startup: 'beginning' }, { PIPEC_KAFKA_BROKERS: 'h:1' }), /startup must be earliest, latest or committed, not 'beginning'/);
  assert.throws(() => source({ topic: 't' }, {}), /no Kafka brokers/);
  assert.throws(() => source({ topic: 't' }, { PIPEC_KAFKA_BROKERS: 'h:1' }, undefined, false), (e: Error) => e instanceof KafkaOptionError && /source 'orders': no resolved kafka configuration/.test(e.message));
  assert.throws(() => sink('a', { topic: 'o' }, { PIPEC_KAFKA_BROKERS: 'h:1' }, undefined, false), /sink 'a': no resolved kafka configuration/);
});

test('sink: acks=all and idempotence by default, the commit-marker group named after the transactional id; weaker acks or idempotence=false give a plain producer; exactly-once forces both', () => {
  const env = { PIPEC_KAFKA_BROKERS: 'h:1' };
  const d = sink('alerts', { topic: 'out', key: ' region , id ' }, env, 'shop');
  assert.deepEqual(
    [d.brokers, d.config.topic, d.config.keyColumns, d.config.delivery, d.config.acks, d.config.idempotent, d.transactionalId, d.commitGroup],
    [['h:1'], 'out', ['region', 'id'], 'at-least-once', 'all', true, 'pipec-shop-alerts', 'pipec-shop-alerts-commits'],
  );
  assert.equal(sink('a', { topic: 'o', transactional_id: 'tx1' }, env).commitGroup, 'tx1-commits', 'the marker group follows a chosen transactional id');
  assert.deepEqual([sink('a', { topic: 'o', acks: '1' }, env).config.acks, sink('a', { topic: 'o', acks: '1' }, env).config.idempotent], ['1', false]);
  assert.equal(sink('a', { topic: 'o', idempotence: 'false' }, env).config.idempotent, false);
  assert.equal(sink('a', { topic: 'o', 'enable.idempotence': 'false' }, env).config.idempotent, false);
  const eos = sink('a', { topic: 'o', acks: '1', delivery: 'exactly-once' }, env).config;
  assert.deepEqual([eos.acks, eos.idempotent, eos.delivery], ['all', true, 'exactly-once']);
  assert.throws(() => sink('a', { topic: 'o', delivery: 'twice' }, env), /delivery must be at-least-once or exactly-once, not 'twice'/);
  assert.throws(() => sink('a', { topic: 'o', acks: 'some' }, env), /acks must be all, 0 or 1, not 'some'/);
});
