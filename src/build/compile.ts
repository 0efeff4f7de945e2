// Compiles one spec file through the phases: parse (SQL or YAML) → check (plan IR) → lint →
// suppressions → optimize. Each phase reports into one DiagnosticBag and the next phase runs
// as far as it meaningfully can, so a file's mistakes are all reported in one run.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parsePipeSql } from '../syntax/sql/index.ts';
import { parsePipeYaml } from '../syntax/yaml/index.ts';
import { checkPipeline } from '../check/index.ts';
import { lintPipeline } from '../lint/index.ts';
import { optimizePlan } from '../plan/optimize/index.ts';
import { createSchemaLoader } from '../schema/index.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { syntheticSpan } from '../diagnostics/span.ts';
import type { PipeFile } from '../syntax/ast.ts';
import type { EnvResolver } from '../syntax/front-end.ts';
import type { PlanDoc } from '../plan/ir.ts';
import type { SchemaLoader } from '../schema/schema-loader.ts';
import { applySuppressions } from './suppress.ts';
import { isSpecFile } from './discover.ts';

export interface CompileOptions {
  /** Working directory; spec paths are relative to it. */
  cwd: string;
  env: EnvResolver;
  /** Schema loader override (tests); by default one per spec, resolving `file:` paths against its folder. */
  schemas?: SchemaLoader;
  /** Skip the optimizer (for `pipec plan --no-optimize` and tests). */
  optimize?: boolean;
  /** The spec's text by path (the library API's in-memory sources); null = not found. Default: the file on disk. */
  readText?: (path: string) => string | null;
}

export interface CompileResult {
  path: string;
  text: string | null;
  ast: PipeFile | null;
  /** The optimized plan; null when errors left no meaningful plan. */
  plan: PlanDoc | null;
  diagnostics: DiagnosticBag;
}

export function parseSpecText(path: string, text: string, env: EnvResolver, diagnostics: DiagnosticBag): PipeFile {
  const ctx = { file: path, env, diagnostics };
  return path.endsWith('.pipe.sql') ? parsePipeSql(text, ctx) : parsePipeYaml(text, ctx);
}

export async function compileFile(path: string, opts: CompileOptions): Promise<CompileResult> {
  const diagnostics = new DiagnosticBag();
  // The ending says which syntax to parse; anything else is named, not guessed at as YAML.
  if (!isSpecFile(path)) {
    diagnostics.report('not-a-spec-file', syntheticSpan(path), { path });
    return { path, text: null, ast: null, plan: null, diagnostics };
  }
  let text: string | null;
  try {
    text = opts.readText ? opts.readText(path) : readFileSync(resolve(opts.cwd, path), 'utf8');
  } catch {
    text = null;
  }
  if (text === null) {
    diagnostics.report('file-not-found', syntheticSpan(path), { path });
    return { path, text: null, ast: null, plan: null, diagnostics };
  }
  const ast = parseSpecText(path, text, opts.env, diagnostics);
  const baseDir = resolve(opts.cwd, dirname(path));
  const schemas = opts.schemas ?? createSchemaLoader({ baseDir, env: opts.env });
  const checked = await checkPipeline(ast, { diagnostics, schemas, baseDir, relFile: path });
  if (checked) lintPipeline(checked, diagnostics);
  applySuppressions(ast, diagnostics);
  const plan = checked && opts.optimize !== false ? optimizePlan(checked) : checked;
  return { path, text, ast, plan, diagnostics };
}
