// The shape of one lint: a named check over the plan that reports coded warnings into the bag.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { PlanDoc } from '../plan/ir.ts';
import type { Code } from '../diagnostics/registry.ts';
import type { PlanIndex } from '../plan/graph.ts';

export interface LintContext {
  plan: PlanDoc;
  index: PlanIndex;
  diags: DiagnosticBag;
}

export interface LintRule {
  /** The diagnostic code the rule reports (one rule, one code). */
  code: Code;
  run(ctx: LintContext): void;
}
