// The optimizer: a fixed sequence of pure PlanDoc → PlanDoc passes, each exported and tested
// alone. No pass changes a sink's or view's output schema, nor the meaning of the plan.
import type { PlanDoc } from '../ir.ts';
import { foldConstants } from './constant-fold.ts';
import { setPaneSizes } from './pane-sizes.ts';
import { pushDownPredicates } from './predicate-pushdown.ts';
import { pruneProjections } from './projection-pruning.ts';
import { isWellFormed } from './plan-edit.ts';
import { shareScans } from './shared-scans.ts';

export { foldConstants, pushDownPredicates, pruneProjections, shareScans, setPaneSizes };

/** In order: folding first (TRUE filters vanish), pushdown, one scan per source, pruning last (it sees the final readers), panes. */
export const PASSES: readonly { name: string; run: (p: PlanDoc) => PlanDoc }[] = [
  { name: 'constant-folding', run: foldConstants },
  { name: 'predicate-pushdown', run: pushDownPredicates },
  { name: 'shared-scans', run: shareScans },
  { name: 'projection-pruning', run: pruneProjections },
  { name: 'pane-sizes', run: setPaneSizes },
];

export function optimizePlan(plan: PlanDoc): PlanDoc {
  if (!isWellFormed(plan)) return plan;
  return PASSES.reduce((p, pass) => pass.run(p), plan);
}
