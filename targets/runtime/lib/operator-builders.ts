// The table a generated module's `instantiate(b)` builds its operator graph with: one builder
// per stateful operator kind, each making the library's operator with the run's late handler
// and clock. The engine passes `track` to collect what was made (for checkpoints, watermarks
// and the late counters) and `sink` to hand out its running sinks.
import type { Row, StatefulOp } from './ops/types.ts';
import type { RunningSink } from './io/sinks.ts';
import type { Builders } from './pipeline-types.ts';
import { WindowAggOp } from './ops/window-agg.ts';
import { SessionAggOp } from './ops/session-agg.ts';
import { GroupAggOp } from './ops/group-agg.ts';
import { IntervalJoinOp } from './ops/interval-join.ts';
import { ChangelogNormalizeOp } from './ops/changelog-normalize.ts';
import { TemporalJoinOp } from './ops/temporal-join.ts';

export interface OperatorRun {
  sink: (id: string) => RunningSink;
  late: (opId: string, row: Row, lateBy: number) => void;
  now: () => number;
  /** Told of every operator made, in the order the graph makes them. */
  track: <T extends StatefulOp>(op: T) => T;
}

/** Whether the operator drops late events (only these get a late counter). */
export const dropsLate = (op: StatefulOp): boolean => op instanceof WindowAggOp || op instanceof SessionAggOp || op instanceof IntervalJoinOp;

export function operatorBuilders(run: OperatorRun): Builders {
  const { track, now } = run;
  const opCtx = { late: run.late, now };
  return {
    sink: run.sink,
    windowAgg: (cfg) => track(new WindowAggOp(cfg, opCtx)),
    sessionAgg: (cfg) => track(new SessionAggOp(cfg, opCtx)),
    groupAgg: (cfg) => track(new GroupAggOp({ ...cfg, now })),
    intervalJoin: (cfg) => track(new IntervalJoinOp(cfg, opCtx)),
    normalize: (cfg) => track(new ChangelogNormalizeOp(cfg)),
    temporalJoin: (cfg) => track(new TemporalJoinOp({ ...cfg, now })),
  };
}
