// What generated code declares about a source and what a running source reports back.
import type { Row } from '../ops/types.ts';

/** One declared column as the runtime sees it (only the columns the plan uses). */
export interface ColumnDef {
  name: string;
  /** SQL type kind: 'bigint', 'decimal', 'timestamp', ... */
  kind: string;
  nullable: boolean;
  precision?: number;
  scale?: number;
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
  columns: ColumnDef[];
  /** Raw record (parsed JSON object, CSV record object, Parquet row) → row, or null on error. */
  decode: ((raw: any, err: DecodeError) => Row | null) | null;
  /** Index of the watermark column in the row; -1 without watermark. */
  timeIndex: number;
  delayMs: number;
  idleTimeoutMs: number | null;
}

/** Where a record came from, for dead letters. */
export type Coordinates = { file: string; line: number } | { partition: string; offset: number };

/** Callbacks a source calls for each record it produces. */
export interface SourceSink {
  /** A decoded row of partition `p` (index into the source's partitions). */
  row(p: number, row: Row): void;
  dead(coords: Coordinates, reason: string, raw: string): void;
  /** A partition was found (files appear in `follow` mode). */
  partitionAdded(id: string): number;
  partitionDone(p: number): void;
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
  close(): Promise<void>;
}
