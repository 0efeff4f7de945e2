// `pipec build`: compile every spec, run the chosen targets, and write (or, with --check,
// compare) `generated/<pipeline>/...` — the files a reviewer reads. Runnable bundles go to a
// separate, git-ignored folder (`<bundleDir>/<pipeline>/...`) and are never compared.
// Output is deterministic: sorted inputs, no clock times.
// Writing and comparing live in write-outputs.ts (paths confined to --out, manifest-based cleaning).
import type { Target } from '../plan/physical/target-api.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import type { CompileResult } from './compile.ts';
import { compileSpec, type SpecWorkOptions } from './spec-work.ts';
import { compileInParallel, parallelThreads, type ParallelOptions } from './build-parallel.ts';
import { OutputRoot } from './write-outputs.ts';

export interface BuildOptions {
  cwd: string;
  env: EnvResolver;
  files: string[];
  targets: Target[];
  outDir: string;
  /** Run the targets for their diagnostics only (`pipec check`): they may skip costly output. */
  diagnosticsOnly?: boolean;
  /** Spec texts by path instead of the files on disk (the library API). */
  readText?: (path: string) => string | null;
  /**
   * A file generated earlier for a pipeline (the Iceberg field-id locks), relative to its
   * output folder. Default: read it from `<outDir>/<pipeline>/` on disk.
   */
  readPrevious?: (pipeline: string, path: string) => string | null;
  /**
   * Lets a build of many specs compile them in worker threads, one per core (build-parallel.ts):
   * the same outputs, diagnostics and diagnostics order as one thread. Workers cannot share
   * `env`, so it is given again as plain values. Used only without readText/readPrevious, and
   * for builds large enough to repay a worker's start-up. The `results` of specs compiled in a
   * worker hold their diagnostics only (`text`, `ast` and `plan` are null).
   */
  parallel?: ParallelOptions;
}

export interface BuildResult {
  results: CompileResult[];
  /** Relative to outDir → contents: the reviewable files. */
  outputs: Map<string, string | Uint8Array>;
  /** Relative to the bundle folder (`<pipeline>/pipeline.mjs`) → contents. */
  bundles: Map<string, string | Uint8Array>;
  /** Pipelines whose outputs were produced (their folders are owned by the build). */
  pipelines: string[];
  ok: boolean;
}

export async function buildSpecs(opts: BuildOptions): Promise<BuildResult> {
  const results: CompileResult[] = [];
  const outputs = new Map<string, string | Uint8Array>();
  const bundles = new Map<string, string | Uint8Array>();
  const pipelines: string[] = [];
  // Keyed case-insensitively: `"A"` and `"a"` share a folder on macOS and Windows file systems.
  const owner = new Map<string, string>();
  const root = new OutputRoot(opts.cwd, opts.outDir);
  const work: SpecWorkOptions = {
    cwd: opts.cwd,
    env: opts.env,
    targets: opts.targets,
    diagnosticsOnly: opts.diagnosticsOnly ?? false,
    ...(opts.readText ? { readText: opts.readText } : {}),
    // Through the output guard: a name that slipped past the checker reads nothing outside --out.
    readPrevious: (name, p) => (opts.readPrevious ? opts.readPrevious(name, p) : (root.read(`${name}/${p}`)?.toString('utf8') ?? null)),
  };
  // Many specs: compiled on every core up front (build-parallel.ts). Otherwise one at a time,
  // each spec's targets run only once it is known to be kept.
  const threads = parallelThreads(opts);
  const parallel = threads > 1 ? await compileInParallel(opts.files, work, { ...opts.parallel!, threads, outDir: opts.outDir }) : null;
  for (const [i, file] of opts.files.entries()) {
    const spec = parallel ? parallel[i]! : await compileSpec(file, work);
    const r = spec.result;
    results.push(r);
    if (!spec.pipeline) continue;
    const { name, at } = spec.pipeline;
    const prev = owner.get(name.toLowerCase());
    if (prev) {
      r.diagnostics.report('duplicate-pipeline-name', at, { name, other: prev });
      continue;
    }
    owner.set(name.toLowerCase(), file);
    // The plan text reports nothing: `pipec check` (diagnosticsOnly) does not print it.
    const mine = new Map<string, string | Uint8Array>([[`${name}/plan.txt`, opts.diagnosticsOnly ? '' : spec.planText()]]);
    const myBundles = new Map<string, string | Uint8Array>();
    const folded = new Map<string, string>([[`${name}/plan.txt`.toLowerCase(), 'plan.txt']]);
    for (const emission of await spec.emit()) {
      r.diagnostics.addAll(emission.diagnostics);
      for (const f of emission.files) {
        const rel = `${name}/${f.path}`;
        if (f.output === 'bundle') {
          myBundles.set(rel, f.contents);
          continue;
        }
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
    for (const [k, v] of myBundles) bundles.set(k, v);
  }
  const ok = results.every((r) => !r.diagnostics.hasErrors);
  return { results, outputs, bundles, pipelines, ok };
}

export { compareOutputs, writeOutputs, OutputPathError, type StaleReport, type WriteReport } from './write-outputs.ts';

/** Where `pipec build` puts runnable bundles unless `--bundle DIR` says otherwise. */
export const DEFAULT_BUNDLE_DIR = 'dist/bundles';

export { writeBundles } from './write-bundles.ts';
