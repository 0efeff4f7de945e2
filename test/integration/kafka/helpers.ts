// Shared helpers of the Kafka integration tests: the real broker, fresh topics, a recording
// SourceSink, and a source definition with a hand-written decoder (id + metadata columns).
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { ensureServices } from '../../support/services.ts';
import type { Coordinates, SourceDef, SourceSink } from '../../../targets/runtime/lib/io/source-types.ts';
import type { Row } from '../../../targets/runtime/lib/ops/types.ts';
import { KafkaSource, META, type KafkaMeta, type KafkaSourceHooks } from '../../../targets/runtime/lib/kafka/kafka-source.ts';
import { sourceConfigOf } from '../../support/resolved-config.ts';

export interface Env {
  brokers: string;
  kafka: Kafka;
  admin: Admin;
}

let envP: Promise<Env> | null = null;
export function kafkaEnv(): Promise<Env> {
  envP ??= (async () => {
    const s = await ensureServices(['kafka']);
    const brokers = s.PIPEC_KAFKA_BROKERS!;
    const kafka = new Kafka({ clientId: 'pipec-test', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    return { brokers, kafka, admin };
  })();
  return envP;
}

let seq = 0;
export function unique(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now()}-${seq++}`;
}

/**
 * A fresh topic whose partitions all have a leader. (kafkajs' own `waitForLeaders` gives up when
 * the broker still answers UNKNOWN_TOPIC_OR_PARTITION just after the creation, which happens on
 * a busy shared broker now and then.)
 */
export async function createTopic(partitions: number, prefix = 'it'): Promise<string> {
  const { admin } = await kafkaEnv();
  const topic = unique(prefix);
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: false });
  const t0 = Date.now();
  for (;;) {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => null);
    const parts = meta?.topics[0]?.partitions ?? [];
    if (parts.length === partitions && parts.every((p) => p.leader >= 0)) return topic;
    if (Date.now() - t0 > 30_000) throw new Error(`topic ${topic} has no leader for every partition after 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Produces `values` to one partition, in order (a plain, non-transactional producer). */
export async function produce(topic: string, partition: number, values: (string | null)[], key: string | null = null): Promise<void> {
  const { kafka } = await kafkaEnv();
  const p = kafka.producer();
  await p.connect();
  await p.send({ topic, acks: -1, messages: values.map((value) => ({ partition, key, value })) });
  await p.disconnect();
}

/** What a source handed to the runner. */
export class Recorder implements SourceSink {
  readonly ids: string[] = [];
  readonly rows: { p: number; row: Row }[] = [];
  readonly deadLetters: { coords: Coordinates & { topic?: string }; reason: string; raw: string }[] = [];
  readonly done: number[] = [];
  readonly warnings: string[] = [];
  warn(message: string): void {
    this.warnings.push(message);
  }
  row(p: number, row: Row): void {
    this.rows.push({ p, row });
  }
  dead(coords: Coordinates, reason: string, raw: string): void {
    this.deadLetters.push({ coords, reason, raw });
  }
  partitionAdded(id: string): number {
    const i = this.ids.indexOf(id);
    if (i >= 0) return i;
    this.ids.push(id);
    return this.ids.length - 1;
  }
  partitionDone(p: number): void {
    this.done.push(p);
  }
  readonly revoked: number[] = [];
  partitionRevoked(p: number): void {
    this.revoked.push(p);
  }
  partitionReassigned(p: number): void {
    this.revoked.splice(this.revoked.indexOf(p), 1);
  }
  /** Row values (`id` column) per partition id, in arrival order. */
  byPartition(): Record<string, unknown[]> {
    const out: Record<string, unknown[]> = {};
    for (const { p, row } of this.rows) (out[this.ids[p]!] ??= []).push(row[0]);
    return out;
  }
}
/**
 * Columns: id STRING NOT NULL, then metadata offset, partition, timestamp, key, topic.
 * The decoder is written by hand (the generated one lives in the runtime target).
 */
export function sourceDef(name: string, options: Record<string, string>): SourceDef {
  return {
    id: name,
    name,
    connector: 'kafka',
    format: 'json',
    options,
    config: sourceConfigOf('kafka', name, options),
    columns: [
      { name: 'id', kind: 'string', nullable: false },
      // Declared as metadata columns, as the code generator does: the source attaches record
      // metadata only when some column reads it.
      { name: 'k_offset', kind: 'bigint', nullable: false, meta: 'offset' },
      { name: 'k_partition', kind: 'int', nullable: false, meta: 'partition' },
      { name: 'k_ts', kind: 'timestamp', nullable: false, meta: 'timestamp' },
      { name: 'k_key', kind: 'string', nullable: true, meta: 'key' },
      { name: 'k_topic', kind: 'string', nullable: false, meta: 'topic' },
    ],
    decode: (o, e) => {
      if (typeof o.id !== 'string') {
        e.column = 'id';
        e.reason = `expected a string, got ${JSON.stringify(o.id ?? null)}`;
        return null;
      }
      const m = o[META] as KafkaMeta;
      return [o.id, m.offset, m.partition, m.timestamp, m.key, m.topic];
    },
    timeIndex: -1,
    delayMs: 0,
    idleTimeoutMs: null,
  };
}

export async function newSource(name: string, topic: string, options: Record<string, string>, hooks?: KafkaSourceHooks, rec = new Recorder()): Promise<{ src: KafkaSource; rec: Recorder }> {
  const { brokers } = await kafkaEnv();
  const src = new KafkaSource(sourceDef(name, { topic, brokers, ...options }), rec, { env: {}, hooks, clientId: unique('member') });
  return { src, rec };
}

/** Polls until `until()` holds (then `settleMs` more, to catch extra records) or the timeout. */
export async function pollUntil(srcs: KafkaSource[], until: () => boolean, timeoutMs = 30_000, settleMs = 0): Promise<void> {
  const t0 = Date.now();
  while (!until()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`condition not reached within ${timeoutMs} ms`);
    let n = 0;
    for (const s of srcs) n += await s.poll(512);
    if (n === 0) await new Promise((r) => setTimeout(r, 20));
  }
  const t1 = Date.now();
  while (Date.now() - t1 < settleMs) {
    for (const s of srcs) await s.poll(512);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface TopicMessage {
  partition: number;
  key: string | null;
  /** null = a tombstone. */
  value: string | null;
}

/**
 * Reads a whole topic with an independent kafkajs consumer (its own group, from the start).
 * Returns once `expect` messages arrived and `settleMs` more passed without news (extra
 * messages would show up as a failure), or after `timeoutMs`. Without `expect` it waits for
 * the group join (a few seconds) and then for `settleMs` of silence.
 */
export async function readTopic(
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted',
  opts: { expect?: number; settleMs?: number; timeoutMs?: number } = {},
): Promise<TopicMessage[]> {
  const { kafka } = await kafkaEnv();
  const settleMs = opts.settleMs ?? 2000;
  const c = kafka.consumer({ groupId: unique('reader'), readUncommitted: isolation === 'read_uncommitted' });
  const got: TopicMessage[] = [];
  let last = Date.now();
  await c.connect();
  try {
    await c.subscribe({ topics: [topic], fromBeginning: true });
    await c.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, key: message.key?.toString() ?? null, value: message.value?.toString() ?? null });
        last = Date.now();
      },
    });
    const t0 = Date.now();
    const enough = (): boolean => (opts.expect === undefined ? Date.now() - t0 >= 4000 : got.length >= opts.expect);
    while ((!enough() || Date.now() - last < settleMs) && Date.now() - t0 < (opts.timeoutMs ?? 60_000)) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await c.disconnect();
  }
  return got;
}
