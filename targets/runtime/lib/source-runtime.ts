// One source as the engine runs it: its running connector, its watermark clock and partitions,
// its counters, and the SourceSink the connector hands rows and dead letters to. A row moves its
// partition's watermark (a NULL event time is a dead letter, except a key-only CDC retraction),
// then goes to the operator graph (or, scaled out, to its partition task). A batch of rows does
// the same per row, the graph getting the runs of rows between two watermark moves at once.
import { rowKind, type Row } from './ops/types.ts';
import type { PartitionClock, SourceClock } from './watermarks.ts';
import type { Coordinates, RunningSource, SourceDef, SourceSink } from './io/source-types.ts';
import type { HandOver } from './hand-over.ts';
import { jsonAny } from './values.ts';

export interface SourceRt {
  id: string;
  src: RunningSource;
  clock: SourceClock;
  parts: PartitionClock[];
  emit: (row: Row) => void;
  records: number;
  dead: number;
  /** The source declares a watermark. */
  timed: boolean;
  /** Where the source hands its rows and dead letters (set right after the record is made). */
  out: SourceSink;
  /** While a batch goes to the partition tasks: where its rows came from, and the row at hand. */
  batchAt: ((i: number) => Coordinates) | null;
  batchIndex: number;
}

/** What a source's sink needs of the engine. */
export interface SourceHost {
  now(): number;
  /** Processing time as of the current poll: per-record clock reads cost more than they tell. */
  batchNow(): number;
  /** Scaled out: the partition tasks (rows go to them), else null. */
  handOver(): HandOver | null;
  /** Moves watermarks through the operator graph now. */
  propagate(): void;
  /** A watermark moved: propagate before the next poll. */
  markDirty(): void;
  /** Appends one dead-letter line (opening the file on the first). */
  deadLetter(line: string): void;
  warn(message: string): void;
}

