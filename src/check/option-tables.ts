// Option tables per connector, catalog type and statement (LANGUAGE.md "Connectors").
// Keys outside a table are errors; defaults are applied by the code that reads the values.
import { bool, duration, int, oneOf, size, str, type OptSpec, type OptType } from './options.ts';

export const SOURCE_CONNECTORS = ['kafka', 'postgres-cdc', 'file', 'datagen'] as const;
export const SINK_CONNECTORS = ['clickhouse', 'iceberg', 'kafka', 'stdout', 'file'] as const;
export const CATALOG_TYPES = ['sql', 'rest', 'filesystem'] as const;

// idle_timeout is accepted on every source: the watermark rule of LANGUAGE.md does not depend on the connector.
const common: OptSpec[] = [{ key: 'connector', type: str, required: true }, { key: 'idle_timeout', type: duration }];

export const SOURCE_OPTIONS: Record<(typeof SOURCE_CONNECTORS)[number], OptSpec[]> = {
  kafka: [
    ...common,
    { key: 'topic', type: str, required: true },
    { key: 'brokers', type: str },
    { key: 'group_id', type: str },
    { key: 'format', type: oneOf('json', 'avro', 'protobuf', 'debezium-json') },
    { key: 'schema', type: str },
    { key: 'key', type: str },
    { key: 'startup', type: oneOf('earliest', 'latest', 'committed') },
    { key: 'partitions', type: int(1) },
    // Runtime: bytes fetched per partition and request.
    { key: 'fetch.max_bytes', type: int(1) },
  ],
  'postgres-cdc': [
    ...common,
    { key: 'dsn', type: str, required: true },
    { key: 'table', type: str, required: true },
    { key: 'slot', type: str },
    { key: 'publication', type: str },
    { key: 'snapshot', type: oneOf('initial', 'never') },
    { key: 'heartbeat', type: duration },
    // Runtime: rows per cursor fetch of the initial snapshot; how long to keep reconnecting.
    { key: 'snapshot.fetch_size', type: int(1) },
    { key: 'reconnect_timeout', type: duration },
  ],
  file: [
    ...common,
    { key: 'path', type: str, required: true },
    { key: 'format', type: oneOf('ndjson', 'csv', 'parquet') },
    { key: 'follow', type: bool },
    { key: 'schema', type: str },
    // A bounded source whose path matches no file fails the run unless this is 'true'.
    { key: 'allow_empty', type: bool },
  ],
  datagen: [
    ...common,
    { key: 'rows_per_second', type: int(1) },
    { key: 'total_rows', type: int(0) },
    { key: 'seed', type: int() },
    { key: 'partitions', type: int(1) },
  ],
};

/** Types of datagen's per-column keys `fields.<col>.<attr>`; min/max/step are checked against the column type later. */
export const DATAGEN_FIELD_ATTRS: Record<string, OptType> = {
  kind: oneOf('sequence', 'random', 'choice'),
  min: str,
  max: str,
  values: str,
  step: str,
  null_rate: { kind: 'number' },
};

export const SINK_OPTIONS: Record<(typeof SINK_CONNECTORS)[number], OptSpec[]> = {
  clickhouse: [
    { key: 'connector', type: str, required: true },
    { key: 'url', type: str },
    { key: 'table', type: str, required: true },
    // The table the ClickHouse target's DDL creates instead (default <pipeline>.<sink>): never the runtime's table.
    { key: 'ddl_table', type: str },
    { key: 'order_by', type: str },
    { key: 'partition_by', type: str },
    { key: 'ttl', type: str },
    { key: 'user', type: str },
    { key: 'password', type: str },
    // Runtime sink: batching, retries and insert deduplication (docs/cdc-and-clickhouse-sink.md).
    { key: 'batch_size', type: int(1) },
    { key: 'flush_interval', type: duration },
    { key: 'max_attempts', type: int(1) },
    { key: 'retry_backoff', type: duration },
    { key: 'max_retry_backoff', type: duration },
    { key: 'dedup', type: oneOf('auto', 'token', 'off') },
    // at-least-once (default): time-cut batches; exactly-once: per-checkpoint intervals re-inserted under the same tokens.
    { key: 'delivery', type: oneOf('exactly-once', 'at-least-once') },
  ],
  iceberg: [
    { key: 'connector', type: str, required: true },
    { key: 'catalog', type: str, required: true },
    { key: 'table', type: str, required: true },
    { key: 'partition_by', type: str },
    { key: 'sort_by', type: str },
    { key: 'format_version', type: oneOf('2', '3') },
    { key: 'target_file_size', type: size },
    { key: 'commit_interval', type: duration },
    { key: 'write_mode', type: oneOf('copy-on-write', 'merge-on-read') },
    { key: 'compression', type: oneOf('snappy', 'gzip', 'uncompressed') },
  ],
  kafka: [
    { key: 'connector', type: str, required: true },
    { key: 'topic', type: str, required: true },
    { key: 'brokers', type: str },
    { key: 'format', type: oneOf('json', 'avro', 'protobuf') },
    { key: 'schema', type: str },
    { key: 'key', type: str },
    { key: 'acks', type: oneOf('all', '-1', '1', '0') },
    { key: 'enable.idempotence', type: bool },
    { key: 'idempotence', type: bool },
    { key: 'delivery', type: oneOf('exactly-once', 'at-least-once') },
    { key: 'transactional_id', type: str },
  ],
  stdout: [
    { key: 'connector', type: str, required: true },
    { key: 'format', type: oneOf('table', 'ndjson') },
  ],
  file: [
    { key: 'connector', type: str, required: true },
    { key: 'path', type: str, required: true },
    { key: 'format', type: oneOf('ndjson', 'parquet') },
  ],
};

export const CATALOG_OPTIONS: Record<(typeof CATALOG_TYPES)[number], OptSpec[]> = {
  sql: [
    { key: 'type', type: str, required: true },
    { key: 'uri', type: str, required: true },
    { key: 'warehouse', type: str, required: true },
    { key: 'user', type: str },
    { key: 'password', type: str },
  ],
  rest: [
    { key: 'type', type: str, required: true },
    { key: 'uri', type: str, required: true },
    { key: 'warehouse', type: str },
    { key: 'credential', type: str },
    { key: 'token', type: str },
  ],
  filesystem: [
    { key: 'type', type: str, required: true },
    { key: 'warehouse', type: str },
  ],
};

export const PIPELINE_OPTIONS: OptSpec[] = [
  { key: 'checkpoint_interval', type: duration },
  // Runtime: where undecodable records go (default `<pipeline>.dead-letters.ndjson`).
  { key: 'dead_letter_path', type: str },
  // 'partitions': each Kafka partition is a task with its own state and watermark, so several
  // runtime processes can share the work (src/check/scale-out.ts refuses what that cannot run).
  { key: 'scale_out', type: oneOf('none', 'partitions') },
  // Flink target: the job's parallelism in flink/deployment.yaml (the runtime runs one process per member).
  { key: 'parallelism', type: int(1) },
];

export const VIEW_OPTIONS: OptSpec[] = [{ key: 'state_ttl', type: duration }];

/** Options a `CREATE SINK ... AS SELECT` takes for its query besides the connector's. */
export const SINK_QUERY_OPTIONS: OptSpec[] = [{ key: 'state_ttl', type: duration }];

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 30_000;
