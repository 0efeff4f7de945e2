// Lint: COUNT(DISTINCT x) whose state lives a day or longer (long window, or TTL of a
// non-windowed aggregation): every distinct value is kept per key.
import { formatDuration } from '../../plan/print/format.ts';
import type { IrAggregate, IrExpr } from '../../plan/ir.ts';
import type { LintRule } from '../rule.ts';

/** State kept at least this long for COUNT(DISTINCT) is worth a warning. */
export const DISTINCT_RETAIN_LIMIT_MS = 86_400_000;

function argText(e: IrExpr | null): string {
  return e && e.kind === 'col' ? e.name : 'expr';
}

export const distinctState: LintRule = {
  code: 'distinct-state-large',
  run({ plan, index, diags }) {
    for (const o of plan.operators) {
      let retainMs: number | null = null;
      let aggs: IrAggregate[] = [];
      if (o.op === 'window_agg') {
        const w = o.window;
        retainMs = (w.kind === 'session' ? w.gapMs : w.sizeMs) + o.allowedLatenessMs;
        aggs = o.aggregates;
      } else if (o.op === 'group_agg' && o.stateTtlMs !== null) {
        retainMs = o.stateTtlMs;
        aggs = o.aggregates;
      }
      if (retainMs === null || retainMs < DISTINCT_RETAIN_LIMIT_MS) continue;
      for (const a of aggs) {
        if (a.fn !== 'count_distinct') continue;
        diags.report('distinct-state-large', o.span, { owner: index.owner(o.id), column: argText(a.arg), retain: formatDuration(retainMs) });
      }
    }
  },
};
