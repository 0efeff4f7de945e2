// Kafka client choice by measurement: produces 1M small JSON messages once into a fresh
// multi-partition topic on the real test broker, then consumes all of them with each client
// (bare loop, new consumer group, from earliest) and checks every offset is seen exactly once.
// Run alone: node --import tsx test/bench/kafka-clients.bench.ts  (KAFKA_BENCH_N, KAFKA_BENCH_ROUNDS)
import { Kafka, logLevel } from 'kafkajs';
import { Consumer as PConsumer, Admin as PAdmin } from '@platformatic/kafka';
import { ensureServices } from '../support/services.ts';

const N = Number(process.env.KAFKA_BENCH_N ?? 1_000_000);
const ROUNDS = Number(process.env.KAFKA_BENCH_ROUNDS ?? 1);
const PARTITIONS = 4;

const env = await ensureServices(['kafka']);
const brokers = env.PIPEC_KAFKA_BROKERS!.split(',');
const topic = `bench-clients-${process.pid}-${Date.now()}`;

const kafka = new Kafka({ clientId: 'bench', brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });

// ---------------------------------------------------------------- produce once
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();
const t0 = performance.now();
const CHUNK = 10_000;
for (let base = 0; base < N; base += CHUNK) {
  const messages = [];
  for (let i = base; i < Math.min(N, base + CHUNK); i++) {
    messages.push({ partition: i % PARTITIONS, value: `{"id":${i},"customer":"c${i % 997}","amount":"${(i % 10000) / 100}","ts":${1700000000000 + i}}` });
  }
  await producer.send({ topic, acks: -1, messages });
}
const produceMs = performance.now() - t0;
await producer.disconnect();
const ends = await admin.fetchTopicOffsets(topic);
const endOf = new Map(ends.map((e) => [e.partition, Number(e.high)]));
const total = [...endOf.values()].reduce((a, b) => a + b, 0);
if (total !== N) throw new Error(`produced ${N}, topic holds ${total}`);
console.log(`produced ${N} messages (${PARTITIONS} partitions) with kafkajs in ${(produceMs / 1000).toFixed(1)} s (${Math.round((N * 1000) / produceMs)} msg/s)`);

/** Per partition, how many times each offset was seen. */
class Seen {
  private readonly counts = new Map<number, Uint8Array>();
  n = 0;
  constructor() {
    for (const [p, end] of endOf) this.counts.set(p, new Uint8Array(end));
  }
  see(p: number, offset: number): void {
    const c = this.counts.get(p)!;
    if (c[offset]! < 255) c[offset]!++;
    this.n++;
  }
  verdict(): string {
    let missing = 0;
    let dup = 0;
    for (const c of this.counts.values()) for (const x of c) x === 0 ? missing++ : x > 1 ? (dup += x - 1) : 0;
    return missing === 0 && dup === 0 ? 'every offset exactly once' : `WRONG: ${missing} offsets missing, ${dup} duplicates`;
  }
}

async function consumeKafkajs(round: number): Promise<{ ms: number; seen: Seen }> {
  const seen = new Seen();
  const consumer = kafka.consumer({ groupId: `${topic}-kafkajs-${round}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const t = performance.now();
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      const p = batch.partition;
      for (const m of batch.messages) seen.see(p, Number(m.offset));
      if (seen.n >= N) resolveDone();
    },
  });
  await done;
  const ms = performance.now() - t;
  await consumer.disconnect();
  return { ms, seen };
}

async function consumePlatformatic(round: number): Promise<{ ms: number; seen: Seen }> {
  const seen = new Seen();
  const consumer = new PConsumer({ clientId: 'bench', bootstrapBrokers: brokers, groupId: `${topic}-platformatic-${round}` });
  const t = performance.now();
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (m) => {
      seen.see(m.partition, Number(m.offset));
      if (seen.n >= N) resolve();
    });
    stream.on('error', reject);
  });
  const ms = performance.now() - t;
  await stream.close();
  await consumer.close(true);
  return { ms, seen };
}

const results: { client: string; ms: number; verdict: string }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate the order across rounds so neither client always runs on a warmer page cache.
  const order = r % 2 === 0 ? (['kafkajs', 'platformatic'] as const) : (['platformatic', 'kafkajs'] as const);
  for (const c of order) {
    const { ms, seen } = c === 'kafkajs' ? await consumeKafkajs(r) : await consumePlatformatic(r);
    const name = c === 'kafkajs' ? 'kafkajs 2.2.4' : '@platformatic/kafka 1.22.0';
    results.push({ client: name, ms, verdict: seen.verdict() });
    console.log(`round ${r + 1}: ${name.padEnd(28)} ${seen.n} messages in ${(ms / 1000).toFixed(2)} s = ${Math.round((N * 1000) / ms).toLocaleString('en-US')} rows/s — ${seen.verdict()}`);
  }
}
const best = (name: string): number => Math.min(...results.filter((x) => x.client.startsWith(name)).map((x) => x.ms));
const kj = best('kafkajs');
const pk = best('@platformatic');
console.log(`\nbest of ${ROUNDS}: kafkajs ${Math.round((N * 1000) / kj).toLocaleString('en-US')} rows/s, @platformatic/kafka ${Math.round((N * 1000) / pk).toLocaleString('en-US')} rows/s, ratio ${(kj / pk).toFixed(2)}x`);

const padmin = new PAdmin({ clientId: 'bench', bootstrapBrokers: brokers });
await padmin.deleteTopics({ topics: [topic] });
await padmin.close();
await admin.disconnect();
if (results.some((r) => !r.verdict.startsWith('every'))) process.exitCode = 1;
