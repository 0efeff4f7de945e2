// The shape of a generated pipeline module, as the runner consumes it.
import type { Row, StatefulOp } from './ops/types.ts';
import type { StateFingerprints } from './shared/state-compat.ts';
import type { SourceDef } from './io/source-types.ts';
import type { RunningSink, SinkDef } from './io/sinks.ts';
import type { RuntimeModule } from './connectors.ts';
import type { WindowAggConfig, WindowAggOp } from './ops/window-agg.ts';
import type { SessionAggConfig, SessionAggOp } from './ops/session-agg.ts';
import type { GroupAggConfig, GroupAggOp } from './ops/group-agg.ts';
import type { IntervalJoinConfig, IntervalJoinOp } from './ops/interval-join.ts';
import type { ChangelogNormalizeConfig, ChangelogNormalizeOp } from './ops/changelog-normalize.ts';
import type { TemporalJoinConfig, TemporalJoinOp } from './ops/temporal-join.ts';

export interface GraphNode {
  id: string;
  inputs: string[];
  /** Set for scans: the source id. */
  source?: string;
  /** Set for stateful operators. */
  node?: StatefulOp;
}

export interface Instance {
  /** Per source id: where its decoded rows go. */
  emit: Record<string, (row: Row) => void>;
  /** Operators in topological order (for watermark propagation). */
  graph: GraphNode[];
  /** Per window operator id with `ON LATE TO`: routes a late row to its sink(s). */
  late: Record<string, (row: Row, lateByMs: number) => void>;
}

export interface Builders {
  sink(id: string): RunningSink;
  windowAgg(cfg: Omit<WindowAggConfig, never>): WindowAggOp;
  sessionAgg(cfg: SessionAggConfig): SessionAggOp;
  groupAgg(cfg: Omit<GroupAggConfig, 'now'>): GroupAggOp;
  intervalJoin(cfg: IntervalJoinConfig): IntervalJoinOp;
  /** Last row per primary key of a changelog source (full old rows for retraction); optional for hand-made builders (benchmarks). */
  normalize?(cfg: ChangelogNormalizeConfig): ChangelogNormalizeOp;
  /** Event-time temporal join against a versioned changelog; optional for hand-made builders (benchmarks). */
  temporalJoin?(cfg: Omit<TemporalJoinConfig, 'now'>): TemporalJoinOp;
}

export interface PipelineDef {
  name: string;
  /** Hash of the whole plan: what checkpoints of formats 1 and 2 and scaled-out members compare. */
  fingerprint: string;
  /** State fingerprints by uid (src/plan/state-fingerprints.ts): a checkpoint resumes when every part finds its own. */
  state: StateFingerprints;
  checkpointIntervalMs: number;
  options: Record<string, string>;
  /** `scale_out` as the physical plan resolved it; absent (hand-made defs): 'none'. */
  scaleOut?: 'none' | 'partitions';
  /** `dead_letter_path` as written, resolved against the spec's folder at start; null/absent: the default name. */
  deadLetterPath?: string | null;
  sources: SourceDef[];
  sinks: SinkDef[];
  instantiate(b: Builders): Instance;
  /**
   * The runtime modules (connectors, formats) the pipeline uses: what the generated module
   * imports, or every module for an in-process `pipec run`. Absent: only connectors registered
   * with `registerSource`/`registerSink` (tests).
   */
  modules?: readonly RuntimeModule[];
}
