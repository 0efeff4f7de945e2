// The lint phase: runs every rule of ./rules.ts over a checked plan and reports coded warnings
// (with the span of the source, operator or sink at fault) into the compilation's bag.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan } from '../diagnostics/span.ts';
import type { PlanDoc } from '../plan/ir.ts';
import { PlanIndex } from '../plan/graph.ts';
import { lintRules } from './rules.ts';

export { lintRules };

export function lintPipeline(plan: PlanDoc, diags: DiagnosticBag): void {
  const ctx = { plan, index: new PlanIndex(plan), diags };
  for (const rule of lintRules()) {
    // A bug in one lint must not hide the other diagnostics of the file.
    try {
      rule.run(ctx);
    } catch (err) {
      diags.report('internal-error', syntheticSpan(plan.pipeline.file), { detail: `lint ${rule.code} failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
}
