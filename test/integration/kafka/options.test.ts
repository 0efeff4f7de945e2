// Kafka connector options as the runtime reads them: defaults, broker list from the
// environment, producer settings implied by acks/idempotence/delivery, and rejected values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaOptionError, sinkOptions, sourceOptions } from '../../../targets/runtime/lib/kafka/options.ts';

test('source defaults: committed startup, brokers from PIPEC_KAFKA_BROKERS, group named after pipeline and source', () => {
  const o = sourceOptions('orders', { topic: 't' }, { PIPEC_KAFKA_BROKERS: 'h1:9092, h2:9093' }, 'shop');
  assert.deepEqual(o, { brokers: ['h1:9092', 'h2:9093'], topic: 't', groupId: 'pipec-shop-orders', startup: 'committed', maxBytesPerPartition: 1048576 });
  assert.equal(sourceOptions('orders', { topic: 't', brokers: 'x:1', group_id: 'mine', startup: 'latest' }, {}).groupId, 'mine');
  assert.deepEqual(sourceOptions('orders', { topic: 't', brokers: 'x:1' }, { PIPEC_KAFKA_BROKERS: 'ignored:1' }).brokers, ['x:1']);
});

test('source option errors name the source and the value', () => {
  assert.throws(() => sourceOptions('orders', {}, { PIPEC_KAFKA_BROKERS: 'h:1' }), (e: Error) => e instanceof KafkaOptionError && /source 'orders'.*'topic'/.test(e.message));
  assert.throws(() => sourceOptions('orders', { topic: 't', startup: 'beginning' }, { PIPEC_KAFKA_BROKERS: 'h:1' }), /startup must be earliest, latest or committed, not 'beginning'/);
  assert.throws(() => sourceOptions('orders', { topic: 't' }, {}), /no Kafka brokers/);
});

test('sink: acks=all and idempotence by default, the commit-marker group named after the transactional id; weaker acks or idempotence=false give a plain producer; exactly-once forces both', () => {
  const env = { PIPEC_KAFKA_BROKERS: 'h:1' };
  const d = sinkOptions('alerts', { topic: 'out', key: ' region , id ' }, env, 'shop');
  assert.deepEqual(d, { brokers: ['h:1'], topic: 'out', keyColumns: ['region', 'id'], delivery: 'at-least-once', acks: -1, idempotent: true, transactionalId: 'pipec-shop-alerts', commitGroup: 'pipec-shop-alerts-commits' });
  assert.equal(sinkOptions('a', { topic: 'o', transactional_id: 'tx1' }, env).commitGroup, 'tx1-commits', 'the marker group follows a chosen transactional id');
  assert.deepEqual([sinkOptions('a', { topic: 'o', acks: '1' }, env).acks, sinkOptions('a', { topic: 'o', acks: '1' }, env).idempotent], [1, false]);
  assert.equal(sinkOptions('a', { topic: 'o', idempotence: 'false' }, env).idempotent, false);
  assert.equal(sinkOptions('a', { topic: 'o', 'enable.idempotence': 'false' }, env).idempotent, false);
  const eos = sinkOptions('a', { topic: 'o', acks: '1', delivery: 'exactly-once' }, env);
  assert.deepEqual([eos.acks, eos.idempotent, eos.delivery], [-1, true, 'exactly-once']);
  assert.throws(() => sinkOptions('a', { topic: 'o', delivery: 'twice' }, env), /delivery must be at-least-once or exactly-once, not 'twice'/);
  assert.throws(() => sinkOptions('a', { topic: 'o', acks: 'some' }, env), /acks must be all, 0 or 1, not 'some'/);
});
