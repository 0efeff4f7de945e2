// The `clickhouse` sink: rows encoded per the table's column types and inserted with retries
// (exponential backoff) under an `insert_deduplication_token`. Two deliveries:
//   at-least-once (default): batches of `batch_size` rows or after `flush_interval`, inserted
//     at once; a token = hash(batch seq, source positions, content) makes a RETRY land once, but
//     a replay after a restart cuts different batches, which land again;
//   exactly-once (with a checkpoint dir): the rows of a checkpoint interval are staged in a file
//     (interval-store.ts) that commit() fsyncs before the checkpoint names it; afterCheckpoint()
//     inserts it in batches whose tokens derive from (pipeline, sink, table, run, interval seq,
//     batch index, positions at the checkpoint) — open(progress) after a crash re-inserts the
//     same batches under the same tokens, which a deduplicating table drops (exactly-once.ts).
// Scaled out (`member` set), both kinds of token also hold the member id: members insert
// into one table with their own batch numbers and must not deduplicate each other's rows.
// A changelog sink (upsert / retract stream) writes into a ReplacingMergeTree: a '-U' followed
// by the '+U' of its key is skipped, every other row is the key's new version (`_version`), a
// '-D' row — or a '-U' not followed by its '+U' (a filter after a GROUP BY dropped it:
// io/update-pairing.ts) — is the key's last version flagged `_is_deleted = 1` (read with
// FINAL ... WHERE _is_deleted = 0, or FINAL alone on servers whose engine takes the is_deleted
// column).
import { createTableSql } from './create-table.ts';
import { createHash } from 'node:crypto';
import type { RunningSink, SinkDef } from '../io/sinks.ts';
import { UpdatePairing } from '../io/update-pairing.ts';
import type { Row } from '../ops/types.ts';
import { DEDUP_SETTINGS, tableDedup, type TableDedup } from './dedup-check.ts';
import { rowEncoder } from './encode.ts';
import { crashPoint, eosProgress, eosToken, memberParts, newRunId, type CrashPoint, type ClickHouseIntervalProgress } from './exactly-once.ts';
import { IntervalStore } from './interval-store.ts';
import { clickhouseConfigOf, ClickHouseSinkError, connectionOf, redactUrl, type ClickHouseConnection } from './at-start.ts';
import type { ClickHouseSinkConfig as ResolvedClickHouseSink } from '../config/clickhouse/config.ts';
import { HttpTransport, type ChTransport } from './transport.ts';

/** What a checkpoint records (at-least-once): batches sent so far (restores the token sequence). */
export interface ClickHouseProgress {
  seq: number;
  rows: number;
  /** Last `_version` written (changelog sinks): versions keep growing across restarts. */
  version?: number;
}

/** The ReplacingMergeTree columns a changelog sink fills when the table has them. */
export const VERSION_COLUMN = '_version';
export const DELETED_COLUMN = '_is_deleted';

/**
 * The at-least-once token of a batch: hash(sink, table, seq, positions at its start and end,
 * lines), preceded by the member id when scaled out (members number their batches alike).
 */
export function batchToken(member: string | null | undefined, sink: string, table: string, b: { seq: number; from: string; to: string; lines: readonly string[] }): string {
  const pre = memberParts(member);
  const h = createHash('sha256').update(pre.length > 0 ? pre.join('\0') + '\0' : '');
  h.update(`${sink}\0${table}\0${b.seq}\0${b.from}\0${b.to}\0`);
  for (const l of b.lines) h.update(l).update('\n');
  return `pipec-${h.digest('hex').slice(0, 40)}`;
}

/** A row written before the table's types were known: encoded once they are. */
interface RawLine {
  row: Row;
  version: number;
  deleted: boolean;
}

interface Batch {
  seq: number;
  lines: string[];
  token: string;
  from: string;
  to: string;
}

