// Option tables per catalog type and statement (LANGUAGE.md). Connector options are in each
// connector's descriptor (src/connectors/<name>/descriptor.ts). Keys outside a table are
// errors; defaults are applied by the code that reads the values.
import { duration, int, oneOf, str, type OptSpec } from './options.ts';

export const CATALOG_TYPES = ['sql', 'rest', 'filesystem'] as const;

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
