// The physical plan: the logical plan (PlanDoc) lowered to everything a target must not decide
// alone. Plain JSON, versioned by PHYSICAL_VERSION; `pipec plan --physical` prints it (text,
// json, dot) and the runtime code generator reads it. Documented in src/plan/CONTEXT.md.
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import type { Changelog, FileSourceFormat, KafkaSourceFormat, IrCatalog, IrCompactionAction, IrOperatorKind, IrPartitionField, IrSortField, StateBound } from '../ir.ts';
import type { Span } from '../../diagnostics/span.ts';

/**
 * 2: sinks carry their table layout (`table`). 3: topic-backed sources carry their topic (`topic`);
 * the plan carries its Iceberg catalogs (`catalogs`) and compaction policies (`compactions`).
 * 4: sources carry their value format as decoded (`format`: kind, Avro/Protobuf wire, schema);
 * the pipeline its scale-out mode, dead-letter path and parallelism.
 */
export const PHYSICAL_VERSION = 4;

export interface PhysicalPlan {
  physicalVersion: typeof PHYSICAL_VERSION;
  pipeline: {
    name: string;
    checkpointIntervalMs: number;
    /** `scale_out`: 'partitions' runs members that share one Kafka source's partitions (physical version 4). */
    scaleOut: 'none' | 'partitions';
    /** `dead_letter_path` as written; null: `<pipeline>[.<member>].dead-letters.ndjson` beside the spec (version 4). */
    deadLetterPath: string | null;
    /** `parallelism` (default 1): the task slots a distributed engine (the Flink deployment) gives each operator (version 4). */
    parallelism: number;
  };
  sources: PhysicalSource[];
  /** The logical operators in the same (topological) order, each with its physical decisions. */
  operators: PhysicalOperator[];
  sinks: PhysicalSink[];
  /** Every `CREATE CATALOG`, in declaration order (Iceberg sinks name one in their config). */
  catalogs: PhysicalCatalog[];
  /** Every `CREATE COMPACTION POLICY`, in declaration order. */
  compactions: PhysicalCompaction[];
  /** What the plan asks for that cannot be lowered (targets report these; nothing runs). */
  unsupported: { what: string; name: string; span: Span }[];
}

/** A change's commit time used as version time (a changelog source joined as a versioned table without WATERMARK). */
export interface VersionClock {
  /** The added row column: `$version_ts`. */
  column: string;
  /** Connector metadata key holding the commit time (epoch ms). */
  meta: string;
  /** The source counts as caught up this long after its last change (its `idle_timeout`, default 5 s). */
  idleTimeoutMs: number;
}

/** An option's text as the plan may show it: its `${VAR}` template when `envVars` is non-empty, never the substituted value. */
export interface PlanValue {
  text: string;
  envVars: string[];
}

/**
 * The Kafka topic a source is read from by an engine that consumes it itself (ClickHouse's Kafka
 * engine): a `kafka` source's topic, or the Debezium topic of a `postgres-cdc` table.
 */
export interface SourceTopic {
  /** The `topic` option; else a postgres-cdc table's Debezium topic `<source>.<schema>.<table>`, else the source name. */
  topic: PlanValue;
  /** The `brokers` option, else `${PIPEC_KAFKA_BROKERS}`. */
  brokers: PlanValue;
  /** The `group_id` option as given; null: each engine names its own group (never the runtime's for ClickHouse). */
  groupId: PlanValue | null;
  /** The `startup` option as given (null: not given, or from the environment). */
  startup: string | null;
  /** Consumers per engine table (the `consumers` option, default 1). */
  consumers: number;
  /** The pipeline's `schema_registry_url` (or the source's), else `${PIPEC_SCHEMA_REGISTRY_URL}`. */
  registryUrl: PlanValue;
}

/**
 * An Iceberg catalog: its options with `${VAR}` templates kept (substituted where it is opened: the
 * runtime at start, `pipec compact` with the run's variables), never their values.
 */
export interface PhysicalCatalog {
  name: string;
  type: IrCatalog['type'];
  options: Record<string, PlanValue>;
}

/** A compaction policy of an Iceberg sink's table: what `pipec compact` runs and the maintenance files describe. */
export interface PhysicalCompaction {
  name: string;
  /** The Iceberg sink's name. */
  sink: string;
  actions: IrCompactionAction[];
  /** null: on demand only. */
  scheduleMs: number | null;
}

