// The contract between generated code and the stateful operators of the runtime library:
// generated code supplies specialized functions (keys, accumulators, output rows); the
// library supplies state, time and firing.
export type Row = unknown[];
export type Acc = unknown[];

/** Specialized aggregation functions, emitted per operator by the code generator. */
export interface AggFns {
  /** A Map key for the group: the value itself for one key column, a joined text otherwise. */
  keyOf(row: Row): unknown;
  keyVals(row: Row): unknown[];
  create(): Acc;
  /** `seq` is the operator's arrival counter (FIRST_VALUE / LAST_VALUE order by it). */
  add(acc: Acc, row: Row, seq: number): void;
  merge(into: Acc, from: Acc): void;
  /** The output row: group keys, window columns (when windowed), aggregate results. */
  output(keyVals: unknown[], windowStart: number, windowEnd: number, acc: Acc): Row;
}

/** What a stateful operator can ask of the runner. */
export interface OpContext {
  /** An event later than the allowed lateness (counted; routed when `ON LATE TO`). */
  late(opId: string, row: Row, lateByMs: number): void;
  now(): number;
}

export interface StatefulOp {
  readonly id: string;
  /** The input watermark moved to `wm` (monotonic; +Infinity at the end of input). */
  advance(wm: number): void;
  /** Processing-time tick (state TTL). */
  tick?(nowMs: number): void;
  snapshot(): unknown;
  restore(state: unknown): void;
  /** Number of entries held (groups × panes, sessions, buffered join rows). */
  stateSize(): number;
}

export const END_OF_TIME = Number.POSITIVE_INFINITY;

/**
 * Kind of a changelog row (Flink's RowKind): insert, update-before (the old row an update
 * retracts), update-after, delete. Rows of append streams carry no kind (= insert); rows of
 * changelog streams carry it as the array's `kind` property, set by the source that knows it
 * (`setRowKind`) and kept by every operator that passes rows on.
 */
export type RowKind = '+I' | '-U' | '+U' | '-D';

export function setRowKind(row: Row, kind: RowKind): Row {
  if (kind !== '+I') (row as Row & { kind?: RowKind }).kind = kind;
  return row;
}

export function rowKind(row: Row): RowKind {
  return (row as Row & { kind?: RowKind }).kind ?? '+I';
}
