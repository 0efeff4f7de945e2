// The `kafka` sink: JSON values from the generated encoder (SinkDef.json), keys from the `key`
// columns (or the input's upsert key), an idempotent producer with acks=all by default.
// Changelog input is written upsert-kafka style: '+I'/'+U' → the row (without the encoder's
// `op` field), '-D' → a tombstone; a '-U' followed by the '+U' of its key → that '+U' only, a
// '-U' followed by anything else or by a flush/commit → a tombstone (a filter after a GROUP BY
// dropped the '+U': io/update-pairing.ts); the key is the upsert key unless `key` names it.
//
// `delivery = 'exactly-once'` with checkpoints is a two-phase commit aligned with them:
//   commit()           (before the checkpoint) writes the interval's messages to a file under
//                      the checkpoint dir and returns {seq, file, offsets}: the checkpoint
//                      records them;
//   afterCheckpoint()  (the checkpoint is durable) publishes them in ONE transaction with the
//                      consumed source offsets and a marker: offset `seq` committed for the
//                      group `<transactional id>-commits`. Kafka makes the marker visible iff
//                      the transaction committed;
//   open(progress)     (restart) connects with the same transactional id — fencing the old
//                      incarnation, whose open transaction the broker aborts or completes —
//                      then reads the marker: the recorded interval is published now if its
//                      seq is above the marker, dropped if not.
// kafkajs cannot resume another producer's open transaction (Flink's KafkaSink does, by
// reflection on the Java client), hence the interval file instead of a prepared transaction.
// Without a checkpoint dir nothing resumes, and commit() publishes the interval itself.
// Scale-out (`member` set): each member has its own transactional id (`-<member>` appended)
// and so its own marker group; a member's restart fences only its own earlier incarnation.
import { noticeWhileWaiting } from '../io/waiting.ts';
import { StoppableConnect } from '../io/stoppable-connect.ts';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { Row } from '../ops/types.ts';
import { upsertAction, type RunningSink, type SinkDef } from '../io/sinks.ts';
import { UpdatePairing } from '../io/update-pairing.ts';
import { acksNumber, brokersOf, commitGroupOf, kafkaConfigOf, KafkaOptionError, memberTransactionalId } from './at-start.ts';
import type { KafkaSinkConfig as ResolvedKafkaSink } from '../config/kafka/config.ts';
import { IntervalFiles, type KeyValue } from './sink-intervals.ts';

/** What a transaction commits besides the rows: the consumed offsets of a consumer group. */
export type TransactionOffsets = { consumerGroupId: string; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] };

export interface KafkaSinkConfig {
  env: Record<string, string | undefined>;
  /**
   * Scale-out: this process's member id (`ConnectorContext.member`), appended to the
   * transactional id and so to the marker group: members run the same sink at the same time
   * and must neither fence each other nor read each other's marker. Null/absent: one process.
   */
  member?: string | null;
  /**
   * Exactly-once: the source offsets the rows written so far were computed from (each Kafka
   * source's `transactionOffsets(position())`), sent inside the transaction.
   */
  offsets?: () => TransactionOffsets | TransactionOffsets[] | null;
  /** The run's checkpoint dir: exactly-once intervals wait there for their transaction. */
  checkpointDir?: string | null;
  /** A message for the user that is not an error. */
  warn?: (message: string) => void;
}

/**
 * What the checkpoint records for an exactly-once sink: the last interval handed to it.
 * `seq` grows by one per interval; the marker group's committed offset is the last published.
 */
export interface IntervalProgress {
  seq: number;
  /** The interval's messages, relative to the checkpoint dir; null when it had none. */
  file: string | null;
  messages: number;
  offsets: TransactionOffsets[];
}

/** The plan's changelog mode and upsert key, as the changelog model hands them to sinks. */
type ChangelogSinkDef = SinkDef & { changelog?: 'append' | 'upsert' | 'retract'; upsertKey?: string[] | null };

