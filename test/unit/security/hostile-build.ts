// Test helper: compiles one spec text in memory (the phases of src/build/compile.ts, without
// the file read, so any UTF-16 text — lone surrogates included, as a YAML `"\ud800"` escape
// gives — reaches the compiler) and runs every target, returning the plan, the errors and every
// emitted file (plan.txt included) as `pipec build` would write them.
import { parseSpecText } from '../../../src/build/compile.ts';
import { applySuppressions } from '../../../src/build/suppress.ts';
import { TARGETS } from '../../../src/build/targets.ts';
import { checkPipeline } from '../../../src/check/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { lintPipeline } from '../../../src/lint/index.ts';
import { optimizePlan } from '../../../src/plan/optimize/index.ts';
import { printPlanText } from '../../../src/plan/print/text.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import type { PipeFile } from '../../../src/syntax/ast.ts';
import type { EnvResolver } from '../../../src/syntax/front-end.ts';
import { GOLDEN_ENV } from '../../golden/golden-harness.ts';

export interface HostileBuild {
  ast: PipeFile;
  plan: PlanDoc | null;
  errors: string[];
  /** Emitted text files by path (the esbuild bundle included, as `runtime/pipeline.mjs`). */
  files: Map<string, string>;
}

export async function buildInMemory(specText: string, path = 'spec.pipe.sql', opts: { targets?: boolean; env?: EnvResolver } = {}): Promise<HostileBuild> {
  const env = opts.env ?? GOLDEN_ENV;
  const diagnostics = new DiagnosticBag();
  const ast = parseSpecText(path, specText, env, diagnostics);
  const schemas = createSchemaLoader({ baseDir: process.cwd(), env });
  const checked = await checkPipeline(ast, { diagnostics, schemas, baseDir: process.cwd(), relFile: path });
  if (checked) lintPipeline(checked, diagnostics);
  applySuppressions(ast, diagnostics);
  const plan = checked ? optimizePlan(checked) : null;
  const files = new Map<string, string>();
  const errors = diagnostics.items.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`);
  if (!plan || errors.length > 0 || opts.targets === false) return { ast, plan, errors, files };
  files.set('plan.txt', printPlanText(plan));
  for (const target of Object.values(TARGETS)) {
    if (!target || !target.appliesTo(plan)) continue;
    const bag = new DiagnosticBag();
    for (const f of await target.emit(plan, { diagnostics: bag, readPrevious: () => null })) {
      // The bundle (a git-ignored output of its own) is keyed where the tests look for it.
      if (typeof f.contents === 'string') files.set(f.output === 'bundle' ? `runtime/${f.path}` : f.path, f.contents);
    }
    errors.push(...bag.items.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`));
  }
  return { ast, plan, errors, files };
}
