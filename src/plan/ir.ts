// The plan IR: the one serializable contract between the compiler core and the targets.
// Plain JSON data (no classes, no functions, no cycles): `pipec plan --format json` prints it
// (with `${NAME}`-fed values shown as templates, print/shown.ts), and targets/* read nothing
// of the compiler but this file, the diagnostics API and the SQL type model. Operators form
// a DAG listed in topological order.
import type { Span } from '../diagnostics/span.ts';
import type { SqlType, TimeUnitName } from './ir-types.ts';

export type { SqlType, TimeUnitName };

export const IR_VERSION = 1;

export interface PlanDoc {
  irVersion: typeof IR_VERSION;
  pipeline: IrPipeline;
  catalogs: IrCatalog[];
  sources: IrSource[];
  /** Topologically ordered: every operator's inputs appear before it. */
  operators: IrOperator[];
  views: IrView[];
  sinks: IrSink[];
  compactions: IrCompaction[];
}

export interface IrPipeline {
  name: string;
  /** The spec file, relative to the build's working directory, with forward slashes. */
  file: string;
  syntax: 'sql' | 'yaml';
  checkpointIntervalMs: number;
  options: Record<string, IrOption>;
}

/**
 * A `WITH` option after checking. `template` keeps `${VAR}` references as written; `value` is
 * the substituted text. Generated files must use `template`/`envVars` (never `value`) when
 * `envVars` is non-empty: that is how secrets and machine-specific URLs stay out of them.
 */
export interface IrOption {
  value: string;
  template: string;
  envVars: string[];
}

export interface IrColumn {
  name: string;
  type: SqlType;
  /** Connector metadata (`METADATA FROM 'offset'`), null for payload columns. */
  metadataFrom: string | null;
  /**
   * Known upper bound on the number of distinct values, when the schema says so (an Avro
   * enum's symbol count, a datagen `choice`'s value count); absent when unknown. Read by the
   * hot-partition lint. BOOLEAN columns need no hint.
   */
  cardinalityHint?: number;
}

// ---------------------------------------------------------------- sources

export type SourceConnector = 'kafka' | 'postgres-cdc' | 'file' | 'datagen';
export type SourceFormat = KafkaSourceFormat | FileSourceFormat;

export interface IrWatermark {
  column: string;
  /** Bounded out-of-orderness: watermark = max(column) - delayMs. */
  delayMs: number;
  /** null when the source sets no `idle_timeout`. */
  idleTimeoutMs: number | null;
}

/** What every source has, whatever its connector. */
export interface IrSourceBase {
  id: string;
  name: string;
  /** `registry:orders-value`, `file:schemas/orders.avsc`, ... as written; null when none. */
  schemaRef: string | null;
  /** Every column the source offers (declared, or from the schema). */
  columns: IrColumn[];
  /** The columns the plan reads, in `columns` order (projection pruning); decoders read only these. */
  usedColumns: string[];
  watermark: IrWatermark | null;
  /** `PRIMARY KEY` (or the table's key for CDC); null when none. */
  primaryKey: string[] | null;
  /** Kafka message key columns (`key` option); null when none (always null for other connectors). */
  messageKey: string[] | null;
  /** `append` for event streams; `changelog` for CDC (insert/update/delete rows). */
  changelog: 'append' | 'changelog';
  options: Record<string, IrOption>;
  /** For a schema-sourced source: the schema text's canonical form (for targets that embed it). */
  schemaText: string | null;
  /**
   * The registry subject's compatibility level (`BACKWARD`, `FULL_TRANSITIVE`, `NONE`, ...)
   * for a `registry:` schema; absent or null when unknown or not from a registry.
   */
  schemaCompatibility?: string | null;
  span: Span;
}

export type KafkaSourceFormat = 'json' | 'avro' | 'protobuf' | 'debezium-json';
export type FileSourceFormat = 'ndjson' | 'csv' | 'parquet';