/** Rows sent in one request: bounded so a large interval does not become one huge request. */
const SEND_CHUNK = 10_000;

/** How long an exactly-once publish keeps retrying transient failures (the client's own budget is similar). */
const RETRY_FOR_MS = 5 * 60_000;

export class KafkaSink implements RunningSink {
  rowsOut = 0;
  /** The resolved config the compiler decided (`def.config`), as received. */
  readonly config: ResolvedKafkaSink;
  /** `config.brokers`, else `PIPEC_KAFKA_BROKERS` at start. */
  readonly brokers: string[];
  /** `config.transactionalId`, with `-<member>` when scaled out. */
  readonly transactionalId: string;
  /** Exactly-once: the group whose committed offset numbers the last interval published. */
  readonly commitGroup: string;
  private readonly kafka: Kafka;
  private producer: Producer;
  private connected: Promise<void> | null = null;
  /** `connected` as a stop may give up on it: the producer up (and, exactly-once, the recovery done). */
  private readonly connect = new StoppableConnect();
  private pending: KeyValue[] = [];
  /** At-least-once: the sends started by flush(), chained so rows keep their order. */
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** The failure was thrown to the runner by commit() or afterCheckpoint(). */
  private reported = false;
  /** A key the sink cannot have (found at open()): thrown by the first write. */
  private keyError: Error | null = null;
  /** Column indexes of the message key; resolved at open() (the changelog mode is set by then). */
  private keyIdx: number[] = [];
  /** Changelog input: the encoder's values start with an `op` field, which is cut off. */
  private opField = false;
  /** Changelog input: pairs each '-U' with its '+U' (null: append input, rows go straight out). */
  private pairing: UpdatePairing | null = null;
  private readonly eos: boolean;
  /** Exactly-once with checkpoints: intervals are published after the checkpoint. */
  private readonly intervals: IntervalFiles | null;
  /** The last interval number used (published or prepared). */
  private seq = 0;
  /** The interval commit() handed to the checkpoint, published by afterCheckpoint(). */
  private prepared: { progress: IntervalProgress; messages: KeyValue[] } | null = null;
  private lastProgress: IntervalProgress | null = null;
  /** Offsets of the last interval (JSON), to skip intervals with neither rows nor progress. */
  private lastOffsets = '[]';