/** A source's value format as the runtime decodes it (physical version 4). */
export interface PhysicalSourceFormat {
  kind: KafkaSourceFormat | FileSourceFormat;
  /**
   * Avro/Protobuf only: 'plain' values a `file:` schema describes (Flink's avro / protobuf
   * formats), or 'confluent': the Confluent wire format, writer schemas from the registry (a
   * `registry:` subject, or no schema at all). null for the other formats.
   */
  wire: 'plain' | 'confluent' | null;
  /** The `schema` reference as written (`registry:orders-value`, `file:x.avsc`); null when none. */
  schema: string | null;
}

export interface PhysicalSource {
  id: string;
  name: string;
  connector: SourceConfig['connector'];
  /** Some live operator scans it; a dead source is neither opened nor read. */
  live: boolean;
  /** Every option resolved, every default applied (targets/runtime/lib/config/<name>/config.ts). */
  config: SourceConfig;
  /**
   * The row the source produces, in order: the used columns, the watermark column when pruned
   * away, the normalize key columns when pruned away, then the version clock's column.
   */
  rowColumns: string[];
  /** A changelog normalize (last row per key) between the source and its consumers; null when none. */
  normalize: { key: string[] } | null;
  versionClock: VersionClock | null;
  /** Where the watermark starts: the column, its delay, its idle timeout (null: never idle). null: no event time. */
  watermark: { column: string; delayMs: number; idleTimeoutMs: number | null } | null;
  /** `kafka` and `postgres-cdc` sources: the topic an engine that consumes it reads (physical version 3); null otherwise. */
  topic: SourceTopic | null;
  /** `kafka` and `file` sources: the value format (physical version 4); null for connectors without one. */
  format: PhysicalSourceFormat | null;
}

export interface PhysicalOperator {
  id: string;
  op: IrOperatorKind;
  inputs: string[];
  /** A scan's source id; null for other operators. */
  source: string | null;
  /** Feeds a sink (directly, through other operators, or with late rows). Dead operators are not run. */
  live: boolean;
  changelog: Changelog;
  /**
   * What the operator's state is keyed by, and what a distributed engine would shuffle on
   * (expression texts; for joins `left = right` per key). null: stateless or one global group.
   */
  partitionKey: string[] | null;
  stateBound: StateBound;
  /** HOP/CUMULATE/TUMBLE pane size (each event updates one pane); null for other operators and sessions. */
  paneMs: number | null;
  /** GROUP BY only: emits '-U' before '+U' (its input retracts, or a consumer must retract). */
  updateBefore: boolean;
  /** The sources whose watermarks reach this operator (its watermark is their minimum). */
  watermarkFrom: string[];
}

/**
 * When a sink's output becomes durable, relative to checkpoints:
 * - `flush`: written as the runner flushes; a checkpoint waits for outstanding writes;
 * - `checkpoint`: staged per checkpoint interval, committed once the checkpoint is durable;
 * - `interval`: committed at the first checkpoint after `intervalMs` (Iceberg snapshots).
 */
export type CommitPoint = { kind: 'flush' } | { kind: 'checkpoint' } | { kind: 'interval'; intervalMs: number };

/**
 * The table a storing sink writes, with the layout a target creates it with (the ClickHouse
 * DDL, the Iceberg metadata and the runtime's create-if-missing read this, never the options):
 * - `clickhouse`: `database`.`name` (a bare table name is in `default`), the sorting key (the
 *   `order_by` option, else the upsert key), the user's PARTITION BY and TTL expressions;
 * - `iceberg`: the partition spec and the sort order (catalog and table are in the config).
 */
export type SinkTable =
  | { kind: 'clickhouse'; database: string; name: string; orderBy: string[]; partitionBy: string | null; ttl: string | null }
  | { kind: 'iceberg'; partitionSpec: IrPartitionField[]; sortOrder: IrSortField[] };

export interface PhysicalSink {
  id: string;
  name: string;
  connector: SinkConfig['connector'];
  input: string | null;
  lateFrom: string[];
  changelog: Changelog;
  upsertKey: string[] | null;
  config: SinkConfig;
  commit: CommitPoint;
  /** null: the sink stores no table (Kafka, files, stdout), or its table was not given (reported). */
  table: SinkTable | null;
}
