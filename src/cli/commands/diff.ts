// `pipec diff <old> <new>`: compiles both versions of a spec and reports what the change does
// to state, sink schemas and generated files: compatible, needs backfill, or breaking.
import { compileFile } from '../../build/compile.ts';
import { specPath } from '../../build/discover.ts';
import { diffPlans, overallImpact } from '../../build/diff.ts';
import { buildSpecs } from '../../build/build.ts';
import { resolveTargets } from '../../build/targets.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface DiffArgs {
  oldFile: string | undefined;
  newFile: string | undefined;
}

export async function diffCommand(ctx: CommandContext, args: DiffArgs): Promise<number> {
  if (!args.oldFile || !args.newFile) {
    ctx.io.stderr('pipec diff: give the old and the new spec file\n');
    return 2;
  }
  const [oldFile, newFile] = [specPath(args.oldFile, ctx.cwd), specPath(args.newFile, ctx.cwd)];
  const [a, b] = [await compileFile(oldFile, { cwd: ctx.cwd, env: ctx.env }), await compileFile(newFile, { cwd: ctx.cwd, env: ctx.env })];
  printDiagnostics(ctx, [...a.diagnostics.sorted(), ...b.diagnostics.sorted()], 'text');
  if (!a.plan || !b.plan || a.diagnostics.hasErrors || b.diagnostics.hasErrors) return 1;
  const findings = diffPlans(a.plan, b.plan);
  for (const f of findings) ctx.io.stdout(`${f.impact.padEnd(15)} ${f.subject}: ${f.message}\n`);
  const targets = resolveTargets('all');
  if (typeof targets !== 'string') {
    const opts = { cwd: ctx.cwd, env: ctx.env, targets, outDir: 'generated' };
    const [ba, bb] = [await buildSpecs({ ...opts, files: [oldFile] }), await buildSpecs({ ...opts, files: [newFile] })];
    const strip = (k: string): string => k.slice(k.indexOf('/') + 1);
    const fa = new Map([...ba.outputs].map(([k, v]) => [strip(k), Buffer.from(v)]));
    for (const [k, v] of bb.outputs) {
      const before = fa.get(strip(k));
      if (!before) ctx.io.stdout(`generated       ${strip(k)}: new file\n`);
      else if (!before.equals(Buffer.from(v))) ctx.io.stdout(`generated       ${strip(k)}: changed\n`);
    }
  }
  const impact = overallImpact(findings);
  ctx.io.stdout(`\nimpact: ${impact}\n`);
  return impact === 'breaking' ? 1 : 0;
}
