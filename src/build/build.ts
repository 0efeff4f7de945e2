// `pipec build`: compile every spec, run the chosen targets, and write (or, with --check,
// compare) `generated/<pipeline>/...` — the files a reviewer reads. Runnable bundles go to a
// separate, git-ignored folder (`<bundleDir>/<pipeline>/...`) and are never compared.
// Output is deterministic: sorted inputs, no clock times.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Target } from '../plan/target-api.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan } from '../diagnostics/span.ts';
import { compileFile, type CompileResult } from './compile.ts';
import { printPlanText } from '../plan/print/text.ts';

export interface BuildOptions {
  cwd: string;
  env: EnvResolver;
  files: string[];
  targets: Target[];
  outDir: string;
  /** Spec texts by path instead of the files on disk (the library API). */
  readText?: (path: string) => string | null;
  /**
   * A file generated earlier for a pipeline (the Iceberg field-id locks), relative to its
   * output folder. Default: read it from `<outDir>/<pipeline>/` on disk.
   */
  readPrevious?: (pipeline: string, path: string) => string | null;
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
  const owner = new Map<string, string>();
  for (const file of opts.files) {
    const r = await compileFile(file, { cwd: opts.cwd, env: opts.env, ...(opts.readText ? { readText: opts.readText } : {}) });
    results.push(r);
    if (!r.plan || r.diagnostics.hasErrors) continue;
    const name = r.plan.pipeline.name;
    const prev = owner.get(name);
    if (prev) {
      const at = r.ast?.statements.find((s) => s.kind === 'pipeline')?.span ?? syntheticSpan(file);
      r.diagnostics.report('duplicate-pipeline-name', at, { name, other: prev });
      continue;
    }
    owner.set(name, file);
    pipelines.push(name);
    outputs.set(`${name}/plan.txt`, printPlanText(r.plan));
    const pipelineDir = resolve(opts.cwd, opts.outDir, name);
    for (const target of opts.targets) {
      if (!target.appliesTo(r.plan)) continue;
      const bag = new DiagnosticBag();
      const files = await target.emit(r.plan, {
        diagnostics: bag,
        readPrevious: (p) => {
          if (opts.readPrevious) return opts.readPrevious(name, p);
          const full = join(pipelineDir, p);
          return existsSync(full) ? readFileSync(full, 'utf8') : null;
        },
      });
      r.diagnostics.addAll(bag.items);
      for (const f of files) (f.output === 'bundle' ? bundles : outputs).set(`${name}/${f.path}`, f.contents);
    }
  }
  const ok = results.every((r) => !r.diagnostics.hasErrors);
  return { results, outputs, bundles, pipelines, ok };
}

/** Writes the reviewable files under outDir and the bundles under bundleDir (each pipeline's folder replaced). */
export function writeOutputs(cwd: string, outDir: string, build: BuildResult, bundleDir: string = DEFAULT_BUNDLE_DIR): void {
  writeTree(resolve(cwd, outDir), build.pipelines, build.outputs);
  writeTree(resolve(cwd, bundleDir), build.pipelines, build.bundles);
}

/** Where `pipec build` puts runnable bundles unless `--bundle DIR` says otherwise. */
export const DEFAULT_BUNDLE_DIR = 'dist/bundles';

function writeTree(root: string, pipelines: string[], files: Map<string, string | Uint8Array>): void {
  for (const name of pipelines) rmSync(join(root, name), { recursive: true, force: true });
  for (const [rel, contents] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const full = join(root, rel);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, contents);
  }
}

export interface StaleReport {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Compares fresh outputs with what is committed under outDir (only the pipelines built). */
export function compareOutputs(cwd: string, outDir: string, build: BuildResult): StaleReport {
  const root = resolve(cwd, outDir);
  const report: StaleReport = { added: [], changed: [], removed: [] };
  for (const [rel, contents] of build.outputs) {
    const full = join(root, rel);
    if (!existsSync(full)) report.added.push(rel);
    else if (!Buffer.from(readFileSync(full)).equals(Buffer.from(contents))) report.changed.push(rel);
  }
  for (const name of build.pipelines) {
    for (const rel of listFiles(join(root, name), name)) if (!build.outputs.has(rel)) report.removed.push(rel);
  }
  for (const k of Object.values(report)) k.sort();
  return report;
}

function listFiles(dir: string, prefix: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, `${prefix}/${name}`));
    else out.push(`${prefix}/${name}`);
  }
  return out;
}
