// Lint: a WHERE/HAVING whose condition folds (with the optimizer's constant folding) to FALSE or
// NULL, so no row passes, e.g. `status = NULL` written for `status IS NULL`.
import { foldExpr } from '../../plan/optimize/constant-fold.ts';
import { exprText } from '../../plan/print/expr.ts';
import type { LintRule } from '../rule.ts';

export const constantFalseFilter: LintRule = {
  code: 'filter-always-false',
  run({ plan, index, diags }) {
    for (const o of plan.operators) {
      if (o.op !== 'filter') continue;
      const folded = foldExpr(o.predicate);
      if (folded.kind !== 'lit' || (folded.value !== false && folded.value !== null)) continue;
      diags.report('filter-always-false', o.span, { owner: index.owner(o.id), predicate: exprText(o.predicate) });
    }
  },
};
