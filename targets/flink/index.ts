// The Flink SQL target: `flink/pipeline.sql` (one script for the SQL client) and
// `flink/deployment.yaml` (Flink Kubernetes Operator). Semantic differences from the runtime are
// coded diagnostics (src/diagnostics/codes/flink.ts), never a silent change of meaning.
import type { PlanDoc } from '../../src/plan/ir.ts';
import type { EmittedFile, Target, TargetContext } from '../../src/plan/physical/target-api.ts';
import { emitFlinkScript } from './emit.ts';
import { deploymentYaml } from './deployment.ts';
import { lowerPlan } from '../../src/plan/physical/lower.ts';

export { emitFlinkScript };

export const flinkTarget: Target = {
  name: 'flink',
  appliesTo: () => true,
  async emit(plan: PlanDoc, ctx: TargetContext): Promise<EmittedFile[]> {
    const physical = ctx.physical ?? lowerPlan(plan);
    const { sql, jars } = emitFlinkScript(plan, ctx.diagnostics, physical);
    // The deployment reports nothing: `pipec check` skips it (and the YAML stringifier's cost).
    if (ctx.diagnosticsOnly) return [{ path: 'flink/pipeline.sql', contents: sql }];
    return [
      { path: 'flink/pipeline.sql', contents: sql },
      { path: 'flink/deployment.yaml', contents: deploymentYaml(plan, physical, sql, jars) },
    ];
  },
};
