// The `kafka` sink: JSON values from the generated encoder (SinkDef.json), keys from the `key`
// columns, an idempotent producer with acks=all by default. With `delivery = 'exactly-once'`
// the rows of one checkpoint interval and the consumed offsets go out in one transaction.
import { Kafka, logLevel, type Producer, type Message } from 'kafkajs';
import type { Row } from '../ops/types.ts';
import type { RunningSink, SinkDef } from '../io/sinks.ts';
import { sinkOptions, type KafkaSinkOptions } from './options.ts';

/** What a transaction commits besides the rows: the consumed offsets of a consumer group. */
export type TransactionOffsets = { consumerGroupId: string; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] };

export interface KafkaSinkConfig {
  env: Record<string, string | undefined>;
  /** Pipeline name, for the default transactional id. */
  pipeline?: string;
  /**
   * Exactly-once: the source offsets the rows written so far were computed from (each Kafka
   * source's `transactionOffsets(position())`), sent inside the transaction.
   */
  offsets?: () => TransactionOffsets | TransactionOffsets[] | null;
}

/** Rows sent in one request: bounded so a large interval does not become one huge request. */
const SEND_CHUNK = 10_000;

export class KafkaSink implements RunningSink {
  rowsOut = 0;
  readonly opts: KafkaSinkOptions;
  private readonly producer: Producer;
  private connected: Promise<void> | null = null;
  private pending: Message[] = [];
  /** At-least-once: the sends started by flush(), chained so rows keep their order. */
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private readonly keyIdx: number[];
  /** Offsets sent in the last committed transaction (JSON), to skip empty transactions. */
  private lastOffsets = '[]';

  constructor(
    readonly def: SinkDef,
    private readonly cfg: KafkaSinkConfig,
  ) {
    this.opts = sinkOptions(def.name, def.options, cfg.env, cfg.pipeline);
    this.keyIdx = this.opts.keyColumns.map((k) => {
      const i = def.columns.findIndex((c) => c.name === k);
      if (i < 0) throw new Error(`sink '${def.name}': key column '${k}' is not a column of the sink`);
      return i;
    });
    const kafka = new Kafka({
      clientId: `pipec-${def.name}`,
      brokers: this.opts.brokers,
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 60 },
    });
    const eos = this.opts.delivery === 'exactly-once';
    this.producer = kafka.producer({
      // Idempotence needs acks=all; a sink that asked for weaker acks gets a plain producer.
      idempotent: this.opts.idempotent,
      maxInFlightRequests: this.opts.idempotent ? 1 : undefined,
      allowAutoTopicCreation: false,
      ...(eos ? { transactionalId: this.opts.transactionalId } : {}),
    });
  }

  open(_progress: unknown): void {
    // Connecting also fences an earlier incarnation's open transaction (same transactional id).
    this.connected = this.producer.connect();
    this.connected.catch((e: Error) => (this.failure = e));
  }

  write(row: Row): void {
    this.rowsOut++;
    const json = this.def.json(row);
    this.pending.push({ key: this.key(row, json), value: json });
  }

  /** The key: one column's JSON-formatted value as text (strings unquoted); several → a JSON object. */
  private key(row: Row, json: string): string | null {
    const idx = this.keyIdx;
    if (idx.length === 0) return null;
    // The value formats (DECIMAL scale, TIMESTAMP text, BIGINT range) are the encoder's: take
    // the key fields from its output rather than formatting them a second way.
    const obj = JSON.parse(json) as Record<string, unknown>;
    if (idx.length === 1) {
      const v = obj[this.def.columns[idx[0]!]!.name];
      return v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v);
    }
    const k: Record<string, unknown> = {};
    for (const i of idx) k[this.def.columns[i]!.name] = obj[this.def.columns[i]!.name] ?? null;
    void row;
    return JSON.stringify(k);
  }

  flush(): void {
    // Exactly-once output leaves only inside the checkpoint's transaction.
    if (this.opts.delivery === 'exactly-once' || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    // Concurrent send() calls may complete in any order; one after another keeps row order.
    this.chain = this.chain.then(() => this.send(batch));
    this.chain.catch((e: Error) => (this.failure = e));
  }

  private async send(messages: Message[]): Promise<void> {
    await this.connected;
    for (let i = 0; i < messages.length; i += SEND_CHUNK) {
      await this.producer.send({ topic: this.opts.topic, acks: this.opts.acks, messages: messages.slice(i, i + SEND_CHUNK) });
    }
  }

  async commit(): Promise<unknown> {
    if (this.failure !== null) throw this.failure;
    await this.connected;
    if (this.opts.delivery === 'exactly-once') {
      const rows = this.pending;
      this.pending = [];
      // Read at commit time: no row is processed while the checkpoint runs, so these are
      // exactly the offsets the rows were computed from.
      const readOffsets = (): TransactionOffsets[] => {
        const got = this.cfg.offsets?.() ?? null;
        return (got === null ? [] : Array.isArray(got) ? got : [got]).filter((o) => o.topics.some((t) => t.partitions.length > 0));
      };
      let offsets: TransactionOffsets[] | null = null;
      if (rows.length === 0) {
        offsets = readOffsets();
        // Nothing new: an empty transaction would only cost a round of coordinator requests.
        if (JSON.stringify(offsets) === this.lastOffsets) return null;
      }
      const tx = await this.producer.transaction();
      try {
        for (let i = 0; i < rows.length; i += SEND_CHUNK) await tx.send({ topic: this.opts.topic, messages: rows.slice(i, i + SEND_CHUNK) });
        offsets ??= readOffsets();
        for (const o of offsets) await retryConcurrent(() => tx.sendOffsets(o));
        await tx.commit();
      } catch (e) {
        await tx.abort().catch(() => undefined);
        throw e;
      }
      this.lastOffsets = JSON.stringify(offsets);
      return null;
    }
    this.flush();
    await this.chain;
    if (this.failure !== null) throw this.failure;
    return null;
  }

  async close(): Promise<void> {
    try {
      // Exactly-once rows not covered by a checkpoint are dropped: the resumed run recomputes them.
      if (this.connected !== null && this.failure === null && this.opts.delivery === 'at-least-once') await this.commit();
    } finally {
      await this.producer.disconnect();
    }
  }
}

/**
 * The coordinator answers CONCURRENT_TRANSACTIONS while it still completes this producer's
 * previous transaction; the client does not retry that request itself.
 */
async function retryConcurrent(f: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await f();
    } catch (e) {
      if ((e as { type?: string }).type !== 'CONCURRENT_TRANSACTIONS' || attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
    }
  }
}