export interface ClickHouseSinkConfig {
  env: Record<string, string | undefined>;
  /** The pipeline's name (part of the exactly-once tokens). */
  pipeline?: string;
  /**
   * Scale-out: this process's member id, part of every deduplication token (at-least-once and
   * exactly-once), so members' equal-looking batches are not dropped as each other's
   * duplicates. Null/absent: a single process, tokens as before.
   */
  member?: string | null;
  /** The run's checkpoint dir: exactly-once intervals are staged there; null/absent = none. */
  checkpointDir?: string | null;
  /** Current source positions (JSON-able); mixed into the token so a batch names what it covers. */
  positions?: () => unknown;
  transport?: ChTransport;
  /** Reports a degraded guarantee (no deduplication on this server). */
  warn?: (message: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** Statistics for tests and metrics. */
export interface ClickHouseSinkStats {
  inserts: number;
  retries: number;
  rowsInserted: number;
}

/** Lines kept in memory before they are appended to the interval file (exactly-once). */
const SPILL_LINES = 4096;

const RETRYABLE_CODES = new Set(['159', '164', '202', '209', '210', '241', '242', '252', '285', '319', '425', '999', '1000', '3']);

export class ClickHouseSink implements RunningSink {
  rowsOut = 0;
  /** The resolved config the compiler decided (`def.config`), as received. */
  readonly config: ResolvedClickHouseSink;
  /** URL, credentials and table, with what the environment gives at start. */
  readonly conn: ClickHouseConnection;
  readonly stats: ClickHouseSinkStats = { inserts: 0, retries: 0, rowsInserted: 0 };
  /** Whether inserts carry insert_deduplication_token (decided once the server is known). */
  dedupActive = false;
  /** Whether the table drops a token it has seen (exactly-once; decided at open). */
  tableDedup: TableDedup | null = null;
  private readonly transport: ChTransport;
  private encode: ((row: Row) => string) | null = null;
  /** Deleted rows may be key-only (CDC without REPLICA IDENTITY FULL): NULLs become defaults. */
  private encodeDeleted: ((row: Row) => string) | null = null;
  private hasVersion = false;
  private hasDeleted = false;
  private version = 0;
  /** Changelog input: pairs each '-U' with its '+U' (null: append input, rows go straight in). */
  private pairing: UpdatePairing | null = null;
  private ready: Promise<void> | null = null;
  /** The current batch (interval, exactly-once): encoded lines, or rows written before the table's types were known. */
  private current: (string | RawLine)[] = [];
  private currentFrom = 'null';
  private readonly pending: Batch[] = [];
  private sending: Promise<void> | null = null;
  private failure: Error | null = null;
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly where: string;
  /** Exactly-once: the staged intervals (null: at-least-once, or no checkpoint dir). */
  private readonly store: IntervalStore | null;
  private run = '';
  /** The interval commit() handed to the checkpoint, inserted by afterCheckpoint(). */
  private prepared: ClickHouseIntervalProgress | null = null;
  private lastProgress: ClickHouseIntervalProgress | null = null;
  /** Extra insert settings of exactly-once inserts (decided at open). */
  private eosSettings: Record<string, string> = {};
  private readonly crash: CrashPoint | null;
  private publishes = 0;
  private windowWarned = false;

  constructor(
    readonly def: SinkDef,
    private readonly cfg: ClickHouseSinkConfig,
  ) {
    this.config = clickhouseConfigOf(def);
    this.conn = connectionOf(def.name, this.config, cfg.env);
    this.transport = cfg.transport ?? new HttpTransport(this.conn);
    this.where = `clickhouse sink '${def.name}' (${redactUrl(this.conn.url)}, table ${this.conn.database}.${this.conn.table})`;
    const dir = cfg.checkpointDir ?? null;
    this.store = this.config.delivery === 'exactly-once' && dir !== null ? new IntervalStore(dir, `clickhouse-sink-${def.id}`) : null;
    this.crash = crashPoint(cfg.env);
  }

  /** Exactly-once in effect (the option, and a checkpoint dir to stage intervals in). */
  get exactlyOnce(): boolean {
    return this.store !== null;
  }

  open(progress: unknown): void {
    const eos = eosProgress(progress);
    const alo = eos === null ? (progress as ClickHouseProgress | null) : null;
    this.seq = eos?.seq ?? alo?.seq ?? 0;
    // Microseconds of wall-clock time at least: rows written after a restart (replays
    // included) get newer versions than any written before it, so the latest write wins.
    this.version = Math.max(eos?.version ?? alo?.version ?? 0, Date.now() * 1000);
    this.run = eos?.run ?? newRunId();
    this.lastProgress = eos;
    // Generated code sets the changelog mode before open(): only then do rows carry kinds.
    this.pairing = this.changelog() === 'append' ? null : new UpdatePairing(this.upsertKeyIndexes(), (row, action) => this.writeVersion(row, action === 'delete'));
    if (this.config.delivery === 'exactly-once' && this.store === null) {
      this.cfg.warn?.(
        `${this.where}: delivery = 'exactly-once' needs a checkpoint directory (pipec run --checkpoint-dir DIR) to stage each interval until its checkpoint is durable; this run has none, so rows are inserted at-least-once as they come (a run without checkpoints never resumes: started again, it inserts everything again)`,
      );
    }
    this.ready = this.prepare().then(() => this.recover(eos));
    this.ready.catch(() => {}); // surfaced by commit() / close()
  }

  /** The runner's start check: the server answers, the table exists and fits (else the reason). */
  async checkTarget(): Promise<void> {
    await this.ready;
  }

  private async prepare(): Promise<void> {
    let version: string;
    try {
      version = await this.transport.version();
    } catch (e) {
      throw new ClickHouseSinkError(`${this.where}: cannot reach the server: ${(e as Error).message}`);
    }
    const cols = await this.transport.columns(this.conn.database, this.conn.table);
    if (cols.length === 0) {
      throw new ClickHouseSinkError(
        `${this.where}: the table ${this.conn.database}.${this.conn.table} does not exist; create it, for example with:\n\n${createTableSql(this.def, this.config, this.conn.database, this.conn.table, version)}\n`,
      );
    }
    const major = Number(version.split('.')[0]);
    const own = new Set(this.def.columns.map((c) => c.name));
    this.hasVersion = !own.has(VERSION_COLUMN) && cols.some((c) => c.name === VERSION_COLUMN);
    this.hasDeleted = !own.has(DELETED_COLUMN) && cols.some((c) => c.name === DELETED_COLUMN);
    if (this.changelog() === 'retract' && !this.hasDeleted) {
      throw new ClickHouseSinkError(
        `${this.where}: the sink receives updates and deletes, so the table needs a ${DELETED_COLUMN} UInt8 column (and ${VERSION_COLUMN} UInt64: ENGINE = ReplacingMergeTree(${VERSION_COLUMN}) ORDER BY the key, read with FINAL ... WHERE ${DELETED_COLUMN} = 0)`,
      );
    }
    this.encode = rowEncoder(this.def.columns, cols, { quoteDecimals: major >= 19 }, this.where);
    this.encodeDeleted = rowEncoder(this.def.columns, cols, { quoteDecimals: major >= 19, nullAsDefault: true }, this.where);
    const hasToken = this.config.dedup !== 'off' && (await this.transport.hasSetting('insert_deduplication_token'));
    if (this.config.dedup === 'token' && !hasToken) {
      throw new ClickHouseSinkError(`${this.where}: dedup = 'token' but ClickHouse ${version} has no insert_deduplication_token (added in 22.2)`);
    }
    this.dedupActive = hasToken;
    if (this.exactlyOnce) await this.checkExactlyOnce(version);
    else if (!hasToken && this.config.dedup === 'auto') {
      this.cfg.warn?.(`${this.where}: ClickHouse ${version} has no insert_deduplication_token; a batch replayed after a failure may be inserted twice (at-least-once)`);
    }
  }

  /** Can a re-inserted interval be dropped by the server? Warns (or refuses, dedup = 'token') when not. */
  private async checkExactlyOnce(version: string): Promise<void> {
    const degraded = `${this.where}: delivery = 'exactly-once' degrades to at-least-once`;
    const perCrash = `a batch whose insert a crash cut short is inserted again on restart (at most one batch of up to ${this.config.batchSize} rows per crash)`;
    if (!this.dedupActive) {
      this.cfg.warn?.(`${degraded}: ClickHouse ${version} has no insert_deduplication_token (added in 22.2), so ${perCrash}`);
      return;
    }
    const full = `${this.conn.database}.${this.conn.table}`;
    const table = await this.transport.tableDefinition(this.conn.database, this.conn.table);
    const defaults = await this.transport.mergeTreeSettings(DEDUP_SETTINGS);
    this.tableDedup = tableDedup(full, table?.engine ?? 'unknown', table?.createQuery ?? '', defaults);
    if (this.tableDedup.deduplicates === false) {
      if (this.config.dedup === 'token') throw new ClickHouseSinkError(`${this.where}: dedup = 'token' but ${this.tableDedup.reason}`);
      this.cfg.warn?.(`${degraded}: ${this.tableDedup.reason}; until then ${perCrash}`);
    } else if (this.tableDedup.deduplicates === null) {
      this.cfg.warn?.(`${this.where}: cannot check that a re-inserted batch is dropped (delivery = 'exactly-once'): ${this.tableDedup.reason}`);
    }
    // A profile may turn deduplication off, or route inserts through async inserts (which ignore
    // tokens by default): exactly-once inserts ask for the plain, deduplicated path.
    this.eosSettings = { insert_deduplicate: '1' };
    if (await this.transport.hasSetting('async_insert')) this.eosSettings.async_insert = '0';
  }

  private positionsText(): string {
    return this.cfg.positions ? JSON.stringify(this.cfg.positions(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) : 'null';
  }

  private changelog(): 'append' | 'upsert' | 'retract' {
    return this.def.changelog ?? 'append';
  }

  /** The upsert key's column indexes; null when the plan knows no key (or names other columns). */
  private upsertKeyIndexes(): number[] | null {
    const key = this.def.upsertKey ?? null;
    if (key === null || key.length === 0) return null;
    const idx = key.map((k) => this.def.columns.findIndex((c) => c.name === k));
    return idx.every((i) => i >= 0) ? idx : null;
  }

  write(row: Row): void {
    if (this.pairing === null) this.writeLine(row, 0, false);
    else this.pairing.push(row);
  }

  /** A changelog row as the key's next version; `deleted`: its last one, flagged. */
  private writeVersion(row: Row, deleted: boolean): void {
    this.writeLine(row, (this.version = Math.max(this.version + 1, Date.now() * 1000)), deleted);
  }

  private writeLine(row: Row, version: number, deleted: boolean): void {
    this.rowsOut++;
    if (this.exactlyOnce) {
      // Rows wait in the interval until the checkpoint: no time-cut batches.
      this.current.push(this.encode ? this.line(row, version, deleted) : { row, version, deleted });
      if (this.current.length >= SPILL_LINES && this.encode) this.spill();
      return;
    }
    if (this.current.length === 0) {
      this.currentFrom = this.positionsText();
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.cut();
      }, this.config.flushIntervalMs);
    }
    // Encoding waits for the table's types: buffer the row until then.
    this.current.push(this.encode ? this.line(row, version, deleted) : { row, version, deleted });
    if (this.current.length >= this.config.batchSize) this.cut();
  }

  /** The JSONEachRow line of a row, with `_version` / `_is_deleted` when the table has them. */
  private line(row: Row, version: number, deleted: boolean): string {
    if (deleted && !this.hasDeleted) {
      throw new ClickHouseSinkError(`${this.where}: a delete arrived (a deleted row, or an updated row that a filter after the GROUP BY, such as HAVING, no longer passes) but the table has no ${DELETED_COLUMN} UInt8 column to record it (ReplacingMergeTree(${VERSION_COLUMN}), read with FINAL ... WHERE ${DELETED_COLUMN} = 0)`);
    }
    const base = deleted ? this.encodeDeleted!(row) : this.encode!(row);
    if (version === 0 || (!this.hasVersion && !this.hasDeleted)) return base;
    let extra = '';
    if (this.hasVersion) extra += `,"${VERSION_COLUMN}":${version}`;
    if (this.hasDeleted) extra += `,"${DELETED_COLUMN}":${deleted ? 1 : 0}`;
    return base === '{}' ? '{' + extra.slice(1) + '}' : base.slice(0, -1) + extra + '}';
  }

  /** Encodes rows written before the table's types were known. */
  private encoded(items: (string | RawLine)[]): string[] {
    return items.map((l) => (typeof l === 'string' ? l : this.line(l.row, l.version, l.deleted)));
  }

  /** Exactly-once: appends the rows held in memory to the open interval's file. */
  private spill(): void {
    const lines = this.encoded(this.current);
    this.current = [];
    this.store!.append(this.seq + 1, lines);
  }

  /** Closes the current batch and hands it to the sender. */
  private cut(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.current.length === 0) return;
    const lines = this.current as string[];
    this.current = [];
    const seq = ++this.seq;
    this.pending.push({ seq, lines, token: '', from: this.currentFrom, to: this.positionsText() });
    this.kick();
  }

