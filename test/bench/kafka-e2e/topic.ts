// The benchmark's input topic: reused when a topic of the expected name already holds exactly
// the expected records (every partition's offsets, keys and value bytes are compared with the
// generator), otherwise (re)created and produced. The full comparison is one bare consume of
// the whole topic, which doubles as the benchmark's untimed warm-up round.
import type { Admin, Kafka } from 'kafkajs';
import { PARTITIONS, keyOf, order, type Order } from './events.ts';

export interface TopicSpec {
  topic: string;
  /** Event indexes per partition, in offset order (`layout(n)`). */
  parts: Int32Array[];
  /** The value bytes of an order, as produced. */
  encode: (o: Order) => Buffer;
}

/** What a full read of the topic found: null when it matches the spec exactly, else why not. */
export async function verifyTopic(kafka: Kafka, spec: TopicSpec, groupId: string): Promise<string | null> {
  const expected = spec.parts.reduce((a, p) => a + p.length, 0);
  const seen = spec.parts.map((p) => new Uint8Array(p.length));
  let problem: string | null = null;
  let n = 0;
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: spec.topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`verifying ${spec.topic}: only ${n} of ${expected} records arrived within 120 s`)), 120_000);
      const finish = (): void => {
        clearTimeout(timer);
        resolve();
      };
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const p = batch.partition;
            for (const m of batch.messages) {
              const off = Number(m.offset);
              const idx = spec.parts[p]?.[off];
              if (idx === undefined) problem ??= `partition ${p} has an unexpected offset ${off}`;
              else {
                const o = order(idx);
                if (seen[p]![off]!++ > 0) problem ??= `partition ${p} offset ${off} delivered twice`;
                if (m.key?.toString('utf8') !== keyOf(o)) problem ??= `partition ${p} offset ${off}: key differs from event ${idx}'s`;
                if (!m.value || !m.value.equals(spec.encode(o))) problem ??= `partition ${p} offset ${off}: value differs from event ${idx}'s`;
              }
              n++;
            }
            if (n >= expected || problem !== null) finish();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return problem;
}

/** Offsets say the topic has exactly the expected partitions and record counts (cheap first check). */
async function shapeMatches(admin: Admin, spec: TopicSpec): Promise<boolean> {
  if (!(await admin.listTopics()).includes(spec.topic)) return false;
  const offs = await admin.fetchTopicOffsets(spec.topic);
  if (offs.length !== PARTITIONS) return false;
  return offs.every((o) => Number(o.low) === 0 && Number(o.high) === spec.parts[o.partition]?.length);
}

async function recreate(admin: Admin, topic: string): Promise<void> {
  if ((await admin.listTopics()).includes(topic)) {
    await admin.deleteTopics({ topics: [topic], timeout: 30_000 });
    // Deletion is asynchronous on the broker: creating the name again too early fails.
    for (let i = 0; i < 100 && (await admin.listTopics()).includes(topic); i++) await new Promise((r) => setTimeout(r, 200));
  }
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
}

/** Each partition's records in offset order, the partitions in parallel (order within a partition is kept). */
async function produce(kafka: Kafka, spec: TopicSpec): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const CHUNK = 5_000;
    await Promise.all(
      spec.parts.map(async (idxs, partition) => {
        for (let base = 0; base < idxs.length; base += CHUNK) {
          const messages = [];
          for (let k = base; k < Math.min(idxs.length, base + CHUNK); k++) {
            const o = order(idxs[k]!);
            messages.push({ partition, key: keyOf(o), value: spec.encode(o) });
          }
          await producer.send({ topic: spec.topic, acks: -1, messages });
        }
      }),
    );
  } finally {
    await producer.disconnect();
  }
}

/**
 * Makes sure `spec.topic` holds exactly the expected records; returns what was done, for the
 * report. `groupId(tag)` names fresh consumer groups for the verifying reads.
 */
export async function ensureTopic(kafka: Kafka, admin: Admin, spec: TopicSpec, groupId: (tag: string) => string): Promise<string> {
  if (await shapeMatches(admin, spec)) {
    const t0 = performance.now();
    const problem = await verifyTopic(kafka, spec, groupId('verify'));
    if (problem === null) return `reused topic ${spec.topic} (every record checked in ${((performance.now() - t0) / 1000).toFixed(1)} s)`;
    process.stdout.write(`topic ${spec.topic} exists but ${problem}: producing it again\n`);
  }
  await recreate(admin, spec.topic);
  const t0 = performance.now();
  await produce(kafka, spec);
  const ms = performance.now() - t0;
  if (!(await shapeMatches(admin, spec))) throw new Error(`topic ${spec.topic}: record counts differ from what was produced`);
  const problem = await verifyTopic(kafka, spec, groupId('verify'));
  if (problem !== null) throw new Error(`topic ${spec.topic} after producing: ${problem}`);
  const n = spec.parts.reduce((a, p) => a + p.length, 0);
  return `produced topic ${spec.topic}: ${n.toLocaleString('en-US')} records in ${(ms / 1000).toFixed(1)} s (${Math.round((n * 1000) / ms).toLocaleString('en-US')} msg/s), every record checked`;
}