/** A source, discriminated on `connector`: only Kafka and file sources have a value format. */
export type IrSource =
  | (IrSourceBase & { connector: 'kafka'; format: KafkaSourceFormat })
  | (IrSourceBase & { connector: 'file'; format: FileSourceFormat })
  | (IrSourceBase & { connector: 'postgres-cdc'; format: null })
  | (IrSourceBase & { connector: 'datagen'; format: null });

// ---------------------------------------------------------------- expressions

export type IrExpr =
  /** `input` is 0 for single-input operators; 0 = left, 1 = right in joins. */
  | { kind: 'col'; input: number; name: string; type: SqlType }
  /**
   * Literal values: decimals as their exact decimal string; timestamps as epoch milliseconds;
   * dates as days since epoch; intervals as milliseconds; bytes as base64.
   */
  | { kind: 'lit'; value: string | number | boolean | null; type: SqlType }
  | { kind: 'call'; fn: IrFn; args: IrExpr[]; type: SqlType; unit?: TimeUnitName }
  | { kind: 'cast'; operand: IrExpr; type: SqlType }
  | { kind: 'case'; whens: { when: IrExpr; then: IrExpr }[]; else: IrExpr | null; type: SqlType };

/**
 * Canonical scalar functions. Targets map these through their own function tables.
 * `in`: args[0] is the operand, the rest the list. `floor_to`/`ceil_to`/`extract`/
 * `timestampadd` carry `unit`. `like` is SQL LIKE with `%` and `_`.
 */
export type IrFn =
  | 'add' | 'sub' | 'mul' | 'div' | 'mod' | 'neg'
  | 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge'
  | 'and' | 'or' | 'not' | 'is_null' | 'is_not_null' | 'in' | 'not_in' | 'like' | 'not_like'
  | 'concat' | 'lower' | 'upper' | 'substring' | 'trim' | 'ltrim' | 'rtrim' | 'char_length'
  | 'coalesce' | 'nullif'
  | 'floor_to' | 'ceil_to' | 'extract' | 'timestampadd' | 'to_timestamp_ltz' | 'json_value';

export const IR_FNS: readonly IrFn[] = [
  'add', 'sub', 'mul', 'div', 'mod', 'neg', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or', 'not',
  'is_null', 'is_not_null', 'in', 'not_in', 'like', 'not_like', 'concat', 'lower', 'upper', 'substring',
  'trim', 'ltrim', 'rtrim', 'char_length', 'coalesce', 'nullif', 'floor_to', 'ceil_to', 'extract',
  'timestampadd', 'to_timestamp_ltz', 'json_value',
];

export type IrAggFn =
  | 'count_star' | 'count' | 'count_distinct' | 'sum' | 'min' | 'max' | 'avg'
  | 'approx_count_distinct' | 'first_value' | 'last_value';

export const IR_AGG_FNS: readonly IrAggFn[] = [
  'count_star', 'count', 'count_distinct', 'sum', 'min', 'max', 'avg', 'approx_count_distinct', 'first_value', 'last_value',
];

export interface IrAggregate {
  /** Output column name. */
  name: string;
  fn: IrAggFn;
  /** null only for count_star. */
  arg: IrExpr | null;
  type: SqlType;
}

export interface IrNamedExpr {
  name: string;
  expr: IrExpr;
}

// ---------------------------------------------------------------- operators

export type Changelog = 'append' | 'upsert' | 'retract';

/** How large an operator's state can grow: what the "unbounded state" lint and `pipec plan` show. */
export type StateBound =
  | { kind: 'stateless' }
  /** Bounded by window size + allowed lateness (per key). */
  | { kind: 'window'; retainMs: number }
  /** Bounded by a join's time bound. */
  | { kind: 'interval'; retainMs: number }
  | { kind: 'ttl'; ttlMs: number }
  | { kind: 'unbounded'; reason: string };

