// What `pipec run --workers N` (N > 1) can run today, decided before anything starts: file
// sources (bounded: every matched file is one partition, dealt out to the workers), and window
// aggregates (TUMBLE, HOP, CUMULATE, SESSION), GROUP BY and interval joins fed by them through stateless operators only. Anything
// else is refused by name (the operator or source and why) instead of computing a wrong
// answer: a second stateful operator behind the first would need a second exchange, a temporal
// join reads a versioned table, and changelog operators need per-key order across the
// exchange — none of which exists yet. SESSION windows run: sessions merge only within one
// PARTITION BY key, and each key lives in one worker; so does a GROUP BY (one key's changelog
// comes from one worker, in order) and an interval join (both sides by the join key).
import { fileSourceConfig } from '../io/resolved-configs.ts';
import type { Builders, GraphNode, PipelineDef } from '../pipeline-types.ts';
import type { StatefulOp } from '../ops/types.ts';
import type { RunningSink } from '../io/sinks.ts';
import { OPERATOR_STATE } from './state-share.ts';

export interface Unsupported {
  /** The operator, source or sink id as the plan names it. */
  id: string;
  why: string;
}

/** One stateful operator of the plan as instantiating the definition revealed it. */
export interface ProbedOp {
  id: string;
  kind: 'windowAgg' | 'sessionAgg' | 'groupAgg' | 'intervalJoin' | 'normalize' | 'temporalJoin';
}

/** A stand-in operator: instantiating the plan with these only records what it contains. */
function probeOp(kind: ProbedOp['kind'], id: string, into: ProbedOp[]): StatefulOp & { push(): void } {
  into.push({ id, kind });
  return { id, advance() {}, snapshot: () => null, restore() {}, stateSize: () => 0, push() {} };
}

/**
 * Instantiates the definition with stand-in operators and the given sinks (generated code marks
 * changelog sinks on them, so pass the run's real sinks): its stateful operators and graph.
 */
export function probePlan(def: PipelineDef, sink: (id: string) => RunningSink): { ops: ProbedOp[]; graph: GraphNode[] } {
  const ops: ProbedOp[] = [];
  const b = {
    sink,
    windowAgg: (cfg: { id: string }) => probeOp('windowAgg', cfg.id, ops),
    sessionAgg: (cfg: { id: string }) => probeOp('sessionAgg', cfg.id, ops),
    groupAgg: (cfg: { id: string }) => probeOp('groupAgg', cfg.id, ops),
    intervalJoin: (cfg: { id: string }) => probeOp('intervalJoin', cfg.id, ops),
    normalize: (cfg: { id: string }) => probeOp('normalize', cfg.id, ops),
    temporalJoin: (cfg: { id: string }) => probeOp('temporalJoin', cfg.id, ops),
  } as unknown as Builders;
  return { ops, graph: def.instantiate(b).graph };
}

/** The operator kinds partitioned by key over the workers: those whose state state-share.ts splits. */
type PartitionedKind = keyof typeof OPERATOR_STATE;
export const isPartitioned = (k: ProbedOp['kind']): k is PartitionedKind => k in OPERATOR_STATE;

const NOT_YET: Record<Exclude<ProbedOp['kind'], PartitionedKind>, string> = {
  normalize: 'a changelog source (CDC upsert order is not kept across workers yet)',
  temporalJoin: 'a temporal join (not partitioned yet)',
};

/** Everything in the plan `--workers N > 1` cannot run (empty: it can). */
export function unsupportedForWorkers(def: PipelineDef, probed: { ops: ProbedOp[]; graph: GraphNode[] }): Unsupported[] {
  const out: Unsupported[] = [];
  for (const s of def.sources) {
    if (s.connector !== 'file') {
      out.push({ id: s.name, why: `a '${s.connector}' source (only file sources are dealt out to workers yet)` });
      continue;
    }
    if (fileSourceConfig(s).follow) out.push({ id: s.name, why: "a file source with follow = 'true' (files appearing later are not dealt out yet)" });
  }
  if (def.scaleOut === 'partitions') out.push({ id: def.name, why: "scale_out = 'partitions' (each member already runs one partition task per partition)" });
  for (const o of probed.ops) if (!isPartitioned(o.kind)) out.push({ id: o.id, why: NOT_YET[o.kind] });
  // A window behind another stateful operator would need a second exchange of its input.
  const byId = new Map(probed.graph.map((g) => [g.id, g]));
  const statefulAbove = (g: GraphNode, seen: Set<string>): string | null => {
    for (const i of g.inputs) {
      if (seen.has(i)) continue;
      seen.add(i);
      const up = byId.get(i);
      if (!up) continue;
      if (up.node !== undefined) return up.id;
      const x = statefulAbove(up, seen);
      if (x !== null) return x;
    }
    return null;
  };
  for (const g of probed.graph) {
    if (g.node === undefined) continue;
    const above = statefulAbove(g, new Set());
    if (above !== null) out.push({ id: g.id, why: `a stateful operator fed by the stateful operator '${above}' (one exchange per plan yet)` });
  }
  return out;
}
