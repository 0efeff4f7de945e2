// Scale-out of the exactly-once Kafka sink: two members of one pipeline run the same sink at
// the same time (each with its own checkpoint directory, as the runner gives them). Each
// member's transactional id carries its member id, so their transactions commit side by side
// and a read_committed reader sees every row of both members once; a member's restart fences
// only its own earlier incarnation. Two incarnations of the SAME member still fence each other.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { kafkaModule } from '../../../targets/runtime/lib/modules/kafka.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import type { IntervalProgress, KafkaSink } from '../../../targets/runtime/lib/kafka/kafka-sink.ts';
import { createTopic, kafkaEnv, readTopic, unique } from '../kafka/helpers.ts';
import { memberContext } from './context.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

/** Rows are [id, amount]; the encoder stands in for the generated one. */
function sinkDef(topic: string, brokers: string, pipeline: string, options: Record<string, string> = {}): SinkDef {
  const all = { topic, brokers, delivery: 'exactly-once', key: 'id', ...options };
  return {
    id: 'out',
    name: 'out',
    connector: 'kafka',
    options: all,
    // The pipeline names the default transactional id, as the compiler's lowering does.
    config: sinkConfigOf('kafka', 'out', all, pipeline),
    columns: [
      { name: 'id', kind: 'string', nullable: false },
      { name: 'amount', kind: 'int', nullable: true },
    ],
    json: (r) => JSON.stringify({ id: r[0], amount: r[1] }),
    cells: (r) => r.map(String),
  };
}

/** A member's sink as the runner builds it: the registered factory, the member's own checkpoint dir. */
async function memberSink(topic: string, pipeline: string, member: string | null, ck: string, options: Record<string, string> = {}): Promise<KafkaSink> {
  const { brokers } = await kafkaEnv();
  const ctx = memberContext({ pipeline, member, checkpointDir: path.join(ck, member ?? 'single') });
  return kafkaModule.sinks!.kafka!(sinkDef(topic, brokers, pipeline, options), ctx) as KafkaSink;
}

/**
 * A marker group's committed offset. With `expect`, waits up to 10 s for it: a transaction's
 * offset commit becomes visible to OffsetFetch once its commit markers are written, a moment
 * after the producer's commit returns.
 */
async function marker(group: string, topic: string, expect?: string): Promise<string | undefined> {
  const { admin } = await kafkaEnv();
  const t0 = Date.now();
  for (;;) {
    const got = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    const v = got[0]?.partitions.find((p) => p.partition === 0)?.offset;
    if (expect === undefined || v === expect || Date.now() - t0 > 10_000) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const row = (id: string, amount: number): string => JSON.stringify({ id, amount });
const sorted = (ms: { value: string | null }[]): string[] => ms.map((m) => m.value ?? 'TOMBSTONE').sort();

test('two members, default transactional ids: concurrent transactions of both commit, read_committed sees every row of both once, each member has its own marker', { timeout: 120_000 }, async () => {
  const topic = await createTopic(2, 'scale-eos');
  const pipeline = unique('scale');
  const ck = tempDir('pipec-scale-kafka-');
  const a = await memberSink(topic, pipeline, 'm0', ck);
  const b = await memberSink(topic, pipeline, 'm1', ck);
  assert.equal(a.transactionalId, `pipec-${pipeline}-out-m0`);
  assert.equal(b.commitGroup, `pipec-${pipeline}-out-m1-commits`);
  const expected: string[] = [];
  try {
    a.open(null);
    b.open(null);
    for (let round = 1; round <= 3; round++) {
      // Both members write rows (different keys, equal amounts) and reach the checkpoint together.
      for (let i = 0; i < 20; i++) {
        for (const [s, m] of [[a, 'm0'], [b, 'm1']] as const) {
          s.write([`${m}-${round}-${i}`, i]);
          expected.push(row(`${m}-${round}-${i}`, i));
        }
      }
      const [pa, pb] = (await Promise.all([a.commit(), b.commit()])) as IntervalProgress[];
      assert.deepEqual([pa!.seq, pb!.seq], [round, round], 'each member numbers its own intervals');
      // Both transactions are open at the same time on one topic.
      await Promise.all([a.afterCheckpoint(), b.afterCheckpoint()]);
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  assert.deepEqual(sorted(await readTopic(topic, 'read_committed', { expect: expected.length })), expected.sort());
  assert.equal(await marker(`pipec-${pipeline}-out-m0-commits`, topic, '3'), '3');
  assert.equal(await marker(`pipec-${pipeline}-out-m1-commits`, topic, '3'), '3');
  // kafkajs reports a group without an offset as -1.
  assert.equal((await marker(`pipec-${pipeline}-out-commits`, topic)) ?? '-1', '-1', 'no member wrote the single-process marker');
});

test('an explicit transactional_id gets -<member>; a member restarting after a crash publishes its interval once and fences only itself', { timeout: 120_000 }, async () => {
  const topic = await createTopic(1, 'scale-eos');
  const tid = unique('tx');
  const pipeline = unique('scale');
  const ck = tempDir('pipec-scale-kafka-');
  const a = await memberSink(topic, pipeline, 'm0', ck, { transactional_id: tid });
  const b = await memberSink(topic, pipeline, 'm1', ck, { transactional_id: tid });
  assert.deepEqual([a.transactionalId, b.transactionalId], [`${tid}-m0`, `${tid}-m1`]);
  a.open(null);
  b.open(null);
  a.write(['a1', 1]);
  b.write(['b1', 1]);
  const pa = JSON.parse(JSON.stringify(await a.commit())) as IntervalProgress;
  await b.commit();
  // Member m0 dies after its checkpoint, before its transaction; m1 goes on.
  await a.close();
  const a2 = await memberSink(topic, pipeline, 'm0', ck, { transactional_id: tid });
  try {
    a2.open(pa);
    await a2.commit(); // waits for the recovery
    await b.afterCheckpoint(); // m1 was not fenced by m0's new incarnation
    b.write(['b2', 2]);
    await b.commit();
    await b.afterCheckpoint();
  } finally {
    await Promise.all([a2.close(), b.close()]);
  }
  assert.deepEqual(sorted(await readTopic(topic, 'read_committed', { expect: 3 })), [row('a1', 1), row('b1', 1), row('b2', 2)]);
  assert.equal(await marker(`${tid}-m0-commits`, topic, '1'), '1');
  assert.equal(await marker(`${tid}-m1-commits`, topic, '2'), '2');
});

test('two incarnations of the same member share the transactional id: the newer fences the older (as a single-process restart does)', { timeout: 120_000 }, async () => {
  const topic = await createTopic(1, 'scale-eos');
  const pipeline = unique('scale');
  const ck = tempDir('pipec-scale-kafka-');
  const old = await memberSink(topic, pipeline, 'm0', ck);
  old.open(null);
  old.write(['x', 1]);
  await old.commit();
  const newer = await memberSink(topic, pipeline, 'm0', ck);
  try {
    newer.open(null);
    await newer.commit(); // connected: the old producer's epoch is over
    await assert.rejects(old.afterCheckpoint(), (e: Error) => /sink 'out': publishing interval 1 failed/.test(e.message) && /fenc|epoch/i.test(e.message));
    newer.write(['y', 2]);
    await newer.commit();
    await newer.afterCheckpoint();
  } finally {
    await old.close().catch(() => undefined);
    await newer.close();
  }
  assert.deepEqual(sorted(await readTopic(topic, 'read_committed', { expect: 1 })), [row('y', 2)]);
});
