// Runs one spec text through every stage a user can reach — check, diagnostic rendering (text,
// short, JSON), plan printing (text/json/dot), fmt in both directions with re-parse and
// idempotence, every target's emit, codegen syntax, and the output paths a build would write —
// and returns what went wrong. Used by the fuzz test; never writes outside `work`.
import { writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { transformSync } from 'esbuild';
import { compileFile, parseSpecText } from '../../src/build/compile.ts';
import { TARGETS } from '../../src/build/targets.ts';
import { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.ts';
import { lookupCode } from '../../src/diagnostics/registry.ts';
import { diagnosticsToJson, renderDiagnostics, renderShort } from '../../src/diagnostics/render.ts';
import { printPlanDot } from '../../src/plan/print/dot.ts';
import { printPlanJson } from '../../src/plan/print/json.ts';
import { printPlanText } from '../../src/plan/print/text.ts';
import { formatSql } from '../../src/syntax/format/to-sql.ts';
import { formatYaml } from '../../src/syntax/format/to-yaml.ts';
import type { EnvResolver } from '../../src/syntax/front-end.ts';
import { generateModule } from '../../targets/runtime/index.ts';

export interface StageOptions {
  work: string;
  env: EnvResolver;
  /** Also run the runtime target's full emit (an esbuild bundle: ~100 ms, so not every case). */
  bundle: boolean;
}

/** fmt keeps `${VAR}` as written (as `pipec fmt` does). */
const keepVariables: EnvResolver = { get: (name) => `\${${name}}` };

function badDiagnostics(ds: readonly Diagnostic[], stage: string): string[] {
  const out: string[] = [];
  for (const d of ds) {
    if (!lookupCode(d.code)) out.push(`${stage}: unknown diagnostic code ${d.code}`);
    if (!(d.span.start.line >= 1 && d.span.start.column >= 1)) out.push(`${stage}: ${d.code} has no real position`);
    if (d.code === 'internal-error') out.push(`${stage}: internal error: ${d.message}`);
  }
  return out;
}

/**
 * fmt of anything that parses must not throw; for a spec that checks clean, fmt → parse → fmt
 * must reach a fixed point with no errors, in both directions. (A spec with errors may not: an
 * unknown option is a check error in SQL but a parse error in YAML.)
 */
function fmtProblems(rel: string, text: string, valid: boolean): string[] {
  const bag = new DiagnosticBag();
  const ast = parseSpecText(rel, text, keepVariables, bag);
  const out = badDiagnostics(bag.items, 'fmt parse');
  if (bag.hasErrors) return out;
  for (const [to, ext, format] of [['sql', '.pipe.sql', formatSql], ['yaml', '.pipe.yaml', formatYaml]] as const) {
    const once = format(ast);
    if (!valid) continue;
    const again = new DiagnosticBag();
    const ast2 = parseSpecText(`fmt-out${ext}`, once, keepVariables, again);
    out.push(...badDiagnostics(again.items, `fmt --to ${to} re-parse`));
    if (again.hasErrors) {
      out.push(`fmt --to ${to} output does not parse: ${again.items.filter((d) => d.severity === 'error').map(renderShort).join('; ')}\n--- fmt output ---\n${once}`);
      continue;
    }
    const twice = format(ast2);
    if (twice !== once) out.push(`fmt --to ${to} is not idempotent\n--- once ---\n${once}\n--- twice ---\n${twice}`);
  }
  return out;
}

/** Where a build would write each output: every path must stay inside --out. */
function pathProblems(work: string, outputs: Iterable<string>, pipeline: string): string[] {
  const root = resolve(work, 'out');
  const inside = (p: string): boolean => {
    const r = relative(root, p);
    return r !== '' && !r.startsWith('..') && !isAbsolute(r);
  };
  const out: string[] = [];
  if (!inside(join(root, pipeline))) out.push(`build: pipeline folder '${pipeline}' resolves outside --out`);
  for (const rel of outputs) if (!inside(join(root, rel))) out.push(`build: output '${rel}' resolves outside --out`);
  return out;
}

export async function runStages(rel: string, text: string, opts: StageOptions): Promise<string[]> {
  const problems: string[] = [];
  writeFileSync(join(opts.work, rel), text);
  const r = await compileFile(rel, { cwd: opts.work, env: opts.env });
  const ds = r.diagnostics.sorted();
  problems.push(...badDiagnostics(ds, 'check'));
  // Rendering is part of every command's output; it must not throw or blow up in size.
  const rendered = renderDiagnostics(ds, { color: false, readSource: () => text });
  if (rendered.length > 64 * 1024 + 2 * text.length) problems.push(`render: ${rendered.length} chars for a ${text.length}-char input`);
  diagnosticsToJson(ds);
  problems.push(...fmtProblems(rel, text, r.plan !== null && !r.diagnostics.hasErrors));
  if (!r.plan || r.diagnostics.hasErrors) return problems;
  printPlanText(r.plan);
  printPlanJson(r.plan);
  printPlanDot(r.plan);
  const outputs: string[] = ['plan.txt'];
  for (const target of Object.values(TARGETS)) {
    if (!target || !target.appliesTo(r.plan)) continue;
    const bag = new DiagnosticBag();
    if (target.name === 'runtime' && !opts.bundle) {
      const { text: mod } = generateModule(r.plan);
      try {
        transformSync(mod, { format: 'esm', loader: 'js' });
      } catch (e) {
        problems.push(`codegen: generated module does not parse: ${(e as Error).message.split('\n')[0]}`);
      }
      outputs.push('runtime/pipeline.gen.mjs', 'runtime/bundle.lock.json');
      continue;
    }
    const files = await target.emit(r.plan, { diagnostics: bag, readPrevious: () => null });
    problems.push(...badDiagnostics(bag.items, `build ${target.name}`));
    for (const f of files) outputs.push(f.path);
  }
  problems.push(...pathProblems(opts.work, outputs.map((p) => `${r.plan!.pipeline.name}/${p}`), r.plan.pipeline.name));
  return problems;
}