/** The record of one source, with its SourceSink; `src` is set by the caller once the connector exists. */
export function wireSource(sdef: SourceDef, clock: SourceClock, emit: (row: Row) => void, host: SourceHost): SourceRt {
  /** Rows `rows[from..to)` into the graph, in order. */
  const emitRun = (rows: readonly Row[], from: number, to: number): void => {
    for (let i = from; i < to; i++) emit(rows[i]!);
  };
  const rt: SourceRt = { id: sdef.id, src: null as unknown as RunningSource, clock, parts: [], emit, records: 0, dead: 0, timed: sdef.timeIndex >= 0, out: null as unknown as SourceSink, batchAt: null, batchIndex: 0 };
  const ti = sdef.timeIndex;
  const name = sdef.name;
  /** A row whose event time is NULL: a key-only CDC retraction goes on, anything else is a dead letter. */
  const nullTime = (row: Row, where: () => Coordinates): void => {
    // A retraction ('-U'/'-D') of a CDC table without REPLICA IDENTITY FULL carries only
    // the key: it says nothing about event time, and must still reach the operators.
    const kind = rowKind(row);
    if (kind === '-U' || kind === '-D') rt.emit(row);
    else sink.dead(where(), `watermark column ${sdef.columns[ti]!.name} is NULL`, jsonAny(row));
  };
  const sink: SourceSink = {
    row: (p, row) => {
      rt.records++;
      const handOver = host.handOver();
      if (handOver) {
        handOver.row(p, row);
        return;
      }
      if (ti >= 0) {
        const ts = row[ti];
        if (ts === null) {
          nullTime(row, () => coordsOf(rt, p));
          return;
        }
        rt.emit(row);
        const part = rt.parts[p]!;
        // Most records do not move their partition's maximum: skip the watermark machinery.
        const batchNow = host.batchNow();
        if ((ts as number) > part.maxTs || part.idle) {
          if (clock.observe(part, ts as number, batchNow)) host.propagate();
        } else part.lastSeen = batchNow;
      } else rt.emit(row);
    },
    // `row` for each row, with what does not change within a batch read once: every row still
    // moves the watermark (and propagates it) before the next row is processed.
    rowBatch: (p, rows, from, to, at) => {
      rt.records += to - from;
      const handOver = host.handOver();
      if (handOver) {
        // A dead letter the partition task raises for rows[i] asks coordsOf where it came from.
        rt.batchAt = at;
        for (let i = from; i < to; i++) {
          rt.batchIndex = i;
          handOver.row(p, rows[i]!);
        }
        rt.batchAt = null;
      } else if (ti < 0) emitRun(rows, from, to);
      else {
        const part = rt.parts[p]!;
        const batchNow = host.batchNow();
        // Rows go to the graph in runs that end where the watermark moves (or at a NULL event
        // time): the graph sees every row with the watermark it would have seen row by row.
        // `moves`: an event time above it may move the watermark (any one, while idle).
        let moves = part.idle ? Number.NEGATIVE_INFINITY : part.maxTs;
        let run = from;
        let timed = false;
        for (let i = from; i < to; i++) {
          const ts = rows[i]![ti];
          if (ts === null) {
            if (run < i) emitRun(rows, run, i);
            run = i + 1;
            nullTime(rows[i]!, () => at(i));
            continue;
          }
          timed = true;
          if ((ts as number) > moves) {
            const moved = clock.observe(part, ts as number, batchNow);
            moves = part.idle ? Number.NEGATIVE_INFINITY : part.maxTs;
            if (moved) {
              emitRun(rows, run, i + 1);
              run = i + 1;
              host.propagate();
            }
          }
        }
        if (run < to) emitRun(rows, run, to);
        // Row by row, every row with an event time marks its partition seen now.
        if (timed) part.lastSeen = batchNow;
      }
    },
    dead: (coords: Coordinates, reason: string, raw: string) => {
      rt.dead++;
      host.deadLetter(JSON.stringify({ source: name, ...coords, reason, record: raw }) + '\n');
    },
    partitionAdded: (id) => {
      rt.parts.push(clock.partition(id, host.now()));
      return rt.parts.length - 1;
    },
    warn: (message) => host.warn(`source '${name}': ${message}`),
    partitionDone: (p) => {
      if (clock.finish(rt.parts[p]!, host.now())) host.markDirty();
    },
    partitionRevoked: (p) => {
      if (clock.setRevoked(rt.parts[p]!, true, host.now())) host.markDirty();
    },
    partitionReassigned: (p) => {
      if (clock.setRevoked(rt.parts[p]!, false, host.now())) host.markDirty();
    },
    partitionBehind: (p, behind) => {
      if (clock.setBehind(rt.parts[p]!, behind, host.now())) host.markDirty();
    },
    // Like a record's event time, a watermark the source states moves at once (before its next record).
    partitionWatermark: (p, wm) => {
      if (clock.advanceTo(rt.parts[p]!, wm, host.now())) host.propagate();
    },
    partitionIdle: (p) => {
      if (clock.setIdle(rt.parts[p]!, host.now())) host.propagate();
    },
  };
  rt.out = sink;
  return rt;
}

/** Where a record of partition `p` came from (file and line, or partition and offset), for its dead letter. */
export function coordsOf(rt: SourceRt, p: number): Coordinates {
  if (rt.batchAt !== null) return rt.batchAt(rt.batchIndex);
  const own = rt.src.lastCoordinates?.(p);
  if (own) return own;
  const pos = rt.src.position() as Record<string, { line?: number; offset?: number }> | { next: number };
  const part = rt.parts[p]!.id;
  const x = (pos as Record<string, { line?: number; offset?: number }>)[part];
  return x?.line !== undefined ? { file: part, line: x.line } : { partition: part, offset: x?.offset ?? (pos as { next: number }).next ?? 0 };
}

/** A source's watermark as the operator graph sees it: an untimed source holds back nothing once done. */
export const sourceWatermark = (s: SourceRt): number => (s.timed ? s.clock.wm : s.clock.allDone ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY);
