// `pipec check [paths]`: parse, resolve schemas, type-check and lint; exit 1 on errors.
// A thin client of the library API's check().
import { check } from '../../api.ts';
import { failed, printDiagnostics, type CommandContext, type DiagnosticFormat } from '../context.ts';

export interface CheckArgs {
  paths: string[];
  format: DiagnosticFormat;
  denyWarnings: boolean;
}

export async function checkCommand(ctx: CommandContext, args: CheckArgs): Promise<number> {
  const r = await check({ files: args.paths.length ? args.paths : ['.'], cwd: ctx.cwd, envResolver: ctx.env });
  const all = r.diagnostics;
  const n = r.specs.length;
  printDiagnostics(ctx, all, args.format);
  if (args.format === 'text' && n > 0 && !failed(all, args.denyWarnings)) {
    ctx.io.stderr(`checked ${n} spec${n === 1 ? '' : 's'}: ok\n`);
  }
  if (n === 0 && all.length === 0) {
    ctx.io.stderr('pipec: no .pipe.sql or .pipe.yaml files found\n');
    return 1;
  }
  return failed(all, args.denyWarnings) ? 1 : 0;
}