  constructor(
    readonly def: SinkDef,
    private readonly cfg: KafkaSinkConfig,
  ) {
    this.config = kafkaConfigOf(def, 'sink');
    this.brokers = brokersOf(this.config.brokers, cfg.env);
    this.transactionalId = memberTransactionalId(this.config, cfg.member);
    this.commitGroup = commitGroupOf(this.transactionalId);
    this.keyIdx = this.keyIndexes(this.config.keyColumns);
    this.kafka = new Kafka({
      clientId: `pipec-${def.name}`,
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 60 },
    });
    this.eos = this.config.delivery === 'exactly-once';
    this.intervals = this.eos && cfg.checkpointDir ? new IntervalFiles(cfg.checkpointDir, `kafka-sink-${def.id}`) : null;
    this.producer = this.newProducer();
  }

  private newProducer(): Producer {
    return this.kafka.producer({
      // Idempotence needs acks=all; a sink that asked for weaker acks gets a plain producer.
      idempotent: this.config.idempotent,
      maxInFlightRequests: this.config.idempotent ? 1 : undefined,
      allowAutoTopicCreation: false,
      ...(this.eos ? { transactionalId: this.transactionalId } : {}),
    });
  }

  private keyIndexes(names: string[]): number[] {
    return names.map((k) => {
      const i = this.def.columns.findIndex((c) => c.name === k);
      if (i < 0) throw new KafkaOptionError(`sink '${this.def.name}': key column '${k}' is not a column of the sink`);
      return i;
    });
  }

  open(progress: unknown): void {
    // Generated code marks a changelog sink (changelogSink) after constructing it.
    const cdef = this.def as ChangelogSinkDef;
    try {
      this.keyIdx = this.keyIndexes(keyColumns(cdef, this.config));
    } catch (e) {
      // The runner calls open() outside its error handling: the first row, or the first
      // checkpoint, reports it.
      this.keyError = this.failure = e as Error;
      return;
    }
    this.opField = (cdef.changelog ?? 'append') !== 'append';
    // The key columns of a changelog sink are its upsert key (keyColumns checks it).
    this.pairing = this.opField ? new UpdatePairing(this.keyIdx, (row, action) => this.writeKeyed(row, action)) : null;
    const what = `Kafka at ${this.brokers.join(', ')} (sink '${this.def.name}', topic '${this.config.topic}'): connecting`;
    const warn = this.cfg.warn;
    const start = this.start(progress as IntervalProgress | null);
    this.connected = warn ? noticeWhileWaiting(start, what, (m) => this.connect.stopAsked || warn(m)) : start;
    this.connected.catch((e: Error) => (this.failure ??= e));
    this.connect.begin(this.connected);
  }

  /** Connects (fencing an earlier incarnation) and finishes the interval a restart left open. */
  private async start(progress: IntervalProgress | null): Promise<void> {
    await this.producer.connect();
    if (!this.eos) return;
    await this.retrying('fencing earlier producers of the transactional id', () => this.fence());
    const published = await this.retrying('reading the interval marker', () => this.readMarker());
    this.seq = Math.max(published, progress?.seq ?? 0);
    if (this.intervals === null) return;
    // Files of intervals that no durable checkpoint recorded: their rows are recomputed.
    this.intervals.removeAllBut(progress?.file ?? null);
    // An interval file is deleted only after its transaction committed: without a marker
    // (Kafka drops a group's offsets offsets.retention.minutes after its last commit, 7 days
    // by default) a missing file still says the interval was published.
    const file = progress?.file ?? null;
    const fileGone = file !== null && !this.intervals.exists(file);
    if (progress !== null && progress.seq > published && fileGone && published >= 0) {
      throw new Error(`sink '${this.def.name}': the checkpoint refers to ${this.intervals.path(file)}, which is missing: the checkpoint directory is incomplete`);
    }
    if (progress !== null && progress.seq > published && !fileGone) {
      if (published < 0 && progress.seq > 1 && progress.messages > 0) {
        this.cfg.warn?.(
          `sink '${this.def.name}': group '${this.commitGroup}' has no committed offset (Kafka drops a group's offsets offsets.retention.minutes after its last commit, 7 days by default), so whether interval ${progress.seq} was published cannot be told; publishing it again — its ${progress.messages} message(s) may appear twice`,
        );
      }
      const intervals = this.intervals;
      await this.publishInterval(progress.seq, () => (file === null ? [] : intervals.read(file, SEND_CHUNK)), () => progress.offsets);
    }
    this.intervals.removeAllBut(null);
    this.lastProgress = progress;
    this.lastOffsets = JSON.stringify(progress?.offsets ?? []);
  }

  /**
   * Claims the transactional id: kafkajs connects without it and sends InitProducerId only
   * when the first transaction begins, so an empty transaction is begun (and dropped, which
   * sends nothing). The broker first completes or aborts the previous holder's open
   * transaction and fences it; only then does the marker say what that holder published.
   */
  private async fence(): Promise<void> {
    const tx = await this.producer.transaction();
    await tx.abort();
  }

  /**
   * Awaits the connect, or a stop asked for before it came: a broker that is down makes the
   * client retry for minutes, and a stop must not wait for that. Rows not delivered are not
   * lost: no checkpoint covers them, so the restart computes them again.
   */
  private async connectWait(): Promise<void> {
    if (await this.connect.wait()) return;
    const e = new Error(
      `sink '${this.def.name}': stopped before Kafka at ${this.brokers.join(', ')} answered; no checkpoint was taken, so a restart computes the rows since the last one again`,
    );
    this.failure ??= e;
    throw e;
  }

  interrupt(): void {
    this.connect.interrupt();
  }

  /**
   * The runner's start check: the topic exists. The producer never creates topics
   * (`allowAutoTopicCreation: false`), and a missing one would otherwise show only as retries.
   * (`listTopics` asks for metadata without naming a topic, so it cannot auto-create one either.)
   */
  async checkTarget(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      if (!topics.includes(this.config.topic)) {
        const brokers = this.brokers.join(',');
        throw new Error(
          `sink '${this.def.name}': the Kafka topic '${this.config.topic}' does not exist on ${brokers}; create it first, for example: kafka-topics.sh --bootstrap-server ${brokers} --create --topic ${this.config.topic} --partitions 1`,
        );
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** The last published interval: the marker group's committed offset (-1 when none). */
  private async readMarker(): Promise<number> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const got = await admin.fetchOffsets({ groupId: this.commitGroup, topics: [this.config.topic] });
      const p = got[0]?.partitions.find((x) => x.partition === 0);
      return p === undefined ? -1 : Number(p.offset);
    } finally {
      await admin.disconnect();
    }
  }

  write(row: Row): void {
    if (this.keyError !== null) throw this.keyError;
    if (this.pairing !== null) this.pairing.push(row);
    else {
      // Append input carries no kinds (every row is a value); a sink used without open() or
      // its changelog mode takes each row alone.
      const action = upsertAction(row);
      if (action !== 'skip') this.writeKeyed(row, action);
    }
  }

  /** Queues a row as its key's value, or a tombstone for its key. */
  private writeKeyed(row: Row, action: 'upsert' | 'delete'): void {
    this.rowsOut++;
    const json = this.def.json(row);
    const key = this.key(json);
    if (action === 'delete') {
      if (key === null) throw new Error(`sink '${this.def.name}': a delete arrived, but a tombstone needs a key and ${this.keyIdx.length === 0 ? "the sink has no 'key' columns" : 'its key columns are NULL'}`);
      this.pending.push({ key, value: null });
    } else {
      // The `op` field is the first one and holds no comma: `{"op":"+U",...}` → `{...}`.
      this.pending.push({ key, value: this.opField ? '{' + json.slice(json.indexOf(',') + 1) : json });
    }
  }

  /** The key: one column's JSON-formatted value as text (strings unquoted); several → a JSON object. */
  private key(json: string): string | null {
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
    return JSON.stringify(k);
  }

  flush(): void {
    // A '-U' not followed by its '+U' by now is a delete (update-pairing.ts).
    this.pairing?.release();
    // Exactly-once output leaves only inside a transaction.
    if (this.eos || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    // Concurrent send() calls may complete in any order; one after another keeps row order.
    this.chain = this.chain.then(() => this.send(batch));
    this.chain.catch((e: Error) => (this.failure ??= e));
  }

  private async send(messages: KeyValue[]): Promise<void> {
    await this.connectWait();
    for (let i = 0; i < messages.length; i += SEND_CHUNK) {
      await this.producer.send({ topic: this.config.topic, acks: acksNumber(this.config.acks), messages: messages.slice(i, i + SEND_CHUNK) });
    }
  }

  /**
   * Publishes interval `seq` in one transaction: the messages, the source offsets, and the
   * marker saying interval `seq` is published. A transient failure (broker away, coordinator
   * moving or loading) is retried with a new producer: connecting it fences this one, so the
   * broker completes or aborts the attempt that failed, and the marker then tells which —
   * a commit whose answer was lost is not published twice.
   */
  private async publishInterval(seq: number, chunks: () => Iterable<KeyValue[]> | AsyncIterable<KeyValue[]>, offsets: () => TransactionOffsets[]): Promise<void> {
    let retry = false;
    await this.retrying(`publishing interval ${seq}`, async () => {
      if (retry) {
        await this.producer.disconnect().catch(() => undefined);
        this.producer = this.newProducer();
        await this.producer.connect();
        // The failed attempt's commit may still be under way: fence it before asking the marker.
        await this.fence();
        if ((await this.readMarker()) >= seq) return;
      }
      retry = true;
      const tx = await this.producer.transaction();
      try {
        for await (const c of chunks()) await tx.send({ topic: this.config.topic, messages: c });
        for (const o of offsets()) await retryConcurrent(() => tx.sendOffsets(o));
        const marker = { consumerGroupId: this.commitGroup, topics: [{ topic: this.config.topic, partitions: [{ partition: 0, offset: String(seq) }] }] };
        await retryConcurrent(() => tx.sendOffsets(marker));
        await tx.commit();
      } catch (e) {
        await tx.abort().catch(() => undefined);
        throw e;
      }
    });
  }

  /**
   * Runs `f` until it succeeds, again after transient errors (backing off, for up to
   * RETRY_FOR_MS); anything else, or running out of time, fails the sink with what it was doing.
   */
  private async retrying<T>(what: string, f: () => Promise<T>): Promise<T> {
    const until = Date.now() + RETRY_FOR_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await f();
      } catch (e) {
        const message = errorText(e);
        if (!isTransient(e) || Date.now() > until) throw new Error(`sink '${this.def.name}': ${what} failed: ${message}`);
        if (attempt === 0) this.cfg.warn?.(`sink '${this.def.name}': ${what} failed (${message}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** attempt)));
      }
    }
  }

  /** The offsets of the run's Kafka sources, read when the interval closes. */
  private readOffsets(): TransactionOffsets[] {
    const got = this.cfg.offsets?.() ?? null;
    return (got === null ? [] : Array.isArray(got) ? got : [got]).filter((o) => o.topics.some((t) => t.partitions.length > 0));
  }

  async commit(): Promise<unknown> {
    return this.reporting(() => this.commitInterval());
  }

  /** Runs `f`; a failure thrown from it reaches the runner, so close() need not repeat it. */
  private async reporting<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      this.reported = true;
      throw e;
    }
  }

  private async commitInterval(): Promise<unknown> {
    if (this.failure !== null) throw this.failure;
    // A held '-U' belongs to this interval: its tombstone goes with the rows before it.
    this.pairing?.release();
    await this.connectWait();
    if (!this.eos) {
      this.flush();
      await this.chain;
      if (this.failure !== null) throw this.failure;
      return null;
    }
    const messages = this.pending;
    this.pending = [];
    if (this.intervals === null) return this.commitNow(messages);
    if (this.prepared !== null) {
      // The runner stops after a failed checkpoint, so this would be a runner bug; publishing
      // the older interval now could duplicate it, dropping it could lose it.
      throw new Error(`sink '${this.def.name}': interval ${this.prepared.progress.seq} was never confirmed by a checkpoint`);
    }
    // No row is processed while the checkpoint runs: these are exactly the offsets the rows
    // were computed from.
    const offsets = this.readOffsets();
    const offsetsJson = JSON.stringify(offsets);
    // Nothing new: the checkpoint keeps the last interval, which says what a restart checks.
    if (messages.length === 0 && (offsets.length === 0 || offsetsJson === this.lastOffsets)) return this.lastProgress;
    const seq = this.seq + 1;
    const file = messages.length > 0 ? this.intervals.write(seq, messages) : null;
    const progress: IntervalProgress = { seq, file, messages: messages.length, offsets };
    this.seq = seq;
    this.prepared = { progress, messages };
    this.lastProgress = progress;
    this.lastOffsets = offsetsJson;
    return progress;
  }

  /** Without checkpoints nothing resumes: the interval's transaction commits right away. */
  private async commitNow(messages: KeyValue[]): Promise<null> {
    let offsets: TransactionOffsets[] | null = null;
    if (messages.length === 0) {
      offsets = this.readOffsets();
      // Nothing new: an empty transaction would only cost a round of coordinator requests.
      if (offsets.length === 0 || JSON.stringify(offsets) === this.lastOffsets) return null;
    }
    // Read inside the transaction, after the rows: a failure to get them aborts the rows too.
    await this.publishInterval(++this.seq, () => chunked(messages), () => (offsets ??= this.readOffsets()));
    this.lastOffsets = JSON.stringify(offsets);
    return null;
  }

  async afterCheckpoint(): Promise<void> {
    const p = this.prepared;
    if (p === null || this.intervals === null) return;
    await this.reporting(() => this.publishInterval(p.progress.seq, () => chunked(p.messages), () => p.progress.offsets));
    this.prepared = null;
    this.intervals.removeAllBut(null);
  }

  async close(): Promise<void> {
    try {
      if (this.connected !== null) {
        // Exactly-once rows not covered by a durable checkpoint are dropped: the resumed run
        // recomputes them. A recovery still running is let finish (it is safe either way)...
        if (this.eos) await this.connectWait().catch(() => undefined);
        else if (this.failure === null) await this.commitInterval();
        // ...and its failure is not swallowed (a finished pipeline's restart only opens and
        // closes its sinks).
        if (this.failure !== null && !this.reported) throw this.failure;
      }
    } finally {
      await this.producer.disconnect();
    }
  }
}

/**
 * The message key columns: the `key` option, else the input's upsert key. A changelog input
 * needs a key (a tombstone without one deletes nothing), and it must be the upsert key.
 */
function keyColumns(def: ChangelogSinkDef, o: ResolvedKafkaSink): string[] {
  const changelog = def.changelog ?? 'append';
  if (changelog === 'append') return o.keyColumns;
  const upsert = def.upsertKey ?? [];
  if (o.keyColumns.length === 0) {
    if (upsert.length === 0) throw new KafkaOptionError(`sink '${def.name}': its input is a changelog (updates and deletes) without a key; set 'key' so a delete can be sent as a tombstone`);
    return upsert;
  }
  if (upsert.length > 0 && (o.keyColumns.length !== upsert.length || o.keyColumns.some((k) => !upsert.includes(k)))) {
    throw new KafkaOptionError(
      `sink '${def.name}': 'key' (${o.keyColumns.join(', ')}) must be the input's upsert key (${upsert.join(', ')}), else an update or delete would not replace the row it changes`,
    );
  }
  return o.keyColumns;
}

function* chunked(messages: KeyValue[]): Generator<KeyValue[]> {
  for (let i = 0; i < messages.length; i += SEND_CHUNK) yield messages.slice(i, i + SEND_CHUNK);
}

/** Errors after which the same work may succeed: connection and coordinator trouble, timeouts. */
const TRANSIENT_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
]);
/** Never retried: another incarnation owns the transactional id, or access is denied. */
const FATAL_TYPES = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED']);

function isTransient(e: unknown): boolean {
  let transient = false;
  // kafkajs wraps: KafkaJSNumberOfRetriesExceeded → originalError → cause.
  for (let x = e as { name?: string; type?: string; retriable?: boolean; originalError?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 5; depth++) {
    if (x.type !== undefined && FATAL_TYPES.has(x.type)) return false;
    if ((x.name !== undefined && TRANSIENT_NAMES.has(x.name)) || x.retriable === true) transient = true;
    x = (x.originalError ?? x.cause) as typeof x;
  }
  return transient;
}

function errorText(e: unknown): string {
  const x = e as { message?: string; originalError?: { message?: string } };
  const inner = x.originalError?.message;
  return inner !== undefined && inner !== x.message ? `${x.message}: ${inner}` : String(x.message ?? e);
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
