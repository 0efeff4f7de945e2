// `pipec run <file>`: compile, then run the runtime target in-process until a bounded source
// ends or the user stops it (Ctrl-C checkpoints and exits cleanly).
import { dirname, resolve } from 'node:path';
import { compileFile } from '../../build/compile.ts';
import { specPath } from '../../build/discover.ts';
import { runPipeline } from '../../build/run.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface RunArgs {
  file: string | undefined;
  checkpointDir: string | null;
  metricsPort: number | null;
  /** Scaled-out pipelines: this process's member id (else PIPEC_MEMBER_ID, else the host name). */
  memberId?: string | null;
  /** `--workers N`: worker threads (null: one per core when the plan and input gain from it, else 1; targets/runtime/lib/workers/auto.ts). */
  workers?: number | null;
}

export async function runCommand(ctx: CommandContext, args: RunArgs): Promise<number> {
  if (!args.file) {
    ctx.io.stderr('pipec run: give one spec file\n');
    return 2;
  }
  const file = specPath(args.file, ctx.cwd);
  const r = await compileFile(file, { cwd: ctx.cwd, env: ctx.env });
  printDiagnostics(ctx, r.diagnostics.sorted(), 'text');
  if (!r.plan || r.diagnostics.hasErrors) return 1;
  // The same values `${NAME}` resolved from at compile time: the profile, overlaid by the environment.
  const env: Record<string, string | undefined> = { ...ctx.resolvedEnv };
  const result = await runPipeline(r.plan, {
    baseDir: resolve(ctx.cwd, dirname(file)),
    checkpointDir: args.checkpointDir ?? undefined,
    metricsPort: args.metricsPort ?? undefined,
    memberId: args.memberId ?? undefined,
    workers: args.workers ?? 'auto',
    status: ctx.io.isTty ? 'tty' : 'none',
    env,
  });
  return result.exitCode;
}