  private kick(): void {
    if (this.sending !== null || this.failure !== null) return;
    this.sending = this.drain().then(
      () => {
        this.sending = null;
        if (this.pending.length > 0 && this.failure === null) this.kick();
      },
      (e) => {
        this.sending = null;
        this.failure = e;
      },
    );
  }

  private async drain(): Promise<void> {
    await this.ready;
    while (this.pending.length > 0) {
      const b = this.pending[0]!;
      if (b.token === '') {
        // Rows written before the table's types were known are encoded now.
        b.lines = this.encoded(b.lines as (string | RawLine)[]);
        b.token = batchToken(this.cfg.member, this.def.name, `${this.conn.database}.${this.conn.table}`, b);
      }
      await this.insertWithRetry(b.lines, this.dedupActive ? { insert_deduplication_token: b.token } : {}, `batch ${b.seq}`);
      this.pending.shift();
      this.stats.rowsInserted += b.lines.length;
    }
  }

  private async insertWithRetry(lines: readonly string[], settings: Record<string, string>, what: string): Promise<void> {
    const sleep = this.cfg.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const t0 = Date.now();
    let delay = this.config.retryBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        this.stats.inserts++;
        await this.transport.insert(this.conn.database, this.conn.table, lines, settings);
        return;
      } catch (e) {
        const code = (e as { code?: string }).code;
        const retryable = code === undefined || !/^\d+$/.test(code) || RETRYABLE_CODES.has(code);
        if (!retryable || attempt >= this.config.maxAttempts) {
          const why = retryable ? `failed after ${attempt} attempts over ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'was refused';
          throw new ClickHouseSinkError(`${this.where}: insert of ${lines.length} rows (${what}) ${why}: ${(e as Error).message.split('\n')[0]}`);
        }
        this.stats.retries++;
        // Full jitter would break nothing, but a fixed doubling keeps the total wait predictable.
        await sleep(delay);
        delay = Math.min(delay * 2, this.config.maxRetryBackoffMs);
      }
    }
  }

  /** A '-U' not followed by its '+U' by now is a delete (update-pairing.ts); batches are cut by size and timer. */
  flush(): void {
    this.pairing?.release();
  }

  /**
   * At-least-once: sends every row written so far; resolves with the progress a checkpoint
   * records, or rejects with the last insert error (the rows stay pending and the next commit
   * tries them again). Exactly-once: makes the interval durable in its file and returns it.
   */
  async commit(): Promise<ClickHouseProgress | ClickHouseIntervalProgress> {
    // A held '-U' belongs to this interval / these batches: its delete goes in before the checkpoint.
    this.pairing?.release();
    await this.ready;
    if (this.exactlyOnce) return this.commitInterval();
    this.cut();
    if (this.failure !== null) {
      this.failure = null;
      this.kick();
    }
    while (this.sending !== null) await this.sending;
    if (this.failure !== null) throw this.failure;
    const progress: ClickHouseProgress = { seq: this.seq - this.pending.length, rows: this.stats.rowsInserted };
    if (this.changelog() !== 'append') progress.version = this.version;
    return progress;
  }

  private commitInterval(): ClickHouseIntervalProgress {
    if (this.prepared !== null) {
      // The runner stops after a failed checkpoint or insert, so this would be a runner bug;
      // staging another interval over an uninserted one could lose or duplicate it.
      throw new ClickHouseSinkError(`${this.where}: interval ${this.prepared.seq} was never inserted after its checkpoint`);
    }
    this.spill();
    const sealed = this.store!.seal(this.seq + 1);
    const version = this.changelog() !== 'append' ? { version: this.version } : {};
    // No rows: the checkpoint keeps naming the last interval (whose batches are all in).
    if (sealed === null) {
      this.lastProgress ??= { delivery: 'exactly-once', run: this.run, seq: this.seq, file: null, rows: 0, batchSize: this.config.batchSize, positions: 'null' };
      return { ...this.lastProgress, ...version };
    }
    const p: ClickHouseIntervalProgress = {
      delivery: 'exactly-once',
      run: this.run,
      seq: ++this.seq,
      file: sealed.file,
      rows: sealed.lines,
      batchSize: this.config.batchSize,
      // No row is processed while the checkpoint runs: the positions the interval ends at.
      positions: this.positionsText(),
      ...version,
    };
    this.prepared = p;
    this.lastProgress = p;
    return p;
  }

  /** Exactly-once: the checkpoint naming the interval is durable — insert it. */
  async afterCheckpoint(): Promise<void> {
    const p = this.prepared;
    if (p === null) return;
    this.publishes++;
    await this.publish(p, this.crash?.nth === this.publishes ? this.crash.at : null);
    this.prepared = null;
    this.store!.removeAllBut(p.seq);
  }

  /** A restart: the interval the checkpoint names may not be (fully) in the table yet. */
  private async recover(p: ClickHouseIntervalProgress | null): Promise<void> {
    if (this.store === null) return;
    // Intervals no durable checkpoint named: their rows are recomputed after the checkpoint.
    this.store.removeAllBut(p?.seq ?? null);
    if (p !== null && p.file !== null) await this.publish(p, null);
  }

  /**
   * Inserts interval `p`'s batches not yet recorded as done, each under its deterministic token,
   * recording each once the server acknowledged it; then deletes the interval's lines.
   */
  private async publish(p: ClickHouseIntervalProgress, crashAt: CrashPoint['at'] | null): Promise<void> {
    const store = this.store!;
    const total = Math.ceil(p.rows / p.batchSize);
    const done = store.done(p.seq);
    if (p.file === null || done.size >= total) {
      if (p.file !== null) store.removeLines(p.seq);
      return;
    }
    if (!store.exists(p.file)) {
      throw new ClickHouseSinkError(`${this.where}: the checkpoint names ${p.file} in ${store.checkpointDir}, which is missing, and ${total - done.size} of its ${total} batches are not recorded as inserted: the checkpoint directory is incomplete`);
    }
    const window = this.tableDedup?.window ?? null;
    if (this.dedupActive && window !== null && window > 0 && total > window && !this.windowWarned) {
      this.windowWarned = true;
      this.cfg.warn?.(`${this.where}: an interval of ${total} batches is larger than the table's deduplication window (${window} inserts): a crash while inserting it may store its first batches twice; raise the window or batch_size`);
    }
    if (crashAt === 'before-inserts') process.kill(process.pid, 'SIGKILL');
    const scope = { pipeline: this.cfg.pipeline ?? '', sink: this.def.name, table: `${this.conn.database}.${this.conn.table}`, member: this.cfg.member };
    let index = 0;
    for await (const lines of store.batches(p.file, p.batchSize)) {
      if (!done.has(index)) {
        const settings = this.dedupActive ? { ...this.eosSettings, insert_deduplication_token: eosToken(scope, p, index) } : {};
        await this.insertWithRetry(lines, settings, `interval ${p.seq}, batch ${index + 1} of ${total}`);
        this.stats.rowsInserted += lines.length;
        if ((crashAt === 'after-insert' && index === 0) || (crashAt === 'after-inserts' && index === total - 1)) process.kill(process.pid, 'SIGKILL');
        store.markDone(p.seq, index);
      }
      index++;
    }
    store.removeLines(p.seq);
  }

  /** Rows written but not yet confirmed by the server (exactly-once: not yet staged or inserted). */
  pendingRows(): number {
    return (this.pairing?.holding ? 1 : 0) + this.current.length + this.pending.reduce((n, b) => n + b.lines.length, 0) + (this.store?.lines ?? 0) + (this.prepared?.rows ?? 0);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    try {
      if (this.exactlyOnce) {
        // Rows no durable checkpoint names are dropped: the resumed run recomputes them. A
        // recovery (restart) is let finish; its failure fails the close.
        this.store!.discardOpen();
        this.current = [];
        this.pairing?.discard();
        await this.ready;
      } else await this.commit();
    } finally {
      await this.transport.close();
    }
  }
}
