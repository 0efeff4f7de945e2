// The clickhouse sink connector (docs/cdc-and-clickhouse-sink.md): batched inserts with
// deduplication tokens, at-least-once or exactly-once per checkpoint interval.
import { duration, int, oneOf, str, COMMON_SINK_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { resolveClickHouseSink } from '../../../targets/runtime/lib/config/clickhouse/config.ts';
import { clickhouseDedup } from './lints.ts';

export const clickhouse: ConnectorDescriptor = {
  name: 'clickhouse',
  doc: 'Inserts rows into a ClickHouse table in batches; the ClickHouse target creates the table (MergeTree, ReplacingMergeTree for upserts).',
  sink: {
    options: [
      ...COMMON_SINK_OPTIONS,
      { key: 'url', type: str, default: '`PIPEC_CLICKHOUSE_URL` at start', doc: 'HTTP endpoint of the server.' },
      { key: 'table', type: str, required: true, doc: '`table` or `database.table`.' },
      { key: 'ddl_table', type: str, default: '`<pipeline>.<sink>`', doc: "The table the ClickHouse target's DDL creates instead of `table` (never the runtime's by default)." },
      { key: 'order_by', type: str, default: "the input's upsert key", doc: 'ORDER BY columns of the created table.' },
      { key: 'partition_by', type: str, doc: 'PARTITION BY expression of the created table.' },
      { key: 'ttl', type: str, doc: 'TTL expression of the created table.' },
      { key: 'user', type: str, default: '`PIPEC_CLICKHOUSE_USER`, else default', doc: 'User name.' },
      { key: 'password', type: str, secret: true, default: '`PIPEC_CLICKHOUSE_PASSWORD`, else empty', doc: 'Password (use `${VAR}`).' },
      { key: 'batch_size', type: int(1), default: '10000', doc: 'Rows per insert.' },
      { key: 'flush_interval', type: duration, default: '1 s', doc: 'A partial batch is sent after this long.' },
      { key: 'max_attempts', type: int(1), default: '6', doc: 'Attempts per batch, the first included.' },
      { key: 'retry_backoff', type: duration, default: '200 ms', doc: 'First retry delay (doubling).' },
      { key: 'max_retry_backoff', type: duration, default: '10 s', doc: 'Largest retry delay.' },
      { key: 'dedup', type: oneOf('auto', 'token', 'off'), default: 'auto', doc: 'insert_deduplication_token: when the server knows it, always, or never.' },
      { key: 'delivery', type: oneOf('exactly-once', 'at-least-once'), default: 'at-least-once', doc: 'exactly-once: per-checkpoint intervals re-inserted under the same tokens.' },
    ],
    resolve: (s) => resolveClickHouseSink(s.name, s.options),
  },
  lints: [clickhouseDedup],
  targets: {
    runtime: { sink: { module: 'clickhouse', binding: 'clickhouseModule' } },
    clickhouse: 'sink: a MergeTree table (ReplacingMergeTree for an upsert stream) fed by materialized views',
    flink: { sink: 'jdbc' },
  },
};
