// Lint: operators whose state bound is 'unbounded' after checking; skips operators the checker
// already reported an error on (same span), so a user sees one diagnostic per cause, and
// temporal joins against a changelog (their state is one row per key of that table: it grows
// with the table, not with the stream).
import type { IrOperator } from '../../plan/ir.ts';
import type { LintRule } from '../rule.ts';

const OP_WORDS: Record<IrOperator['op'], string> = {
  scan: 'scan',
  filter: 'filter',
  project: 'projection',
  window_agg: 'window aggregate',
  group_agg: 'aggregation',
  interval_join: 'interval join',
  temporal_join: 'temporal join',
  union: 'union',
};

export const unboundedState: LintRule = {
  code: 'unbounded-state',
  run({ plan, index, diags }) {
    for (const o of plan.operators) {
      if (o.stateBound.kind !== 'unbounded') continue;
      if (o.op === 'temporal_join' && index.op(o.inputs[1]!)?.changelog !== 'append') continue;
      const reported = diags.items.some(
        (d) => d.severity === 'error' && d.span.file === o.span.file && d.span.start.offset === o.span.start.offset && d.span.end.offset === o.span.end.offset,
      );
      if (reported) continue;
      diags.report('unbounded-state', o.span, { owner: index.owner(o.id), operator: OP_WORDS[o.op], reason: o.stateBound.reason });
    }
  },
};
