// Moves watermarks through one instance of a pipeline's operator graph: a scan's watermark is
// its source's (or, scaled out, its partition task's); every other node's is the minimum of its
// inputs', and a stateful node is advanced when its watermark moves forward.
import type { GraphNode } from './pipeline-types.ts';

export class WatermarkGraph {
  /** Watermarks by graph position. */
  private readonly out: Float64Array;
  private readonly inputPos: number[][];
  /** Per graph position: the scan's watermark reader, or null for an operator. */
  private readonly scanWm: ((() => number) | null)[];

  /** `scanWatermark(sourceId)` is asked once per scan node for the reader of its watermark. */
  constructor(
    private readonly graph: GraphNode[],
    scanWatermark: (sourceId: string) => () => number,
  ) {
    this.out = new Float64Array(graph.length).fill(Number.NEGATIVE_INFINITY);
    const posOf = new Map(graph.map((g, i) => [g.id, i]));
    this.inputPos = graph.map((g) => g.inputs.map((i) => posOf.get(i)!));
    this.scanWm = graph.map((g) => (g.source !== undefined ? scanWatermark(g.source) : null));
  }

  propagate(): void {
    const graph = this.graph;
    const out = this.out;
    for (let gi = 0; gi < graph.length; gi++) {
      const scan = this.scanWm[gi];
      let w: number;
      if (scan !== null) w = scan!();
      else {
        w = Number.POSITIVE_INFINITY;
        const ins = this.inputPos[gi]!;
        for (let j = 0; j < ins.length; j++) {
          const x = out[ins[j]!]!;
          if (x < w) w = x;
        }
      }
      const node = graph[gi]!.node;
      if (node !== undefined && w > out[gi]!) node.advance(w);
      out[gi] = w;
    }
  }

  /** After a restore: scans start from their watermarks (operators restored their own). */
  seedScans(): void {
    for (let gi = 0; gi < this.graph.length; gi++) {
      const scan = this.scanWm[gi];
      if (scan !== null) this.out[gi] = scan!();
    }
  }
}
