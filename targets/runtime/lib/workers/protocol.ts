// The messages of a `pipec run --workers N` run: the main thread (coordinator.ts) and its
// worker threads (worker-run.ts), and the workers between themselves (exchange.ts). Rows cross
// in batches (one structured clone per batch, not per row); a watermark and a checkpoint
// barrier travel on the same port after the rows they follow, so port order is what makes
// both consistent.
import type { MessagePort } from 'node:worker_threads';
import type { Row } from '../ops/types.ts';
import type { PackedRows } from './packed-rows.ts';
import type { LineSegment } from './line-batch.ts';

/** What a worker starts with (its `workerData`). */
export interface WorkerData {
  index: number;
  n: number;
  /** The generated definition's body (`definePipeline`'s), evaluated in the worker as `pipec run` does. */
  body: string;
  modules: string[];
  env: Record<string, string | undefined>;
  baseDir: string;
  /** Per source id: the partitions (file paths) dealt to each worker, by worker index. */
  shares: Record<string, string[][]>;
  /** Ports to the other workers, by worker index (null at the worker's own). */
  peers: (MessagePort | null)[];
  /**
   * Flow control (Int32, n × n + n): cell from × n + to counts the batches `to` has taken from
   * `from`; cell n × n + from those the main thread has taken from worker `from`.
   */
  taken: SharedArrayBuffer;
  /** Sinks that take NDJSON lines (`RunningSink.writeLines`): the worker encodes their rows itself. */
  encoded: string[];
  /**
   * The ring the worker encodes those sinks' lines into (line-batch.ts: OUT_SLOTS × SLOT_BYTES,
   * message k in slot k mod OUT_SLOTS); null when there are none.
   */
  lineRing: SharedArrayBuffer | null;
  /** The checkpoint resumed from, merged (state-share.ts); null on a fresh start. */
  resume: { sources: Record<string, { position: unknown; clock: unknown }>; operators: Record<string, unknown> } | null;
}

/** Main → worker. */
export type ToWorker =
  /** Stop at the next turn, align with the other workers and send a snapshot (`final`: the input has ended everywhere). */
  | { t: 'barrier'; seq: number }
  /** After the snapshot: go on. */
  | { t: 'resume' }
  /** After the snapshot: close the sources and end. */
  | { t: 'exit' }
  /** Every worker is ready: start reading (none gets a head start from starting sooner). */
  | { t: 'go' };

export interface WorkerSnapshot {
  seq: number;
  sources: Record<string, { position: unknown; clock: unknown; records: number; dead: number }>;
  operators: Record<string, unknown>;
  /** Late rows dropped or routed since the worker started, per operator. */
  late: Record<string, number>;
}

/** Worker → main. */
export type FromWorker =
  /**
   * Rows for the sinks, per sink id in the order the worker produced them (`lines`: encoded, with
   * how many rows they hold, in the worker's ring or a buffer of their own; a sink may have
   * several, in order); dead-letter lines. A row's kind (a SESSION's EMIT CHANGES '-D')
   * is a property of its array, which a message's structured clone keeps.
   */
  | { t: 'out'; sinks: [string, Row[]][]; lines: LineSegment[]; dead: string[] }
  | { t: 'warn'; message: string }
  /** Made its sources and operators (and restored them): waits for 'go'. */
  | { t: 'ready' }
  /** Every source read to its end and every operator closed at +∞: nothing more will come. */
  | { t: 'ended' }
  | ({ t: 'snapshot' } & WorkerSnapshot)
  | { t: 'failed'; message: string };

/**
 * Worker → worker: rows for operators this worker owns the keys of (per operator index, as rows
 * or packed as numbers, packed-rows.ts), then the sender's watermarks.
 */
export type ToPeer =
  | { t: 'rows'; ops: [number, Row[] | PackedRows][]; wm: number[] | null }
  | { t: 'barrier'; seq: number };
