// `pipec build [paths] [--target T] [--out DIR] [--bundle DIR] [--check]`: everything check
// does, then each target's artifacts (reviewable files under --out, runtime bundles under
// --bundle); with --check, fail when the committed outputs differ from a fresh build.
import { discoverSpecs } from '../../build/discover.ts';
import { DEFAULT_BUNDLE_DIR, buildSpecs, compareOutputs, OutputPathError } from '../../build/build.ts';
import { writeBuild } from '../../build/write-build.ts';
import { resolveTargets } from '../../build/targets.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { failed, printDiagnostics, type CommandContext, type DiagnosticFormat } from '../context.ts';
import { reportMissing, specPaths } from './shared.ts';

export interface BuildArgs {
  paths: string[];
  target: string;
  out: string;
  check: boolean;
  /** Where runtime bundles go: `<bundleDir>/<pipeline>/pipeline.mjs` (git-ignored; not compared by --check). Default dist/bundles. */
  bundleDir?: string | undefined;
  format: DiagnosticFormat;
  denyWarnings: boolean;
}

export async function buildCommand(ctx: CommandContext, args: BuildArgs): Promise<number> {
  const targets = resolveTargets(args.target);
  if (typeof targets === 'string') {
    ctx.io.stderr(`pipec: ${targets}\n`);
    return 2;
  }
  const paths = specPaths(ctx, args.paths, 'build');
  if (!paths) return 2;
  const { files, missing, notSpecs } = discoverSpecs(paths, ctx.cwd);
  const result = await buildSpecs({ cwd: ctx.cwd, env: ctx.env, files, targets, outDir: args.out, parallel: { env: ctx.resolvedEnv } });
  const all: Diagnostic[] = [...reportMissing(missing, notSpecs), ...result.results.flatMap((r) => r.diagnostics.sorted())];
  printDiagnostics(ctx, all, args.format);
  if (failed(all, args.denyWarnings)) return 1;
  try {
    return await report(ctx, args, result, files.length);
  } catch (e) {
    // Defence in depth behind `unsafe-path-name`: a path outside --out is refused, never written.
    if (e instanceof OutputPathError) {
      ctx.io.stderr(`pipec build: ${e.message}\n`);
      return 1;
    }
    // A file-system failure (no space, no permission, a file where --out should be) is the
    // user's to fix: say which path, not "internal error".
    const fsError = e as NodeJS.ErrnoException;
    if (typeof fsError?.code === 'string' && typeof fsError.path === 'string') {
      ctx.io.stderr(`pipec build: cannot write ${fsError.path}: ${fsError.code} (${fsError.message})\n`);
      return 1;
    }
    throw e;
  }
}

async function report(ctx: CommandContext, args: BuildArgs, result: Awaited<ReturnType<typeof buildSpecs>>, specCount: number): Promise<number> {
  if (args.check) {
    const stale = compareOutputs(ctx.cwd, args.out, result);
    const n = stale.added.length + stale.changed.length + stale.removed.length;
    if (n === 0) {
      ctx.io.stderr(`${args.out}/ is up to date (${result.outputs.size} files from ${specCount} specs)\n`);
      return 0;
    }
    ctx.io.stderr(`${args.out}/ is stale: ${n} file${n === 1 ? '' : 's'} differ from a fresh build\n`);
    for (const f of stale.changed) ctx.io.stderr(`  changed  ${args.out}/${f}\n`);
    for (const f of stale.added) ctx.io.stderr(`  missing  ${args.out}/${f}\n`);
    for (const f of stale.removed) ctx.io.stderr(`  extra    ${args.out}/${f}\n`);
    ctx.io.stderr(`run \`pipec build${args.paths.length ? ` ${args.paths.join(' ')}` : ''}\` and commit ${args.out}/\n`);
    return 1;
  }
  const bundleDir = args.bundleDir ?? DEFAULT_BUNDLE_DIR;
  const written = await writeBuild(ctx.cwd, args.out, bundleDir, result);
  for (const note of written.notes) ctx.io.stderr(`note: ${note}\n`);
  if (written.removed.length) ctx.io.stderr(`removed ${written.removed.length} stale file${written.removed.length === 1 ? '' : 's'} a previous build wrote\n`);
  ctx.io.stderr(`wrote ${result.outputs.size} files for ${result.pipelines.length} pipeline${result.pipelines.length === 1 ? '' : 's'} to ${args.out}/\n`);
  if (result.bundles.size > 0) ctx.io.stderr(`wrote ${result.bundles.size} runtime bundle${result.bundles.size === 1 ? '' : 's'} to ${bundleDir}/ (run one with \`node ${bundleDir}/<pipeline>/pipeline.mjs\`)\n`);
  return 0;
}
