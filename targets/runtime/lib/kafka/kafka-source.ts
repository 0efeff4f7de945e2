// The `kafka` source: one consumer-group member reading a topic in fetched batches, exposing
// the next offset of every partition as its position. Offsets are committed only when the
// runner calls `commit(positions)` after a checkpoint that covers them (never auto-commit).
// It tells the runner which partitions have lag (`partitionBehind`): a partition with unread
// records is never idle, however slowly the pipeline drains it.
import { Kafka, logLevel, type Admin, type Consumer, type KafkaMessage } from 'kafkajs';
import type { DecodeError, RunningSource, SourceDef, SourceSink } from '../io/source-types.ts';
import { setRowKind, type RowKind } from '../ops/types.ts';
import type { FormatFactory } from '../connectors.ts';
import { CHANGES, createFormatDecoder, FAIL, SKIP, type FormatDecoder } from '../formats/index.ts';
import { brokersOf, kafkaConfigOf } from './at-start.ts';
import type { KafkaSourceConfig as ResolvedKafkaSource } from '../config/kafka/config.ts';
import { decodeReason } from '../io/guarded-decode.ts';
import { noticeWhileWaiting } from '../io/waiting.ts';
import { StoppableConnect } from '../io/stoppable-connect.ts';
import { RowBatch } from '../io/row-batch.ts';

/**
 * Connector metadata of a record, attached to the parsed JSON object under this symbol so the
 * generated decoder can read `METADATA FROM 'offset' | 'partition' | 'timestamp' | 'key' | 'topic'`.
 */
export const META = Symbol.for('pipec.meta');

export interface KafkaMeta {
  topic: string;
  partition: number;
  offset: number;
  /** Message timestamp, epoch milliseconds. */
  timestamp: number;
  key: string | null;
}

/** One partition as the hooks see it. */
export interface KafkaPartitionInfo {
  /** Partition id given to the runner (`partitionAdded`): `<topic>-<partition>`. */
  id: string;
  topic: string;
  partition: number;
  /** Index returned by `partitionAdded` (the runner's partition clock). */
  index: number;
  /** Next offset to read; null when nothing was read and no position was known. */
  next: number | null;
}

/** Rebalance hooks: the runner hands partition state and watermarks over through the checkpoint. */
export interface KafkaSourceHooks {
  /** The group starts rebalancing; this member still owns its partitions (checkpoint + commit now). */
  onRebalancing?(): void;
  /** Partitions this member no longer owns, with their last positions (after a rebalance). */
  onRevoked?(parts: KafkaPartitionInfo[]): void;
  /** Partitions newly owned (restore their watermark from the shared checkpoint). */
  onAssigned?(parts: KafkaPartitionInfo[]): void;
}

/** Lag of the partitions this member owns, for the runtime's metrics. */
export interface KafkaLag {
  records: number;
  /** Processing time minus the timestamp of the oldest unread record (0 when caught up). */
  seconds: number;
  partitions: { id: string; records: number }[];
}

interface PartState {
  info: KafkaPartitionInfo;
  assigned: boolean;
  /** Taken away by a rebalance: its last position is stale (another member moved on). */
  revoked: boolean;
  /** Log end offset as last reported by a fetch. */
  high: number;
  /**
   * Offset after the last record (control records included) of the last fetch that returned
   * anything for the partition, or of the broker's log end when a look at it found nothing to
   * read; -1 while no fetch told (since assignment). Lag is `high` beyond it.
   */
  end: number;
  /** What the runner was last told (`partitionBehind`); null before the first report. */
  reported: boolean | null;
  /** Timestamp of the last record read. */
  lastTs: number;
  /** Scaled out: owned, but its state is still on its way (`startPartition` starts it). */
  awaiting: boolean;
  /** Scaled out: counts the times this member won the partition (a start for an older win is void). */
  wins?: number;
}

interface Pending {
  part: PartState;
  messages: KafkaMessage[];
  i: number;
  done: () => void;
  /** The format's writer schemas for this batch are fetched (formats with a registry). */
  prepared: boolean;
}

export interface KafkaSourceConfig {
  env: Record<string, string | undefined>;
  hooks?: KafkaSourceHooks;
  /** Client id prefix (tests tell members apart). */
  clientId?: string;
  /**
   * Scaled out (`scale_out = 'partitions'`): a partition won in a rebalance is not read until
   * the runner has its task state and calls `startPartition` with the position to resume from.
   */
  deferNewPartitions?: boolean;
  /** The binary value formats of the run (`ConnectorContext.formats`); JSON needs none. */
  formats?: Record<string, FormatFactory>;
}

