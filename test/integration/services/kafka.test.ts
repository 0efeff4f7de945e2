// Smoke test of the Kafka test service: 10,000 messages produced and consumed back through a real KRaft broker
// with kafkajs, checking nothing is lost or duplicated and per-partition order holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { ensureServices } from '../../support/services.ts';

const TOTAL = 10_000;
const PARTITIONS = 3;

test('10,000 messages round-trip through the broker with kafkajs', { timeout: 240_000 }, async (t) => {
  const env = await ensureServices(['kafka']);
  const kafka = new Kafka({ clientId: 'pipec-smoke', brokers: env['PIPEC_KAFKA_BROKERS']!.split(','), logLevel: logLevel.NOTHING });
  const topic = `smoke-${process.pid}-${Date.now()}`;

  const admin = kafka.admin();
  await admin.connect();
  t.after(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });
  assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true }), true);

  const producer = kafka.producer();
  await producer.connect();
  for (let start = 0; start < TOTAL; start += 1000) {
    const messages = Array.from({ length: 1000 }, (_, i) => ({ key: `k${(start + i) % 97}`, value: String(start + i) }));
    await producer.send({ topic, messages, acks: -1 });
  }
  await producer.disconnect();

  // The broker's own offsets must account for every message before we consume.
  const offsets = await admin.fetchTopicOffsets(topic);
  assert.equal(offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0), TOTAL);

  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  t.after(() => consumer.disconnect());
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: number[] = [];
  const lastPerKey = new Map<string, number>();
  let outOfOrder = 0;
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        const value = Number(message.value!.toString());
        const key = message.key!.toString();
        // Same key → same partition → produced order must be consumed order.
        if ((lastPerKey.get(key) ?? -1) > value) outOfOrder += 1;
        lastPerKey.set(key, value);
        values.push(value);
        if (values.length >= TOTAL) resolve();
      },
    });
  });
  await Promise.race([
    done,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`consumed only ${values.length}/${TOTAL}`)), 180_000).unref()),
  ]);

  assert.equal(values.length, TOTAL);
  assert.equal(new Set(values).size, TOTAL);
  assert.equal(Math.min(...values), 0);
  assert.equal(Math.max(...values), TOTAL - 1);
  assert.equal(outOfOrder, 0);
  assert.equal(lastPerKey.size, 97);
});