export type IrWindow =
  | { kind: 'tumble'; sizeMs: number; offsetMs: number }
  | { kind: 'hop'; slideMs: number; sizeMs: number }
  | { kind: 'cumulate'; stepMs: number; sizeMs: number }
  | { kind: 'session'; gapMs: number; partitionBy: string[] };

export type LateHandling = { kind: 'drop' } | { kind: 'to'; sink: string } | { kind: 'unspecified' };

interface OperatorBase {
  id: string;
  inputs: string[];
  /** Output columns. */
  schema: IrColumn[];
  changelog: Changelog;
  /** Key of an upsert/retract stream (group keys + window_start for EMIT CHANGES, + window_end for SESSION). */
  upsertKey: string[] | null;
  stateBound: StateBound;
  /** Event-time column carried in the output, with the watermark path, or null. */
  timeColumn: string | null;
  span: Span;
}

export interface ScanOp extends OperatorBase {
  op: 'scan';
  source: string;
}

export interface FilterOp extends OperatorBase {
  op: 'filter';
  predicate: IrExpr;
}

export interface ProjectOp extends OperatorBase {
  op: 'project';
  exprs: IrNamedExpr[];
}

export interface WindowAggOp extends OperatorBase {
  op: 'window_agg';
  window: IrWindow;
  /** The input's event-time column the window is assigned on. */
  windowTimeColumn: string;
  groupKeys: IrNamedExpr[];
  aggregates: IrAggregate[];
  /** Window columns present in the output (always window_start and window_end; window_time if selected). */
  windowColumns: ('window_start' | 'window_end' | 'window_time')[];
  emit: 'on_window_close' | 'changes';
  allowedLatenessMs: number;
  late: LateHandling;
  /**
   * Pane size set by the optimizer for HOP/CUMULATE (gcd of slide and size, or the step):
   * each event updates exactly one pane; windows are merged from panes when they fire.
   */
  paneMs: number | null;
}

export interface GroupAggOp extends OperatorBase {
  op: 'group_agg';
  groupKeys: IrNamedExpr[];
  aggregates: IrAggregate[];
  /** `state_ttl` of the view; null (with unbounded state) is an error reported by the checker. */
  stateTtlMs: number | null;
}

export interface IntervalJoinOp extends OperatorBase {
  op: 'interval_join';
  joinType: 'inner' | 'left';
  leftKeys: IrExpr[];
  rightKeys: IrExpr[];
  leftTime: string;
  rightTime: string;
  /** The join holds when leftTime - rightTime is in [lowerMs, upperMs]. */
  lowerMs: number;
  upperMs: number;
  residual: IrExpr | null;
  /** Output columns: which input and column each comes from. */
  outputMap: { name: string; input: number; column: string }[];
  /**
   * A row whose time is below the watermark minus this is late: rows it could match may be gone, so
   * it joins nothing (Flink's rule, with the view's ALLOWED LATENESS as slack; 0 without one).
   */
  allowedLatenessMs: number;
  /** What happens to late rows (the view's ON LATE; counted either way). */
  late: LateHandling;
}

export interface TemporalJoinOp extends OperatorBase {
  op: 'temporal_join';
  joinType: 'inner' | 'left';
  leftKeys: IrExpr[];
  /** The changelog side's primary key columns, in leftKeys order. */
  rightKeys: string[];
  /** Left-side event-time column of `FOR SYSTEM_TIME AS OF`. */
  asOfColumn: string;
  residual: IrExpr | null;
  outputMap: { name: string; input: number; column: string }[];
}

export interface UnionOp extends OperatorBase {
  op: 'union';
}

export type IrOperator = ScanOp | FilterOp | ProjectOp | WindowAggOp | GroupAggOp | IntervalJoinOp | TemporalJoinOp | UnionOp;
export type IrOperatorKind = IrOperator['op'];

export interface IrView {
  name: string;
  /** The operator whose output is the view. */
  operator: string;
  span: Span;
}

