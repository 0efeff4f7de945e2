// The `clickhouse` sink: rows encoded per the table's column types, sent in batches of
// `batch_size` rows (or after `flush_interval`), each retried with exponential backoff under
// one `insert_deduplication_token` derived from the batch's sequence number, the source
// positions it covers and its content — so a retried or replayed batch lands once.
import { createHash } from 'node:crypto';
import type { RunningSink, SinkDef } from '../io/sinks.ts';
import type { Row } from '../ops/types.ts';
import { rowEncoder } from './encode.ts';
import { ClickHouseSinkError, redactUrl, sinkOptions, type ClickHouseSinkOptions } from './options.ts';
import { HttpTransport, type ChTransport } from './transport.ts';

/** What a checkpoint records: batches sent so far (restores the token sequence on replay). */
export interface ClickHouseProgress {
  seq: number;
  rows: number;
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
  private ready: Promise<void> | null = null;
  private current: string[] = [];
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
    this.encode = rowEncoder(this.def.columns, cols, { quoteDecimals: major >= 19 }, this.where);
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

  write(row: Row): void {
    this.rowsOut++;
    if (this.current.length === 0) {
      this.currentFrom = this.positionsText();
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.cut();
      }, this.opts.flushIntervalMs);
    }
    // Encoding waits for the table's types: buffer the row until then.
    this.current.push(this.encode ? this.encode(row) : (row as never));
    if (this.current.length >= this.opts.batchSize) this.cut();
  }

  /** Closes the current batch and hands it to the sender. */
  private cut(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.current.length === 0) return;
    const lines = this.current;
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
        b.lines = b.lines.map((l) => (typeof l === 'string' ? l : this.encode!(l as unknown as Row)));
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
    return { seq: this.seq - this.pending.length, rows: this.stats.rowsInserted };
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
