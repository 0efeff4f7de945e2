// ClickHouse sink: the resolved configuration and its resolver (defaults of
// docs/cdc-and-clickhouse-sink.md, applied once). The runtime sink reads the result.
import { ConnectorConfigError, OptionReader, type RawOption } from '../option-reader.ts';

export interface ClickHouseSinkConfig {
  connector: 'clickhouse';
  /** null: `PIPEC_CLICKHOUSE_URL` at start. */
  url: string | null;
  /** null: `PIPEC_CLICKHOUSE_USER` at start, else `default`. */
  user: string | null;
  /** Secret. null: `PIPEC_CLICKHOUSE_PASSWORD` at start, else empty. */
  password: string | null;
  database: string;
  table: string;
  batchSize: number;
  flushIntervalMs: number;
  maxAttempts: number;
  retryBackoffMs: number;
  maxRetryBackoffMs: number;
  dedup: 'auto' | 'token' | 'off';
  delivery: 'at-least-once' | 'exactly-once';
  /** The ORDER BY of a table the sink creates; null: the upsert key, else `tuple()`. */
  orderBy: string | null;
  /** The PARTITION BY of a table the sink creates; null: none. */
  partitionBy: string | null;
  templated: string[];
}

export function resolveClickHouseSink(name: string, opts: Record<string, RawOption>): ClickHouseSinkConfig {
  const r = new OptionReader(opts, `sink '${name}'`);
  const full = (r.text('table', 'table') ?? name).trim();
  const parts = full.split('.');
  const dedup = r.oneOf('dedup', ['auto', 'token', 'off'] as const, 'auto');
  const delivery = r.oneOf('delivery', ['at-least-once', 'exactly-once'] as const, 'at-least-once');
  if (delivery === 'exactly-once' && dedup === 'off') {
    throw new ConnectorConfigError(`sink '${name}': delivery = 'exactly-once' needs the deduplication token that dedup = 'off' turns off (use dedup = 'auto' or 'token')`);
  }
  const templatedTable = r.templated.includes('table');
  return {
    connector: 'clickhouse',
    url: r.text('url', 'url') ?? null,
    user: r.text('user', 'user') ?? null,
    password: r.text('password', 'password') ?? null,
    // A templated table name is split at start; as written it is `database` + `table` in one.
    database: templatedTable ? '' : parts.length === 2 ? parts[0]! : 'default',
    table: templatedTable ? full : parts[parts.length - 1]!,
    batchSize: r.int('batch_size', 10_000, 1),
    flushIntervalMs: r.durationMs('flush_interval', 1000),
    maxAttempts: r.int('max_attempts', 6, 1),
    retryBackoffMs: r.durationMs('retry_backoff', 200),
    maxRetryBackoffMs: r.durationMs('max_retry_backoff', 10_000),
    dedup,
    delivery,
    orderBy: r.text('order_by', 'ORDER BY expression') ?? null,
    partitionBy: r.text('partition_by', 'PARTITION BY expression') ?? null,
    templated: r.templated,
  };
}