// ---------------------------------------------------------------- sinks

export type SinkConnector = 'clickhouse' | 'iceberg' | 'kafka' | 'stdout' | 'file';

export type IcebergTransform = 'identity' | 'bucket' | 'truncate' | 'year' | 'month' | 'day' | 'hour';

export interface IrPartitionField {
  column: string;
  transform: IcebergTransform;
  /** N of bucket[N], W of truncate[W]; null otherwise. */
  param: number | null;
}

export interface IrSortField {
  column: string;
  direction: 'asc' | 'desc';
  nulls: 'first' | 'last';
}

export interface IrIcebergSink {
  catalog: string;
  /** `namespace.table`. */
  table: string;
  partitionBy: IrPartitionField[];
  sortBy: IrSortField[];
  formatVersion: 2 | 3;
  targetFileSizeBytes: number;
  commitIntervalMs: number;
  writeMode: 'copy-on-write' | 'merge-on-read';
  compressionCodec: string;
}

export interface IrClickHouseSink {
  /** `database.table`: what the runtime's ClickHouse sink writes. */
  table: string;
  /**
   * The `ddl_table` option as written (`database.table` or a bare name in the pipeline's database): the table the
   * ClickHouse target's DDL creates for this sink. Absent: `<pipeline>.<sink>` (src/plan/clickhouse-ddl-table.ts).
   */
  ddlTable?: string;
  orderBy: string[];
  partitionBy: string | null;
  ttl: string | null;
}

export interface IrKafkaSink {
  topic: string;
  format: 'json' | 'avro' | 'protobuf';
  key: string[] | null;
  acks: 'all' | '1' | '0';
  idempotent: boolean;
  delivery: 'exactly-once' | 'at-least-once';
}

export interface IrFileSink {
  path: string;
  format: 'ndjson' | 'parquet';
}

/** What every sink has, whatever its connector. */
export interface IrSinkBase {
  id: string;
  name: string;
  /** The operator feeding the sink; null for a sink that only receives late events. */
  input: string | null;
  /** window_agg operators whose late events (`ON LATE TO`) this sink receives. */
  lateFrom: string[];
  schema: IrColumn[];
  changelog: Changelog;
  upsertKey: string[] | null;
  options: Record<string, IrOption>;
  span: Span;
}

/**
 * A sink, discriminated on `connector`: each connector's checked settings are a section that is
 * always there (a sink whose section could not be checked is reported and left out of the plan).
 */
export type IrSink =
  | (IrSinkBase & { connector: 'iceberg'; iceberg: IrIcebergSink })
  | (IrSinkBase & { connector: 'clickhouse'; clickhouse: IrClickHouseSink })
  | (IrSinkBase & { connector: 'kafka'; kafka: IrKafkaSink })
  | (IrSinkBase & { connector: 'file'; file: IrFileSink })
  | (IrSinkBase & { connector: 'stdout' });

/** The sink of one connector. */
export type IrSinkOf<C extends SinkConnector> = Extract<IrSink, { connector: C }>;

// ---------------------------------------------------------------- catalogs and maintenance

export interface IrCatalog {
  name: string;
  type: 'sql' | 'rest' | 'filesystem';
  options: Record<string, IrOption>;
  span: Span;
}

export type IrCompactionAction =
  | { kind: 'rewrite_data_files'; fileSizeBelowBytes: number | null; targetBytes: number | null; minInputFiles: number | null }
  | { kind: 'rewrite_delete_files'; deleteRatioAbove: number }
  | { kind: 'expire_snapshots'; olderThanMs: number; retainLast: number | null }
  | { kind: 'remove_orphan_files'; olderThanMs: number };

export interface IrCompaction {
  name: string;
  /** The Iceberg sink's name. */
  sink: string;
  actions: IrCompactionAction[];
  scheduleMs: number | null;
  span: Span;
}
