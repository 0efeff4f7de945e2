// `clickhouse` sink options (LANGUAGE.md) read once from the `WITH (...)` map, and the URL with
// its password redacted for messages.

export type DedupMode = 'auto' | 'token' | 'off';

/**
 * `at-least-once`: batches cut by size and time, inserted at once (tokens protect retries);
 * `exactly-once`: rows staged per checkpoint interval, inserted after the checkpoint under
 * tokens a restart reproduces (interval-store.ts).
 */
export type ClickHouseDelivery = 'at-least-once' | 'exactly-once';

export interface ClickHouseSinkOptions {
  url: string;
  username: string;
  password: string;
  /** `db.table` (database defaults to `default`). */
  database: string;
  table: string;
  /** Rows per insert. */
  batchSize: number;
  /** A partial batch is sent after this long. */
  flushIntervalMs: number;
  /** Attempts per batch (the first one included). */
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  /**
   * `auto`: send insert_deduplication_token when the server knows it; `token`: require it (and,
   * with exactly-once delivery, a table known to deduplicate); `off`: never send it.
   */
  dedup: DedupMode;
  delivery: ClickHouseDelivery;
}

export class ClickHouseSinkError extends Error {}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

function duration(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?\s*$/i.exec(text);
  if (!m) throw new ClickHouseSinkError(`${what} '${text}' is not a duration like '1 s'`);
  const unit = (m[2] ?? 's').toLowerCase();
  return Math.round(Number(m[1]) * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'h' ? 3600_000 : 60_000));
}

function positiveInt(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new ClickHouseSinkError(`${what} must be a positive integer, not '${text}'`);
  return n;
}

export function sinkOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>): ClickHouseSinkOptions {
  const url = o.url ?? env.PIPEC_CLICKHOUSE_URL;
  if (!url) throw new ClickHouseSinkError(`sink '${name}': the clickhouse connector needs 'url' (or PIPEC_CLICKHOUSE_URL)`);
  const full = o.table ?? name;
  const parts = full.split('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) throw new ClickHouseSinkError(`sink '${name}': table '${full}' is not a plain [database.]table`);
  const dedup = (o.dedup ?? 'auto') as DedupMode;
  if (dedup !== 'auto' && dedup !== 'token' && dedup !== 'off') throw new ClickHouseSinkError(`sink '${name}': dedup must be auto, token or off, not '${dedup}'`);
  const delivery = (o.delivery ?? 'at-least-once') as ClickHouseDelivery;
  if (delivery !== 'at-least-once' && delivery !== 'exactly-once') throw new ClickHouseSinkError(`sink '${name}': delivery must be at-least-once or exactly-once, not '${delivery}'`);
  if (delivery === 'exactly-once' && dedup === 'off') {
    throw new ClickHouseSinkError(`sink '${name}': delivery = 'exactly-once' needs the deduplication token that dedup = 'off' turns off (use dedup = 'auto' or 'token')`);
  }
  return {
    url,
    username: o.user ?? env.PIPEC_CLICKHOUSE_USER ?? 'default',
    password: o.password ?? env.PIPEC_CLICKHOUSE_PASSWORD ?? '',
    database: parts.length === 2 ? parts[0]! : 'default',
    table: parts[parts.length - 1]!,
    batchSize: positiveInt(o.batch_size ?? '10000', `sink '${name}': batch_size`),
    flushIntervalMs: duration(o.flush_interval ?? '1 s', `sink '${name}': flush_interval`),
    maxAttempts: positiveInt(o.max_attempts ?? '6', `sink '${name}': max_attempts`),
    backoffMs: duration(o.retry_backoff ?? '200 ms', `sink '${name}': retry_backoff`),
    maxBackoffMs: duration(o.max_retry_backoff ?? '10 s', `sink '${name}': max_retry_backoff`),
    dedup,
    delivery,
  };
}
