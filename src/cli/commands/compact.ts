// `pipec compact <file>`: runs the pipeline's Iceberg compaction policies once, each action an
// atomic commit (or, for orphan removal, a delete of unreachable files only).
import { dirname, resolve } from 'node:path';
import { compileFile } from '../../build/compile.ts';
import { specPath } from '../../build/discover.ts';
import { runCompaction } from '../../build/compact.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface CompactArgs {
  file: string | undefined;
}

export async function compactCommand(ctx: CommandContext, args: CompactArgs): Promise<number> {
  if (!args.file) {
    ctx.io.stderr('pipec compact: give one spec file\n');
    return 2;
  }
  const file = specPath(args.file, ctx.cwd);
  const r = await compileFile(file, { cwd: ctx.cwd, env: ctx.env });
  printDiagnostics(ctx, r.diagnostics.sorted(), 'text');
  if (!r.plan || r.diagnostics.hasErrors) return 1;
  if (r.plan.compactions.length === 0) {
    ctx.io.stderr(`pipec compact: ${file} declares no CREATE COMPACTION POLICY\n`);
    return 1;
  }
  // The same values `${NAME}` resolved from at compile time: the profile, overlaid by the environment.
  const outcome = await runCompaction(r.plan, resolve(ctx.cwd, dirname(file)), (line) => ctx.io.stdout(`${line}\n`), { ...ctx.resolvedEnv });
  for (const e of outcome.errors) ctx.io.stderr(`pipec compact: ${e}\n`);
  return outcome.errors.length ? 1 : 0;
}
