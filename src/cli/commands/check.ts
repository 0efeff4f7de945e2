// `pipec check [paths] [--target T]`: parse, resolve schemas, type-check and lint, then run the
// targets' diagnostic passes in memory (nothing is written), so `check --deny-warnings` sees
// every warning `build` would give; exit 1 on errors.
import { discoverSpecs } from '../../build/discover.ts';
import { buildSpecs } from '../../build/build.ts';
import { resolveTargets } from '../../build/targets.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { reportMissing, specPaths } from './shared.ts';
import { failed, printDiagnostics, type CommandContext, type DiagnosticFormat } from '../context.ts';

export interface CheckArgs {
  paths: string[];
  format: DiagnosticFormat;
  denyWarnings: boolean;
  /** Targets whose diagnostics to include: `all` (default), a name, or a comma list. */
  target?: string;
}

export async function checkCommand(ctx: CommandContext, args: CheckArgs): Promise<number> {
  const targets = resolveTargets(args.target ?? 'all');
  if (typeof targets === 'string') {
    ctx.io.stderr(`pipec: ${targets}\n`);
    return 2;
  }
  const paths = specPaths(ctx, args.paths, 'check');
  if (!paths) return 2;
  const { files, missing, notSpecs } = discoverSpecs(paths, ctx.cwd);
  // The same driver as `build` (so duplicate pipeline names and target warnings are reported
  // alike), with the targets told that only their diagnostics are wanted.
  const result = await buildSpecs({ cwd: ctx.cwd, env: ctx.env, files, targets, outDir: 'generated', diagnosticsOnly: true });
  const all: Diagnostic[] = [...reportMissing(missing, notSpecs), ...result.results.flatMap((r) => r.diagnostics.sorted())];
  printDiagnostics(ctx, all, args.format);
  const n = files.length;
  if (args.format === 'text' && n > 0 && !failed(all, args.denyWarnings)) {
    ctx.io.stderr(`checked ${n} spec${n === 1 ? '' : 's'}: ok\n`);
  }
  if (files.length === 0 && missing.length === 0 && notSpecs.length === 0) {
    ctx.io.stderr(`pipec: no .pipe.sql or .pipe.yaml files found in ${paths.join(', ')}\n`);
    return 1;
  }
  return failed(all, args.denyWarnings) ? 1 : 0;
}
