// The `clickhouse` sink: rows encoded per the table's column types, sent in batches of
// `batch_size` rows (or after `flush_interval`), each retried with exponential backoff under
// one `insert_deduplication_token` derived from the batch's sequence number, the source
// positions it covers and its content — so a retried or replayed batch lands once.
// A changelog sink (upsert / retract stream) writes into a ReplacingMergeTree: '-U' rows are
// skipped, every other row is the key's new version (`_version`), a '-D' row is the key's last
// version flagged `_is_deleted = 1` (read with FINAL ... WHERE _is_deleted = 0, or FINAL
// alone on servers whose engine takes the is_deleted column).
import { createHash } from 'node:crypto';
import { upsertAction, type RunningSink, type SinkDef } from '../io/sinks.ts';
import type { Row } from '../ops/types.ts';
import { rowEncoder } from './encode.ts';
import { ClickHouseSinkError, redactUrl, sinkOptions, type ClickHouseSinkOptions } from './options.ts';
import { HttpTransport, type ChTransport } from './transport.ts';

/** What a checkpoint records: batches sent so far (restores the token sequence on replay). */
export interface ClickHouseProgress {
  seq: number;
  rows: number;
  /** Last `_version` written (changelog sinks): versions keep growing across restarts. */
  version?: number;
}

/** The ReplacingMergeTree columns a changelog sink fills when the table has them. */
export const VERSION_COLUMN = '_version';
export const DELETED_COLUMN = '_is_deleted';

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

const RETRYABLE_CODES = new Set(['159', '164', '202', '209', '210', '241', '242', '252', '285', '319', '425', '999', '1000', '3']);

export class ClickHouseSink implements RunningSink {
  rowsOut = 0;
  readonly opts: ClickHouseSinkOptions;
  readonly stats: ClickHouseSinkStats = { inserts: 0, retries: 0, rowsInserted: 0 };
  /** Whether inserts carry insert_deduplication_token (decided once the server is known). */
  dedupActive = false;
  private readonly transport: ChTransport;
  private encode: ((row: Row) => string) | null = null;
  /** Deleted rows may be key-only (CDC without REPLICA IDENTITY FULL): NULLs become defaults. */
  private encodeDeleted: ((row: Row) => string) | null = null;
  private hasVersion = false;
  private hasDeleted = false;
  private version = 0;
  private ready: Promise<void> | null = null;
  /** The current batch: encoded lines, or rows written before the table's types were known. */
  private current: (string | RawLine)[] = [];
  private currentFrom = 'null';
  private readonly pending: Batch[] = [];
  private sending: Promise<void> | null = null;
  private failure: Error | null = null;
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly where: string;

  constructor(
    readonly def: SinkDef,
    private readonly cfg: ClickHouseSinkConfig,
  ) {
    this.opts = sinkOptions(def.name, def.options, cfg.env);
    this.transport = cfg.transport ?? new HttpTransport(this.opts);
    this.where = `clickhouse sink '${def.name}' (${redactUrl(this.opts.url)}, table ${this.opts.database}.${this.opts.table})`;
  }

  open(progress: unknown): void {
    this.seq = progress === null ? 0 : (progress as ClickHouseProgress).seq;
    // Microseconds of wall-clock time at least: rows written after a restart (replays
    // included) get newer versions than any written before it, so the latest write wins.
    this.version = Math.max(progress === null ? 0 : ((progress as ClickHouseProgress).version ?? 0), Date.now() * 1000);
    this.ready = this.prepare();
    this.ready.catch(() => {}); // surfaced by commit()
  }

  private async prepare(): Promise<void> {
    let version: string;
    try {
      version = await this.transport.version();
    } catch (e) {
      throw new ClickHouseSinkError(`${this.where}: cannot reach the server: ${(e as Error).message}`);
    }
    const cols = await this.transport.columns(this.opts.database, this.opts.table);
    if (cols.length === 0) throw new ClickHouseSinkError(`${this.where}: the table does not exist`);
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
    const hasToken = this.opts.dedup !== 'off' && (await this.transport.hasSetting('insert_deduplication_token'));
    if (this.opts.dedup === 'token' && !hasToken) {
      throw new ClickHouseSinkError(`${this.where}: dedup = 'token' but ClickHouse ${version} has no insert_deduplication_token (added in 22.2)`);
    }
    this.dedupActive = hasToken;
    if (!hasToken && this.opts.dedup === 'auto') {
      this.cfg.warn?.(`${this.where}: ClickHouse ${version} has no insert_deduplication_token; a batch replayed after a failure may be inserted twice (at-least-once)`);
    }
  }

