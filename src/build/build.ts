// `pipec build`: compile every spec, run the chosen targets, and write (or, with --check,
// compare) `generated/<pipeline>/...`. Output is deterministic: sorted inputs, no clock times.
// Writing and comparing live in write-outputs.ts (paths confined to --out, manifest-based cleaning).
import type { Target } from '../plan/target-api.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan } from '../diagnostics/span.ts';
import { compileFile, type CompileResult } from './compile.ts';
import { printPlanText } from '../plan/print/text.ts';
import { OutputRoot } from './write-outputs.ts';

export interface BuildOptions {
  cwd: string;
  env: EnvResolver;
  files: string[];
  targets: Target[];
  outDir: string;
  /** Run the targets for their diagnostics only (`pipec check`): they may skip costly output. */
  diagnosticsOnly?: boolean;
}

export interface BuildResult {
  results: CompileResult[];
  /** Relative to outDir → contents. */
  outputs: Map<string, string | Uint8Array>;
  /** Pipelines whose outputs were produced (their folders are owned by the build). */
  pipelines: string[];
  ok: boolean;
}

export async function buildSpecs(opts: BuildOptions): Promise<BuildResult> {
  const results: CompileResult[] = [];
  const outputs = new Map<string, string | Uint8Array>();
  const pipelines: string[] = [];
  // Keyed case-insensitively: `"A"` and `"a"` share a folder on macOS and Windows file systems.
  const owner = new Map<string, string>();
  const root = new OutputRoot(opts.cwd, opts.outDir);
  for (const file of opts.files) {
    const r = await compileFile(file, { cwd: opts.cwd, env: opts.env });
    results.push(r);
    if (!r.plan || r.diagnostics.hasErrors) continue;
    const name = r.plan.pipeline.name;
    const at = r.ast?.statements.find((s) => s.kind === 'pipeline')?.span ?? syntheticSpan(file);
    const prev = owner.get(name.toLowerCase());
    if (prev) {
      r.diagnostics.report('duplicate-pipeline-name', at, { name, other: prev });
      continue;
    }
    owner.set(name.toLowerCase(), file);
    const mine = new Map<string, string | Uint8Array>([[`${name}/plan.txt`, printPlanText(r.plan)]]);
    const folded = new Map<string, string>([[`${name}/plan.txt`.toLowerCase(), 'plan.txt']]);
    for (const target of opts.targets) {
      if (!target.appliesTo(r.plan)) continue;
      const bag = new DiagnosticBag();
      const files = await target.emit(r.plan, {
        diagnostics: bag,
        diagnosticsOnly: opts.diagnosticsOnly ?? false,
        // Through the output guard: a name that slipped past the checker reads nothing outside --out.
        readPrevious: (p) => root.read(`${name}/${p}`)?.toString('utf8') ?? null,
      });
      r.diagnostics.addAll(bag.items);
      for (const f of files) {
        const rel = `${name}/${f.path}`;
        // Two outputs on one path (or on paths that differ only in case) would overwrite each other.
        const clash = folded.get(rel.toLowerCase());
        if (clash !== undefined) r.diagnostics.report('output-path-collision', at, { pipeline: name, path: f.path, other: clash });
        else {
          folded.set(rel.toLowerCase(), f.path);
          mine.set(rel, f.contents);
        }
      }
    }
    if (r.diagnostics.hasErrors) continue;
    pipelines.push(name);
    for (const [k, v] of mine) outputs.set(k, v);
  }
  const ok = results.every((r) => !r.diagnostics.hasErrors);
  return { results, outputs, pipelines, ok };
}

export { compareOutputs, writeOutputs, OutputPathError, type StaleReport, type WriteReport } from './write-outputs.ts';
