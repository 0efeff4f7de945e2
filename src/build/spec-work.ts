// One spec's share of a build: compile it, then (when it compiled to a plan without errors) run
// every target that applies to it. The build driver (build.ts) decides afterwards, in file order,
// what is kept (duplicate pipeline names, colliding output paths); this file knows nothing of
// other specs, so the same work runs on the main thread or in a worker (build-worker.ts).
import type { EmittedFile, Target } from '../plan/physical/target-api.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan, type Span } from '../diagnostics/span.ts';
import { lowerPlan } from '../plan/physical/lower.ts';
import { printPlanText } from '../plan/print/text.ts';
import { compileFile, type CompileResult } from './compile.ts';

/** What one target made of one spec: its files, and the diagnostics it reported. */
export interface TargetEmission {
  files: EmittedFile[];
  diagnostics: Diagnostic[];
}

export interface SpecOutcome {
  result: CompileResult;
  /** The pipeline the spec defines; null when errors left nothing to build. */
  pipeline: { name: string; at: Span } | null;
  /** `plan.txt` of the pipeline (only asked when `pipeline` is set). */
  planText(): string;
  /** The applicable targets' emissions, in target order (run on the first call, then kept). */
  emit(): Promise<TargetEmission[]>;
}

export interface SpecWorkOptions {
  cwd: string;
  env: EnvResolver;
  targets: Target[];
  diagnosticsOnly: boolean;
  readText?: (path: string) => string | null;
  /** A file generated earlier for a pipeline (the Iceberg field-id locks), relative to its output folder. */
  readPrevious: (pipeline: string, path: string) => string | null;
}

export async function compileSpec(file: string, opts: SpecWorkOptions): Promise<SpecOutcome> {
  const r = await compileFile(file, { cwd: opts.cwd, env: opts.env, ...(opts.readText ? { readText: opts.readText } : {}) });
  const plan = r.plan;
  if (!plan || r.diagnostics.hasErrors) return { result: r, pipeline: null, planText: () => '', emit: async () => [] };
  const name = plan.pipeline.name;
  const at = r.ast?.statements.find((s) => s.kind === 'pipeline')?.span ?? syntheticSpan(file);
  let emitted: Promise<TargetEmission[]> | undefined;
  const emit = async (): Promise<TargetEmission[]> => {
    // Lowered once: every target realises the same physical decisions and connector configs.
    const physical = lowerPlan(plan);
    const out: TargetEmission[] = [];
    for (const target of opts.targets) {
      if (!target.appliesTo(plan)) continue;
      const bag = new DiagnosticBag();
      const files = await target.emit(plan, {
        diagnostics: bag,
        diagnosticsOnly: opts.diagnosticsOnly,
        physical,
        readPrevious: (p) => opts.readPrevious(name, p),
      });
      out.push({ files, diagnostics: bag.items });
    }
    return out;
  };
  return { result: r, pipeline: { name, at }, planText: () => printPlanText(plan), emit: () => (emitted ??= emit()) };
}