  private positionsText(): string {
    return this.cfg.positions ? JSON.stringify(this.cfg.positions(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) : 'null';
  }

  private changelog(): 'append' | 'upsert' | 'retract' {
    return this.def.changelog ?? 'append';
  }

  write(row: Row): void {
    let deleted = false;
    let version = 0;
    if (this.changelog() !== 'append') {
      const action = upsertAction(row);
      // A '-U' is followed by its '+U', which replaces the key's row.
      if (action === 'skip') return;
      deleted = action === 'delete';
      version = this.version = Math.max(this.version + 1, Date.now() * 1000);
    }
    this.rowsOut++;
    if (this.current.length === 0) {
      this.currentFrom = this.positionsText();
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.cut();
      }, this.opts.flushIntervalMs);
    }
    // Encoding waits for the table's types: buffer the row until then.
    this.current.push(this.encode ? this.line(row, version, deleted) : { row, version, deleted });
    if (this.current.length >= this.opts.batchSize) this.cut();
  }

  /** The JSONEachRow line of a row, with `_version` / `_is_deleted` when the table has them. */
  private line(row: Row, version: number, deleted: boolean): string {
    if (deleted && !this.hasDeleted) {
      throw new ClickHouseSinkError(`${this.where}: a delete arrived but the table has no ${DELETED_COLUMN} UInt8 column to record it (ReplacingMergeTree(${VERSION_COLUMN}), read with FINAL ... WHERE ${DELETED_COLUMN} = 0)`);
    }
    const base = deleted ? this.encodeDeleted!(row) : this.encode!(row);
    if (version === 0 || (!this.hasVersion && !this.hasDeleted)) return base;
    let extra = '';
    if (this.hasVersion) extra += `,"${VERSION_COLUMN}":${version}`;
    if (this.hasDeleted) extra += `,"${DELETED_COLUMN}":${deleted ? 1 : 0}`;
    return base === '{}' ? '{' + extra.slice(1) + '}' : base.slice(0, -1) + extra + '}';
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
        b.lines = b.lines.map((l) => {
          if (typeof l === 'string') return l;
          const r = l as unknown as RawLine;
          return this.line(r.row, r.version, r.deleted);
        });
        const h = createHash('sha256').update(`${this.def.name}\0${this.opts.database}.${this.opts.table}\0${b.seq}\0${b.from}\0${b.to}\0`);
        for (const l of b.lines) h.update(l).update('\n');
        b.token = `pipec-${h.digest('hex').slice(0, 40)}`;
      }
      await this.insertWithRetry(b);
      this.pending.shift();
      this.stats.rowsInserted += b.lines.length;
    }
  }

  private async insertWithRetry(b: Batch): Promise<void> {
    const sleep = this.cfg.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const settings: Record<string, string> = this.dedupActive ? { insert_deduplication_token: b.token } : {};
    const t0 = Date.now();
    let delay = this.opts.backoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        this.stats.inserts++;
        await this.transport.insert(this.opts.database, this.opts.table, b.lines, settings);
        return;
      } catch (e) {
        const code = (e as { code?: string }).code;
        const retryable = code === undefined || !/^\d+$/.test(code) || RETRYABLE_CODES.has(code);
        if (!retryable || attempt >= this.opts.maxAttempts) {
          const why = retryable ? `failed after ${attempt} attempts over ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'was refused';
          throw new ClickHouseSinkError(`${this.where}: insert of ${b.lines.length} rows (batch ${b.seq}) ${why}: ${(e as Error).message.split('\n')[0]}`);
        }
        this.stats.retries++;
        // Full jitter would break nothing, but a fixed doubling keeps the total wait predictable.
        await sleep(delay);
        delay = Math.min(delay * 2, this.opts.maxBackoffMs);
      }
    }
  }

  flush(): void {}

  /**
   * Sends every row written so far; resolves with the progress a checkpoint records, or rejects
   * with the last insert error (the rows stay pending and the next commit tries them again).
   */
  async commit(): Promise<ClickHouseProgress> {
    await this.ready;
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

  /** Rows written but not yet confirmed by the server. */
  pendingRows(): number {
    return this.current.length + this.pending.reduce((n, b) => n + b.lines.length, 0);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    try {
      await this.commit();
    } finally {
      await this.transport.close();
    }
  }
}
