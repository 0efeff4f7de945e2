// The runtime library that every generated pipeline module imports (as `@pipec/runtime`)
// and that the esbuild bundle contains. Generated code calls these helpers; the runner does
// the rest.
export * from './values.ts';
export * from './int-wrap.ts';
export { compareStrings, compareValues } from './compare-strings.ts';
export * as sql from './sql-fns.ts';
export { hllNew, hllAdd, hllMerge, hllCount } from './hll.ts';
export { runPipelineDef, type RunOptions } from './runner.ts';
export { start, type RunHandle, type RunMetrics, type StartOptions } from './start.ts';
export { RunError, RunUsageError, ConnectorStartError, CheckpointRefusedError, CheckpointLockedError, RunFailedError, EXIT_CODES, exitCodeOf, type RunErrorCode, type RunResult } from './run-errors.ts';
export type { PipelineDef, Instance, Builders, GraphNode } from './pipeline-types.ts';
export type { SourceDef, ColumnDef, DecodeError, RunningSource, SourceSink, Coordinates } from './io/source-types.ts';
export { META, meta } from './io/source-types.ts';
export { registerSource, registerSink, type ConnectorContext, type RuntimeModule } from './connectors.ts';
export type { SinkDef, RunningSink } from './io/sinks.ts';
export type { AggFns, Row, Acc, RowKind } from './ops/types.ts';
export { rowKind, setRowKind, rawKind, withKindOf } from './ops/types.ts';
export { msAdd, msRemove, msExtreme, entriesRemove } from './ops/retractable.ts';
export { changelogSink, upsertAction } from './io/sinks.ts';
import * as path from 'node:path';
import { runPipelineDef } from './runner.ts';
import { noteSubstituted } from './hidden-values.ts';
import type { PipelineDef } from './pipeline-types.ts';
import type { RuntimeModule } from './connectors.ts';

/** Replaces `${NAME}` in an option template; a missing variable is an error, never ''. */
export function subst(template: string, env: Record<string, string | undefined>): string {
  return template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    // Own properties only: `${constructor}` is a variable name, not Object.prototype's.
    const v = Object.hasOwn(env, name) ? env[name] : undefined;
    if (v === undefined) throw new MissingEnvError(name);
    noteSubstituted(name, v);
    return v;
  });
}

export class MissingEnvError extends Error {
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set`);
  }
}

const resolveOpt = (p: string | undefined): string | undefined => (p === undefined ? undefined : path.resolve(p));

/**
 * Entry point of a bundled pipeline: `node pipeline.mjs [--checkpoint-dir D] [--metrics-port P] [--base-dir D] [--member-id ID]`.
 * `modules`: the runtime modules the generated module imports (its `modules` export).
 */
export async function main(define: (env: Record<string, string | undefined>) => PipelineDef, modules: readonly RuntimeModule[] = []): Promise<void> {
  const args = process.argv.slice(2);
  const get = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  let def: PipelineDef;
  try {
    def = { ...define(process.env), modules };
  } catch (e) {
    if (e instanceof MissingEnvError) {
      process.stderr.write(`pipec: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
  const port = get('--metrics-port') ?? process.env.PIPEC_METRICS_PORT;
  const { exitCode } = await runPipelineDef(def, {
    baseDir: resolveOpt(get('--base-dir')) ?? process.cwd(),
    checkpointDir: resolveOpt(get('--checkpoint-dir') ?? process.env.PIPEC_CHECKPOINT_DIR),
    metricsPort: port !== undefined ? Number(port) : undefined,
    memberId: get('--member-id'),
    status: process.stderr.isTTY ? 'tty' : 'none',
    env: process.env,
  });
  process.exitCode = exitCode;
  // The run is over: a client's lingering sockets or retry timers must not keep the process alive.
  setTimeout(() => process.exit(), 2000).unref();
}
