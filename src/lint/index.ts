// The lint phase: runs every rule of ./rules.ts over a checked plan and reports coded warnings
// (with the span of the source, operator or sink at fault) into the compilation's bag.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { PlanDoc } from '../plan/ir.ts';
import { PlanIndex } from './plan-index.ts';
import { LINT_RULES } from './rules.ts';

export { LINT_RULES };

export function lintPipeline(plan: PlanDoc, diags: DiagnosticBag): void {
  const ctx = { plan, index: new PlanIndex(plan), diags };
  for (const rule of LINT_RULES) rule.run(ctx);
}
