// What generated code declares about a source and what a running source reports back.
import type { Row } from '../ops/types.ts';
import type { SourceConfig } from '../config/config-types.ts';

/** One declared column as the runtime sees it (only the columns the plan uses). */
export interface ColumnDef {
  name: string;
  /** SQL type kind: 'bigint', 'decimal', 'timestamp', ... */
  kind: string;
  nullable: boolean;
  precision?: number;
  scale?: number;
  /** `METADATA FROM '<key>'`: read from the record's connector metadata, not its payload. */
  meta?: string;
}

/**
 * Connector metadata of a raw record (file, line, offset, partition, timestamp, key, ...),
 * attached to the parsed record under this symbol when the source declares metadata columns.
 */
export const META: unique symbol = Symbol.for('pipec.meta') as never;

/** The metadata value `key` of a raw record, or null. */
export function meta(o: any, key: string): unknown {
  const m = o?.[META];
  return m === undefined || m === null ? null : (m[key] ?? null);
}

/** Why a record failed to decode; filled by the generated decoder. */
export interface DecodeError {
  column: string;
  reason: string;
}

export interface SourceDef {
  id: string;
  name: string;
  connector: string;
  format: string | null;
  /** Option values after `${VAR}` substitution. */
  options: Record<string, string>;
  /** The resolved configuration the compiler decided (see SinkDef.config); built-in connectors refuse a def without it. */
  config?: SourceConfig;
  columns: ColumnDef[];
  /**
   * The compiled schema's text for Avro/Protobuf sources (`IrSource.schemaText`): the writer
   * schema of plain `file:` values, the reader defaults of registry ones. Absent otherwise.
   */
  schemaText?: string | null;
  /**
   * Avro/Protobuf sources: plain values (a `file:` schema) or the Confluent wire format, as the
   * physical plan decided (`PhysicalSourceFormat.wire`). Absent for other formats.
   */
  formatWire?: 'plain' | 'confluent';
  /**
   * JSON sources whose decoder reads plain record fields only: those field names. A JSON
   * decoder may then read just these keys from the bytes (formats/json-fields.ts). Absent:
   * the decoder needs the whole parsed object.
   */
  reads?: readonly string[];
  /** Raw record (parsed JSON object, CSV record object, Parquet row) → row, or null on error. */
  decode: ((raw: any, err: DecodeError) => Row | null) | null;
  /** Index of the watermark column in the row; -1 without watermark. */
  timeIndex: number;
  delayMs: number;
  idleTimeoutMs: number | null;
  /**
   * Changelog sources only: a changelog normalize (last row per primary key) follows, so old
   * rows may be key-only and a TRUNCATE can be sent as a marker row (ops/types.ts).
   */
  normalized?: boolean;
}

/** Where a record came from, for dead letters. */
export type Coordinates = { file: string; line: number } | { topic?: string; partition: string; offset: number };

/** Callbacks a source calls for each record it produces. */
export interface SourceSink {
  /** A decoded row of partition `p` (index into the source's partitions). */
  row(p: number, row: Row): void;
  /**
   * Rows `rows[from..to)` of partition `p`, in order: exactly `row` for each, with less work per
   * row (a source's batch: io/row-batch.ts builds one, a source holding an array hands a slice
   * of it). `at(i)` says where `rows[i]` came from, asked only for a dead letter the runner
   * raises itself (a NULL event time). The runner keeps no reference to `rows`. Optional: a
   * source hands rows one by one to a sink without it.
   */
  rowBatch?(p: number, rows: readonly Row[], from: number, to: number, at: (i: number) => Coordinates): void;
  dead(coords: Coordinates, reason: string, raw: string): void;
  /** A partition was found (files appear in `follow` mode). */
  partitionAdded(id: string): number;
  partitionDone(p: number): void;
  /**
   * A partition was taken away (consumer-group rebalance): it no longer holds the source's
   * watermark back, and does not end the source either.
   */
  partitionRevoked(p: number): void;
  /** A revoked partition is owned again. */
  partitionReassigned(p: number): void;
  /**
   * The partition has unread records (`behind`), or is caught up: a fetch found nothing and
   * its lag is zero. Sources that know their lag (Kafka) report it; a partition with lag is
   * never declared idle (watermarks.ts). Optional: sources without a notion of lag omit it.
   */
  partitionBehind?(p: number, behind: boolean): void;
  /**
   * The source itself says partition `p`'s watermark is at least `wm` (a watermark record or
   * heartbeat, not derived from an event time); `pipec test`'s scripted source uses it.
   */
  partitionWatermark?(p: number, wm: number): void;
  /** The source declares partition `p` idle now, whatever its idle timeout (scripted sources). */
  partitionIdle?(p: number): void;
  /** Something the user should know that is not an error (e.g. a glob that matches nothing). */
  warn(message: string): void;
}

export interface RunningSource {
  readonly def: SourceDef;
  /** Reads up to `budget` records per partition; returns how many records it produced. */
  poll(budget: number): Promise<number>;
  /** True once every partition of a bounded source is exhausted. */
  readonly finished: boolean;
  readonly bounded: boolean;
  position(): unknown;
  /** Called before the first poll when resuming from a checkpoint. */
  seek(pos: unknown): void;
  /** Called once a checkpoint covering `position()` is durable (acknowledge upstream here). */
  afterCheckpoint?(): Promise<void>;
  /** Consumer lag, for sources that have one (records behind and seconds behind). */
  lag?(): { records: number; seconds: number };
  /**
   * Coordinates of the record last handed over for partition `p`, for dead letters the
   * runner raises itself (e.g. a NULL watermark column); without it the runner derives them
   * from `position()`.
   */
  lastCoordinates?(p: number): Coordinates | null;
  /**
   * Connector-specific gauges (e.g. `pipec_replication_slot_lag_bytes`), exported on
   * `/metrics` with a `source` label. Names must start with `pipec_`.
   */
  gauges?(): Record<string, { help: string; value: number }>;
  /**
   * Scaled out (`scale_out = 'partitions'`): partitions lost and won in rebalances since the
   * last call (partition indexes), or null. Won partitions are not read until `startPartition`.
   */
  takeAssignmentChange?(): { revoked: number[]; added: number[] } | null;
  /** Scaled out: read partition `index` from `next` (null: as a first start would). */
  startPartition?(index: number, next: number | null): Promise<void>;
  /** Scaled out: the next position of partition `index` as far as this member read it. */
  partitionPosition?(index: number): number | null;
  /**
   * A stop was asked for: a poll that waits on something slow that has read nothing yet (a
   * connect to a broker that is down) returns now, producing nothing, so the run can stop.
   */
  interrupt?(): void;
  close(): Promise<void>;
}