export class KafkaSource implements RunningSource {
  readonly bounded = false;
  readonly finished = false;
  /** The resolved config the compiler decided (`def.config`), as received. */
  readonly config: ResolvedKafkaSource;
  /** `config.brokers`, else `PIPEC_KAFKA_BROKERS` at start. */
  readonly brokers: string[];
  private readonly kafka: Kafka;
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly parts = new Map<number, PartState>();
  private queue: Pending[] = [];
  /** The connect and group join, started by the first poll; a stop gives up waiting on it. */
  private readonly connect = new StoppableConnect();
  private failure: Error | null = null;
  private closed = false;
  /** Log start/end offsets per partition, read at start for `earliest`/`latest`. */
  private bounds = new Map<number, { low: number; high: number }>();
  private readonly err: DecodeError = { column: '', reason: '' };
  /** Some column reads record metadata (`METADATA FROM ...`): only then is it built per record. */
  private readonly wantMeta: boolean;
  private readonly hooks: KafkaSourceHooks;
  /** The value format's decoder (JSON, Debezium JSON, Avro, Protobuf), chosen once. */
  private readonly format: FormatDecoder;
  private readonly defer: boolean;
  /** Scaled out: partitions lost and won since the runner last asked (runtime indexes). */
  private change: { revoked: number[]; added: number[] } | null = null;
  /** A look at the log end for partitions no fetch told about is under way / was last started at. */
  private probing = false;
  private lastProbe = 0;
  /** Per runner partition index: its decoded rows go over a fetch batch at a time (each remembers its offset). */
  private readonly batches = new Map<number, RowBatch>();

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
    cfg: KafkaSourceConfig,
  ) {
    this.config = kafkaConfigOf(def, 'source');
    this.brokers = brokersOf(this.config.brokers, cfg.env);
    this.hooks = cfg.hooks ?? {};
    this.defer = cfg.deferNewPartitions ?? false;
    this.wantMeta = def.columns.some((c) => c.meta !== undefined);
    this.format = createFormatDecoder(def, cfg.env, cfg.formats);
    this.kafka = new Kafka({
      clientId: cfg.clientId ?? `pipec-${def.name}`,
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
      // A broker restart takes seconds to tens of seconds: keep retrying rather than crash.
      retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 60 },
    });
    this.consumer = this.kafka.consumer({
      groupId: this.config.groupId,
      maxBytesPerPartition: this.config.maxBytesPerPartition,
      retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 60 },
    });
    this.admin = this.kafka.admin();
  }

  private async start(): Promise<void> {
    const c = this.consumer;
    const { GROUP_JOIN, REBALANCING, CRASH, END_BATCH_PROCESS } = c.events;
    c.on(REBALANCING, () => this.hooks.onRebalancing?.());
    // A fetch that returned only control records (transaction markers) or aborted records never
    // reaches eachBatch; it still moves the partition's end (else it would look behind forever).
    c.on(END_BATCH_PROCESS, (e) => {
      if (e.payload.batchSize !== 0) return;
      const part = this.parts.get(e.payload.partition);
      if (part !== undefined && part.assigned && !part.awaiting) this.fetched(part, e.payload.highWatermark, e.payload.lastOffset);
    });
    c.on(GROUP_JOIN, (e) => this.assigned(e.payload.memberAssignment[this.config.topic] ?? []));
    c.on(CRASH, (e) => {
      if (!e.payload.restart) this.failure = e.payload.error;
    });
    await this.admin.connect();
    await this.refreshBounds();
    await c.connect();
    await c.subscribe({ topics: [this.config.topic], fromBeginning: this.config.startup !== 'latest' });
    await c.run({
      autoCommit: false,
      // Several partitions' batches wait in the queue at once; poll drains them in turn.
      partitionsConsumedConcurrently: 64,
      eachBatch: async ({ batch }) => {
        const part = this.parts.get(batch.partition);
        // A partition waiting for its state is not read yet: `startPartition` seeks it, and the
        // client fetches again from there.
        if (part === undefined || !part.assigned || part.awaiting) return;
        this.fetched(part, batch.highWatermark, batch.lastOffset());
        if (batch.messages.length === 0) return;
        // Resolving only once the runner consumed the batch is the backpressure: the client
        // fetches this partition again only after that.
        await new Promise<void>((done) => this.queue.push({ part, messages: batch.messages, i: 0, done, prepared: false }));
      },
    });
  }

  /** Connects and joins the group on the first poll; true once done, false when a stop came first (nothing read). */
  private connected(): Promise<boolean> {
    if (!this.connect.begun && !this.connect.stopAsked) {
      const what = `Kafka at ${this.brokers.join(', ')} (topic '${this.config.topic}', consumer group '${this.config.groupId}'): connecting and joining the group`;
      this.connect.begin(noticeWhileWaiting(this.start(), what, (m) => this.connect.stopAsked || this.out.warn(m)));
    }
    return this.connect.wait();
  }

  interrupt(): void {
    this.connect.interrupt();
  }

  /** What a fetch told about a partition: its log end and how far the fetch reached. */
  private fetched(part: PartState, highWatermark: string, lastOffset: string): void {
    part.high = Math.max(part.high, Number(highWatermark));
    part.end = Math.max(part.end, Number(lastOffset) + 1);
  }

  /**
   * Whether the partition may have unread records: records fetched and not yet read, a fetch
   * that saw the log end beyond what it returned, or no word from any fetch yet.
   */
  private behind(ps: PartState): boolean {
    for (const q of this.queue) if (q.part === ps && q.i < q.messages.length) return true;
    if (ps.end < 0) return true;
    return ps.high > Math.max(ps.end, ps.info.next ?? 0);
  }

  /** Tells the runner every owned partition's lag state that changed (see `behind`). */
  private reportLag(): void {
    let unknown = false;
    for (const ps of this.parts.values()) {
      if (!ps.assigned || ps.awaiting) continue;
      const b = this.behind(ps);
      if (ps.end < 0) unknown = true;
      if (b !== ps.reported) {
        ps.reported = b;
        this.out.partitionBehind?.(ps.info.index, b);
      }
    }
    if (unknown) this.probe();
  }

  /**
   * A fetch of a partition with nothing at all to read reaches no callback: for partitions no
   * fetch told about, look at the log end (at most once a second, in the background). Nothing
   * beyond the start position: caught up. Otherwise the records are there and a fetch will bring them.
   */
  private probe(): void {
    const t = Date.now();
    if (this.probing || this.closed || t - this.lastProbe < 1000) return;
    this.probing = true;
    this.lastProbe = t;
    void (async () => {
      const offs = await this.admin.fetchTopicOffsets(this.config.topic);
      const highs = new Map(offs.map((o) => [o.partition, { low: Number(o.low), high: Number(o.high) }]));
      const waiting = [...this.parts.values()].filter((ps) => ps.assigned && !ps.awaiting && ps.end < 0);
      let committed: Map<number, number> | null = null;
      if (waiting.some((ps) => ps.info.next === null)) {
        const [tp] = await this.admin.fetchOffsets({ groupId: this.config.groupId, topics: [this.config.topic] });
        committed = new Map((tp?.partitions ?? []).map((x) => [x.partition, Number(x.offset)]));
      }
      for (const ps of waiting) {
        const b = highs.get(ps.info.partition);
        if (b === undefined || ps.end >= 0) continue;
        const c = committed?.get(ps.info.partition) ?? -1;
        const start = ps.info.next ?? (c >= 0 ? c : this.config.startup === 'latest' ? b.high : b.low);
        if (b.high <= start) {
          ps.high = Math.max(ps.high, b.high);
          ps.end = start;
        }
      }
    })()
      .catch(() => {})
      .finally(() => {
        this.probing = false;
      });
  }

  private async refreshBounds(): Promise<void> {
    const offs = await this.admin.fetchTopicOffsets(this.config.topic);
    for (const o of offs) this.bounds.set(o.partition, { low: Number(o.low), high: Number(o.high) });
  }

  /** Applies a new assignment: revokes, adds and positions partitions. */
  private assigned(now: number[]): void {
    const owned = new Set(now);
    const revoked: KafkaPartitionInfo[] = [];
    for (const [n, ps] of this.parts) {
      if (ps.assigned && !owned.has(n)) {
        ps.assigned = false;
        ps.revoked = true;
        revoked.push({ ...ps.info });
      }
    }
    if (revoked.length > 0) {
      // Unread records of revoked partitions belong to their new owner.
      const gone = new Set(revoked.map((r) => r.partition));
      for (const q of this.queue) if (gone.has(q.part.info.partition)) q.done();
      this.queue = this.queue.filter((q) => !gone.has(q.part.info.partition));
      if (this.defer) this.changed().revoked.push(...revoked.map((r) => r.index));
      this.hooks.onRevoked?.(revoked);
    }
    const added: KafkaPartitionInfo[] = [];
    for (const n of [...now].sort((a, b) => a - b)) {
      let ps = this.parts.get(n);
      if (ps === undefined) {
        const id = `${this.config.topic}-${n}`;
        ps = { info: { id, topic: this.config.topic, partition: n, index: this.out.partitionAdded(id), next: null }, assigned: false, revoked: false, high: 0, end: -1, reported: null, lastTs: 0, awaiting: false };
        this.parts.set(n, ps);
      }
      // Whatever was known of its lag is stale now: behind until a fetch tells.
      if (!ps.assigned) {
        ps.end = -1;
        ps.reported = true;
        this.out.partitionBehind?.(ps.info.index, true);
      }
      if (ps.assigned) {
        // The client restarts a kept partition from the group's committed offset: put it back
        // where this member actually is.
        if (ps.info.next !== null) this.consumer.seek({ topic: this.config.topic, partition: n, offset: String(ps.info.next) });
        continue;
      }
      ps.assigned = true;
      if (this.defer) {
        // The runner decides where it resumes: from the task state another member released.
        // The position stays what this member read: if it lost and won the partition again
        // before the runner looked, the runner still releases the task at that position.
        ps.awaiting = true;
        ps.revoked = false;
        ps.wins = (ps.wins ?? 0) + 1;
        this.changed().added.push(ps.info.index);
        added.push({ ...ps.info });
        continue;
      }
      const b = this.bounds.get(n);
      if (ps.revoked) {
        // Back after another member owned it: resume from the group's committed offset,
        // whatever `startup` says (that applies to the pipeline's first start only).
        ps.revoked = false;
        ps.info.next = null;
      } else if (ps.info.next === null && this.config.startup === 'earliest') ps.info.next = b?.low ?? 0;
      else if (ps.info.next === null && this.config.startup === 'latest') ps.info.next = b?.high ?? 0;
      if (ps.info.next !== null) this.consumer.seek({ topic: this.config.topic, partition: n, offset: String(ps.info.next) });
      added.push({ ...ps.info });
    }
    if (added.length > 0) this.hooks.onAssigned?.(added);
  }

  async poll(budget: number): Promise<number> {
    if (!this.connect.connected && !(await this.connected())) return 0;
    if (this.failure !== null) throw this.failure;
    let n = 0;
    const wantMeta = this.wantMeta;
    const decode = this.def.decode!;
    const fmt = this.format;
    const topic = this.config.topic;
    const queue = this.queue;
    for (let qi = 0; qi < queue.length; qi++) {
      const q = queue[qi]!;
      const ps = q.part;
      const info = ps.info;
      if (fmt.prepare !== null && !q.prepared) {
        // Writer schemas of the batch's unseen schema ids, fetched before any record is decoded.
        const msgs = q.messages;
        await fmt.prepare(
          msgs.map((m) => m.value),
          (i) => `${topic}-${info.partition} offset ${msgs[i]!.offset}`,
        );
        q.prepared = true;
      }
      const end = Math.min(q.messages.length, q.i + budget);
      const batch = this.batchOf(info);
      for (; q.i < end; q.i++) {
        const m = q.messages[q.i]!;
        const offset = Number(m.offset);
        // After a seek or a rebalance the client may hand back records already read.
        if (info.next !== null && offset < info.next) continue;
        info.next = offset + 1;
        n++;
        const ts = wantMeta ? Number(m.timestamp) : 0;
        const obj = fmt.decode(m.value);
        if (obj === FAIL) {
          this.dead(info, offset, fmt.reason, fmt.raw(m.value));
          continue;
        }
        if (obj === SKIP) continue;
        if (obj !== CHANGES && !wantMeta) {
          const row = decode(obj, this.err);
          if (row === null) this.dead(info, offset, decodeReason(this.err), fmt.raw(m.value));
          else batch.add(row, offset);
          continue;
        }
        const meta: KafkaMeta = { topic, partition: info.partition, offset, timestamp: ts, key: m.key === null ? null : m.key.toString('utf8') };
        if (obj !== CHANGES) {
          (obj as Record<symbol, unknown>)[META] = meta;
          const row = decode(obj, this.err);
          if (row === null) this.dead(info, offset, decodeReason(this.err), fmt.raw(m.value));
          else batch.add(row, offset);
          continue;
        }
        // A change event: one or two records (an update's old and new row), each with its kind;
        // if either does not decode, the event is one dead letter and neither row goes out.
        const ch = fmt.changes;
        const r0 = this.decodeChange(ch.records[0]!, ch.kinds[0]!, meta, decode);
        const r1 = r0 !== null && ch.n > 1 ? this.decodeChange(ch.records[1]!, ch.kinds[1]!, meta, decode) : null;
        if (r0 === null || (ch.n > 1 && r1 === null)) {
          // -U and -D rows are the event's 'before', +I and +U its 'after'.
          const k = ch.kinds[r0 === null ? 0 : 1]!;
          this.dead(info, offset, `'${k === '-U' || k === '-D' ? 'before' : 'after'}' row: ${decodeReason(this.err)}`, fmt.raw(m.value));
          continue;
        }
        batch.add(setRowKind(r0, ch.kinds[0]!), offset);
        if (r1 !== null) batch.add(setRowKind(r1, ch.kinds[1]!), offset);
      }
      batch.flush();
    }
    for (const q of queue) if (q.i > 0) q.part.lastTs = Number(q.messages[q.i - 1]!.timestamp);
    if (queue.some((q) => q.i >= q.messages.length)) {
      for (const q of queue) if (q.i >= q.messages.length) q.done();
      this.queue = queue.filter((q) => q.i < q.messages.length);
    }
    this.reportLag();
    return n;
  }

  /** Decodes one record of a change event; its kind rides in the metadata (`rawKind`) too. */
  private decodeChange(rec: object, kind: RowKind, meta: KafkaMeta, decode: NonNullable<SourceDef['decode']>): unknown[] | null {
    (rec as Record<symbol, unknown>)[META] = { ...meta, kind };
    return decode(rec, this.err);
  }

  private dead(info: KafkaPartitionInfo, offset: number, reason: string, raw: string): void {
    // The partition's rows before it first: the runner sees rows and dead letters in input order.
    this.batchOf(info).flush();
    // `topic` rides along: the runner spreads the coordinates into the dead-letter record.
    const coords = { topic: info.topic, partition: String(info.partition), offset };
    this.out.dead(coords, reason, raw);
  }

  private batchOf(info: KafkaPartitionInfo): RowBatch {
    let b = this.batches.get(info.index);
    if (b === undefined) {
      const topic = info.topic;
      const partition = String(info.partition);
      b = new RowBatch(this.out, info.index, (offset) => ({ topic, partition, offset }));
      this.batches.set(info.index, b);
    }
    return b;
  }

  /**
   * Coordinates of the record last handed over for runtime partition `index` (for dead
   * letters the runner itself raises, e.g. a NULL watermark column).
   */
  lastCoordinates(index: number): { topic: string; partition: string; offset: number } | null {
    for (const ps of this.parts.values()) {
      if (ps.info.index === index && ps.info.next !== null) return { topic: ps.info.topic, partition: String(ps.info.partition), offset: ps.info.next - 1 };
    }
    return null;
  }

  /** Next offset per partition id, for partitions with a known position. */
  position(): Record<string, number> {
    const pos: Record<string, number> = {};
    for (const ps of [...this.parts.values()].sort((a, b) => a.info.partition - b.info.partition)) {
      // A revoked partition's position belongs to its new owner now; a partition waiting for
      // its state (scaled out) has none yet.
      if (ps.info.next !== null && !ps.revoked && !ps.awaiting) pos[ps.info.id] = ps.info.next;
    }
    return pos;
  }

  /** Resume from a checkpoint: these positions win over committed offsets and `startup`. */
  seek(pos: unknown): void {
    const prefix = `${this.config.topic}-`;
    for (const [id, next] of Object.entries(pos as Record<string, number>)) {
      if (!id.startsWith(prefix)) continue;
      const n = Number(id.slice(prefix.length));
      const index = this.out.partitionAdded(id);
      this.parts.set(n, { info: { id, topic: this.config.topic, partition: n, index, next }, assigned: false, revoked: false, high: 0, end: -1, reported: true, lastTs: 0, awaiting: false });
      this.out.partitionBehind?.(index, true);
    }
  }

  /**
   * Commits the positions of a completed checkpoint (a `position()` snapshot) for the
   * partitions this member still owns; a revoked partition's offset is its new owner's to commit.
   */
  async commit(positions: unknown): Promise<void> {
    const list = this.offsetList(positions as Record<string, number>);
    if (list.length > 0) await this.consumer.commitOffsets(list.map((x) => ({ topic: this.config.topic, ...x })));
  }

  /**
   * The runtime's post-checkpoint hook: commits the current positions, which are the
   * checkpoint's as long as no poll ran since it was taken (the run loop awaits both).
   */
  async afterCheckpoint(): Promise<void> {
    await this.commit(this.position());
  }

  /** The same offsets in the shape a transactional producer's `sendOffsets` takes. */
  transactionOffsets(positions: unknown): { consumerGroupId: string; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] } {
    return { consumerGroupId: this.config.groupId, topics: [{ topic: this.config.topic, partitions: this.offsetList(positions as Record<string, number>) }] };
  }

  private offsetList(pos: Record<string, number>): { partition: number; offset: string }[] {
    const out: { partition: number; offset: string }[] = [];
    for (const ps of this.parts.values()) {
      const next = pos[ps.info.id];
      if (ps.assigned && next !== undefined) out.push({ partition: ps.info.partition, offset: String(next) });
    }
    return out.sort((a, b) => a.partition - b.partition);
  }

  private changed(): { revoked: number[]; added: number[] } {
    return (this.change ??= { revoked: [], added: [] });
  }

  /** Scaled out: the partitions lost and won since the last call (runtime indexes), or null. */
  takeAssignmentChange(): { revoked: number[]; added: number[] } | null {
    const c = this.change;
    this.change = null;
    return c;
  }

  /**
   * Scaled out: starts reading a partition won in a rebalance at `next`, the position its task
   * state was taken at; null (no member ever held it) starts it as a first start would: from
   * the group's committed offset, else by `startup`.
   */
  async startPartition(index: number, next: number | null): Promise<void> {
    const ps = [...this.parts.values()].find((p) => p.info.index === index);
    if (ps === undefined || !ps.assigned || !ps.awaiting) return;
    const win = ps.wins;
    let at = next;
    if (at === null) {
      await this.refreshBounds();
      const b = this.bounds.get(ps.info.partition);
      if (this.config.startup === 'committed') {
        const [t] = await this.admin.fetchOffsets({ groupId: this.config.groupId, topics: [this.config.topic] });
        const c = Number(t?.partitions.find((p) => p.partition === ps.info.partition)?.offset ?? -1);
        at = c >= 0 ? c : (b?.low ?? 0);
      } else at = this.config.startup === 'latest' ? (b?.high ?? 0) : (b?.low ?? 0);
      // Lost (and maybe won again) while asking the broker: the runner handles that change first.
      if (!ps.assigned || !ps.awaiting || ps.wins !== win) return;
    }
    ps.info.next = at;
    ps.awaiting = false;
    ps.end = -1;
    this.consumer.seek({ topic: this.config.topic, partition: ps.info.partition, offset: String(at) });
  }

  /** The next offset of partition `index` as far as this member read it (kept after revocation). */
  partitionPosition(index: number): number | null {
    for (const ps of this.parts.values()) if (ps.info.index === index) return ps.info.next;
    return null;
  }

  /** Partitions owned now. */
  assignment(): KafkaPartitionInfo[] {
    return [...this.parts.values()].filter((p) => p.assigned).map((p) => ({ ...p.info }));
  }

  lag(now: number = Date.now()): KafkaLag {
    let records = 0;
    let oldest = Number.POSITIVE_INFINITY;
    const partitions: { id: string; records: number }[] = [];
    for (const ps of this.parts.values()) {
      if (!ps.assigned || ps.awaiting || ps.info.next === null) continue;
      const behind = Math.max(0, ps.high - ps.info.next);
      records += behind;
      partitions.push({ id: ps.info.id, records: behind });
      if (behind === 0) continue;
      // The oldest unread record is the next queued one when fetched; else the one after the
      // last read (its timestamp is at least lastTs, so this errs on the side of more lag).
      const q = this.queue.find((x) => x.part === ps && x.i < x.messages.length);
      const ts = q ? Number(q.messages[q.i]!.timestamp) : ps.lastTs;
      if (ts > 0 && ts < oldest) oldest = ts;
    }
    return { records, seconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0, partitions };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.queue) q.done();
    this.queue = [];
    await this.consumer.disconnect();
    await this.admin.disconnect();
  }
}
