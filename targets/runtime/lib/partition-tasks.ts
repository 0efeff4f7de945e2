// Partition tasks of a scaled-out pipeline (`scale_out = 'partitions'`, Kafka Streams' task
// model): every partition of the (single, Kafka) source runs its own instance of the operator
// graph, with its own state and its own watermark — the partition's, not the minimum over the
// partitions this member holds. A task is what moves between members when the consumer group
// rebalances: its operator state, watermark and position, as one `TaskEntry` (member-store.ts).
// The compiler admits this mode only where every stateful operator is keyed by the message key,
// so a task holds every record its keys will ever see.
import type { Instance } from './pipeline-types.ts';
import type { Row, StatefulOp } from './ops/types.ts';
import type { PartitionClock } from './watermarks.ts';
import type { TaskEntry } from './member-store.ts';
import { WatermarkGraph } from './watermark-graph.ts';
import { decodeState, encodeState } from './codec.ts';

/** Builds one instance of the graph; its stateful operators are pushed into `ops`. */
export type Instantiate = (ops: StatefulOp[], late: (opId: string, row: Row, lateByMs: number) => void) => Instance;

export class PartitionTask {
  readonly ops: StatefulOp[] = [];
  readonly emit: (row: Row) => void;
  /** The task's watermark: monotonic, from its partition's clock. */
  wm = Number.NEGATIVE_INFINITY;
  private readonly instance: Instance;
  private readonly graph: WatermarkGraph;

  constructor(
    /** The partition's index in the source's partition list. */
    readonly index: number,
    readonly clock: PartitionClock,
    readonly epoch: number,
    sourceId: string,
    instantiate: Instantiate,
    onLate: (opId: string) => void,
  ) {
    this.instance = instantiate(this.ops, (opId, row, lateBy) => {
      onLate(opId);
      this.instance.late[opId]?.(row, lateBy);
    });
    this.emit = this.instance.emit[sourceId]!;
    this.graph = new WatermarkGraph(this.instance.graph, () => () => this.wm);
  }

  /** Moves the task's watermark to `w` if that is forward; fires what it closes. */
  advanceTo(w: number): void {
    if (w <= this.wm) return;
    this.wm = w;
    this.graph.propagate();
  }

  snapshot(next: number | null, released: boolean): TaskEntry {
    return {
      epoch: this.epoch,
      released,
      next,
      maxTs: this.clock.maxTs,
      done: this.clock.done,
      wm: this.wm,
      operators: Object.fromEntries(this.ops.map((o) => [o.id, encodeState(o.snapshot())])),
    };
  }

  /** Continues from another holder's entry (or this member's own, after a restart). */
  restore(e: TaskEntry): void {
    for (const op of this.ops) if (e.operators[op.id] !== undefined) op.restore(decodeState(e.operators[op.id]));
    this.clock.maxTs = e.maxTs;
    this.clock.done = e.done;
    this.wm = e.wm;
    this.graph.seedScans();
  }
}

/**
 * The watermark a partition gives its task: bounded out-of-orderness over its own events; +∞
 * once it ended; processing time minus the delay while idle (LANGUAGE.md's all-idle rule, the
 * task having this one partition); -∞ for a source without WATERMARK until it ends.
 */
export function partitionWatermark(p: PartitionClock, timed: boolean, delayMs: number, now: number): number {
  if (p.done) return Number.POSITIVE_INFINITY;
  if (!timed) return Number.NEGATIVE_INFINITY;
  if (p.idle) return now - delayMs;
  return p.maxTs - delayMs;
}
