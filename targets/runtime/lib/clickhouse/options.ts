// `clickhouse` sink options as the runtime sink needs them, made from the resolved config the
// compiler decided (targets/runtime/lib/config/clickhouse/config.ts), and the URL with its password
// redacted for messages.
import { ConnectorConfigError, rawOptions } from '../config/option-reader.ts';
import { resolveClickHouseSink, type ClickHouseSinkConfig } from '../config/clickhouse/config.ts';

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

/**
 * The runtime's options of a sink, from the resolved config the compiler decided (`def.config`,
 * targets/runtime/lib/config/clickhouse/config.ts). Only run-time facts are added: the URL and credentials
 * from the environment when the spec gives none.
 */
export function sinkOptionsOf(name: string, cfg: ClickHouseSinkConfig, env: Record<string, string | undefined>): ClickHouseSinkOptions {
  const url = cfg.url ?? env.PIPEC_CLICKHOUSE_URL;
  if (!url) throw new ClickHouseSinkError(`sink '${name}': the clickhouse connector needs 'url' (or PIPEC_CLICKHOUSE_URL)`);
  // A `${VAR}` table name is split once substituted (database is then empty).
  const parts = cfg.database === '' ? cfg.table.split('.') : [cfg.database, cfg.table];
  const full = parts.join('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) throw new ClickHouseSinkError(`sink '${name}': table '${full}' is not a plain [database.]table`);
  return {
    url,
    username: cfg.user ?? env.PIPEC_CLICKHOUSE_USER ?? 'default',
    password: cfg.password ?? env.PIPEC_CLICKHOUSE_PASSWORD ?? '',
    database: parts.length === 2 ? parts[0]! : 'default',
    table: parts[parts.length - 1]!,
    batchSize: cfg.batchSize,
    flushIntervalMs: cfg.flushIntervalMs,
    maxAttempts: cfg.maxAttempts,
    backoffMs: cfg.retryBackoffMs,
    maxBackoffMs: cfg.maxRetryBackoffMs,
    dedup: cfg.dedup,
    delivery: cfg.delivery,
  };
}

/** A hand-made def (tests): its options through the same resolver as the compiler's. */
export function sinkOptions(name: string, o: Record<string, string>, env: Record<string, string | undefined>): ClickHouseSinkOptions {
  let cfg: ClickHouseSinkConfig;
  try {
    cfg = resolveClickHouseSink(name, rawOptions(o));
  } catch (e) {
    if (e instanceof ConnectorConfigError) throw new ClickHouseSinkError(e.message);
    throw e;
  }
  return sinkOptionsOf(name, cfg, env);
}
