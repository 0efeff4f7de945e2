// The Kafka sink against the real broker: keys and JSON values, and exactly-once
// transactions that carry the consumed offsets (aborted = invisible to read_committed).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import { KafkaSink } from '../../../targets/runtime/lib/kafka/kafka-sink.ts';
import { createTopic, kafkaEnv, newSource, pollUntil, produce, readTopic, unique } from './helpers.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

/** Rows are [id, region, amount text]; the encoder stands in for the generated one. */
function sinkDef(topic: string, brokers: string, options: Record<string, string>): SinkDef {
  return {
    id: 'out',
    name: 'out',
    connector: 'kafka',
    options: { topic, brokers, ...options },
    config: sinkConfigOf('kafka', 'out', { topic, brokers, ...options }),
    columns: [
      { name: 'id', kind: 'string', nullable: false },
      { name: 'region', kind: 'string', nullable: false },
      { name: 'amount', kind: 'decimal', nullable: false, precision: 10, scale: 2 },
    ],
    json: (r) => JSON.stringify({ id: r[0], region: r[1], amount: r[2] }),
    cells: (r) => r.map(String),
  };
}

test('at-least-once sink: JSON values from the encoder, key from one or several key columns', async () => {
  const { brokers } = await kafkaEnv();
  const one = await createTopic(1, 'sink');
  const two = await createTopic(1, 'sink');
  const s1 = new KafkaSink(sinkDef(one, brokers, { key: 'id' }), { env: {} });
  const s2 = new KafkaSink(sinkDef(two, brokers, { key: 'region, id' }), { env: {} });
  for (const s of [s1, s2]) {
    s.open(null);
    s.write(['c1', 'eu', '10.50']);
    s.flush();
    s.write(['c2', 'us', '0.00']);
    await s.commit();
    await s.close();
  }
  assert.deepEqual((await readTopic(one, 'read_committed', { expect: 2 })).map(({ key, value }) => ({ key, value })), [
    { key: 'c1', value: '{"id":"c1","region":"eu","amount":"10.50"}' },
    { key: 'c2', value: '{"id":"c2","region":"us","amount":"0.00"}' },
  ]);
  assert.deepEqual(
    (await readTopic(two, 'read_committed', { expect: 2 })).map((m) => m.key),
    ['{"region":"eu","id":"c1"}', '{"region":"us","id":"c2"}'],
  );
  assert.equal(s1.rowsOut, 2);
});

test('exactly-once sink: an aborted transaction is invisible to read_committed, a committed one is seen once, and its offsets move the group', async () => {
  const { brokers, admin } = await kafkaEnv();
  const input = await createTopic(2, 'eos-in');
  const output = await createTopic(1, 'eos-out');
  const group = unique('eos-group');
  await produce(input, 0, ['i0', 'i1'].map((id) => JSON.stringify({ id })));
  await produce(input, 1, ['i2'].map((id) => JSON.stringify({ id })));
  const { src, rec } = await newSource('in', input, { startup: 'earliest', group_id: group });
  let crash = true;
  const sink = new KafkaSink(sinkDef(output, brokers, { delivery: 'exactly-once', key: 'id', transactional_id: unique('tx') }), {
    env: {},
    offsets: () => {
      if (crash) throw new Error('crash in the middle of the transaction');
      return src.transactionOffsets(src.position());
    },
  });
  try {
    sink.open(null);
    await pollUntil([src], () => rec.rows.length >= 3);
    sink.write(['aborted-1', 'eu', '1.00']);
    sink.write(['aborted-2', 'eu', '2.00']);
    sink.flush(); // must not leak rows outside the transaction
    await assert.rejects(sink.commit(), /crash in the middle/);
    crash = false;
    sink.write(['kept-1', 'us', '3.00']);
    sink.write(['kept-2', 'us', '4.00']);
    await sink.commit();

    const committed = await readTopic(output, 'read_committed', { expect: 2 });
    assert.deepEqual(
      committed.map((m) => m.value),
      ['{"id":"kept-1","region":"us","amount":"3.00"}', '{"id":"kept-2","region":"us","amount":"4.00"}'],
    );
    // The aborted rows did reach the log: only the isolation level hides them.
    const raw = await readTopic(output, 'read_uncommitted', { expect: 4 });
    assert.deepEqual(raw.map((m) => m.key).sort(), ['aborted-1', 'aborted-2', 'kept-1', 'kept-2']);
    // The consumed offsets went into the committed transaction: 2 records of partition 0, 1 of partition 1.
    const offs = await admin.fetchOffsets({ groupId: group, topics: [input] });
    assert.deepEqual(offs[0]!.partitions.map((p) => [p.partition, p.offset]).sort(), [
      [0, '2'],
      [1, '1'],
    ]);
  } finally {
    await sink.close();
    await src.close();
  }
});

test('exactly-once sink: rows written after the last commit are not published by close()', async () => {
  const { brokers } = await kafkaEnv();
  const output = await createTopic(1, 'eos-out');
  const sink = new KafkaSink(sinkDef(output, brokers, { delivery: 'exactly-once', transactional_id: unique('tx') }), { env: {} });
  sink.open(null);
  sink.write(['a', 'eu', '1.00']);
  await sink.commit();
  sink.write(['not-checkpointed', 'eu', '2.00']);
  await sink.close();
  assert.deepEqual((await readTopic(output, 'read_uncommitted')).map((m) => JSON.parse(m.value!).id), ['a']);
});

test('a Kafka source in read_committed mode never sees aborted transactional records', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'eos-src');
  let crash = true;
  const sink = new KafkaSink(sinkDef(topic, brokers, { delivery: 'exactly-once', transactional_id: unique('tx') }), {
    env: {},
    offsets: () => {
      if (crash) throw new Error('boom');
      return null;
    },
  });
  sink.open(null);
  sink.write(['gone', 'eu', '1.00']);
  await assert.rejects(sink.commit(), /boom/);
  crash = false;
  sink.write(['seen', 'eu', '2.00']);
  await sink.commit();
  await sink.close();
  const { src, rec } = await newSource('s', topic, { startup: 'earliest', group_id: unique('g') });
  try {
    await pollUntil([src], () => rec.rows.length >= 1, 30_000, 1500);
    assert.deepEqual(rec.rows.map((r) => r.row[0]), ['seen']);
    assert.deepEqual(rec.deadLetters, []);
  } finally {
    await src.close();
  }
});
