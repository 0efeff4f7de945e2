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
  /**
   * Takes a row back out of the accumulator (a '-U' / '-D' row of a changelog input). Only
   * generated for GROUP BY over a changelog: its accumulators then keep retractable state
   * (value→count multisets for MIN/MAX/COUNT DISTINCT, ordered entries for FIRST/LAST_VALUE).
   */
  retract?(acc: Acc, row: Row): void;
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

/**
 * The kind a changelog source put in a raw record's metadata (`META.kind`); '+I' when none.
 * Generated decoders of changelog sources set it on the decoded row.
 */
export function rawKind(raw: unknown): RowKind {
  const m = (raw as { [k: symbol]: { kind?: RowKind } | undefined } | null)?.[Symbol.for('pipec.meta')];
  return m?.kind ?? '+I';
}

/** Update-before and delete rows take a row back; inserts and update-afters add one. */
export function isRetraction(row: Row): boolean {
  const k = (row as Row & { kind?: RowKind }).kind;
  return k === '-U' || k === '-D';
}

/**
 * Marks the row a changelog source sends for a TRUNCATE (all columns NULL, kind '-D'): a
 * changelog normalize operator turns it into a '-D' per key it knows; nothing else sees it.
 */
export const TRUNCATE: unique symbol = Symbol.for('pipec.truncate') as never;

export function isTruncate(row: Row): boolean {
  return (row as Row & { [TRUNCATE]?: true })[TRUNCATE] === true;
}

export function truncateRow(width: number): Row {
  const row: Row & { [TRUNCATE]?: true } = new Array(width).fill(null);
  row[TRUNCATE] = true;
  return setRowKind(row, '-D');
}

/** Copies `from`'s kind onto a row derived from it (projections, sink column mapping). */
export function withKindOf(row: Row, from: Row): Row {
  const k = (from as Row & { kind?: RowKind }).kind;
  if (k !== undefined) (row as Row & { kind?: RowKind }).kind = k;
  return row;
}

/**
 * Name of the row-kind column a non-append sink adds (stdout table, NDJSON field, Parquet
 * column): `op` as Flink's SQL client shows it, with underscores prepended while a column of
 * the sink already has that name.
 */
export function opColumnName(columns: readonly { name: string }[]): string {
  let n = 'op';
  while (columns.some((c) => c.name.toLowerCase() === n)) n = '_' + n;
  return n;
}
