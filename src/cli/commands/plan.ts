// `pipec plan <file> [--format text|json|dot]`: the optimized plan with keys, changelog
// modes, state bounds and watermark paths.
import { compileFile } from '../../build/compile.ts';
import { specPath } from '../../build/discover.ts';
import { printPlanDot } from '../../plan/print/dot.ts';
import { printPlanJson } from '../../plan/print/json.ts';
import { printPlanText } from '../../plan/print/text.ts';
import { lowerPlan, printPhysicalDot, printPhysicalJson, printPhysicalText, type PhysicalPlan } from '../../build/physical-plan.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface PlanArgs {
  file: string | undefined;
  format: string;
  optimize: boolean;
  /** The physical plan (src/plan/physical/) instead of the logical one. */
  physical?: boolean;
}

export async function planCommand(ctx: CommandContext, args: PlanArgs): Promise<number> {
  if (!args.file) {
    ctx.io.stderr('pipec plan: give one spec file\n');
    return 2;
  }
  const file = specPath(args.file, ctx.cwd);
  const printers: Record<string, (p: Parameters<typeof printPlanText>[0]) => string> = {
    text: printPlanText,
    json: printPlanJson,
    dot: printPlanDot,
  };
  const physical: Record<string, (p: PhysicalPlan) => string> = { text: printPhysicalText, json: printPhysicalJson, dot: printPhysicalDot };
  const printer = args.physical ? (physical[args.format] ? (p: Parameters<typeof printPlanText>[0]) => physical[args.format]!(lowerPlan(p)) : undefined) : printers[args.format];
  if (!printer) {
    ctx.io.stderr(`pipec plan: unknown format '${args.format}' (text, json, dot)\n`);
    return 2;
  }
  const r = await compileFile(file, { cwd: ctx.cwd, env: ctx.env, optimize: args.optimize });
  printDiagnostics(ctx, r.diagnostics.sorted(), 'text');
  if (!r.plan || r.diagnostics.hasErrors) return 1;
  ctx.io.stdout(printer(r.plan));
  return 0;
}
