// Lints: a window aggregate or an interval join that says neither ON LATE DROP nor ON LATE TO.
import type { LintRule } from '../rule.ts';

export const windowLateUnspecified: LintRule = {
  code: 'window-late-unspecified',
  run({ plan, index, diags }) {
    for (const o of plan.operators) {
      if (o.op === 'window_agg' && o.late.kind === 'unspecified') diags.report('window-late-unspecified', o.span, { owner: index.owner(o.id) });
    }
  },
};

export const joinLateUnspecified: LintRule = {
  code: 'join-late-unspecified',
  run({ plan, index, diags }) {
    for (const o of plan.operators) {
      if (o.op === 'interval_join' && o.late.kind === 'unspecified') diags.report('join-late-unspecified', o.span, { owner: index.owner(o.id) });
    }
  },
};
