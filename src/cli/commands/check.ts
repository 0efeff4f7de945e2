// `pipec check [paths]`: parse, resolve schemas, type-check and lint; exit 1 on errors.
import { discoverSpecs } from '../../build/discover.ts';
import { compileFile } from '../../build/compile.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { failed, printDiagnostics, type CommandContext, type DiagnosticFormat } from '../context.ts';
import { reportMissing } from './shared.ts';

export interface CheckArgs {
  paths: string[];
  format: DiagnosticFormat;
  denyWarnings: boolean;
}

export async function checkCommand(ctx: CommandContext, args: CheckArgs): Promise<number> {
  const { files, missing } = discoverSpecs(args.paths.length ? args.paths : ['.'], ctx.cwd);
  const all: Diagnostic[] = reportMissing(missing);
  for (const file of files) {
    const r = await compileFile(file, { cwd: ctx.cwd, env: ctx.env });
    all.push(...r.diagnostics.sorted());
  }
  printDiagnostics(ctx, all, args.format);
  if (args.format === 'text' && files.length > 0 && !failed(all, args.denyWarnings)) {
    ctx.io.stderr(`checked ${files.length} spec${files.length === 1 ? '' : 's'}: ok\n`);
  }
  if (files.length === 0 && missing.length === 0) {
    ctx.io.stderr('pipec: no .pipe.sql or .pipe.yaml files found\n');
    return 1;
  }
  return failed(all, args.denyWarnings) ? 1 : 0;
}
