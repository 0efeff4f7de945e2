// The runtime target's public face: the target and module generator (target.ts), and running
// a plan in-process for `pipec run` by evaluating the same generated code against the library
// with the runtime modules the plan uses, loaded then (module-loaders.ts).
import type { PlanDoc } from '../../src/plan/ir.ts';
import { generateBody } from './codegen/module.ts';
import * as lib from './lib/index.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineBody } from './define-body.ts';
import { loadRuntimeModules } from './module-loaders.ts';
import { probePlan, unsupportedForWorkers } from './lib/workers/support.ts';
import { runWithWorkers } from './lib/workers/coordinator.ts';
import { autoWorkerCount, sourceFileSizes } from './lib/workers/auto.ts';
import { availableParallelism } from 'node:os';

export { generateModule, runtimeTarget, type ModuleText } from './target.ts';

/** What `pipec run` passes: the runner's options without its test-only in-memory sources. */
export type RunPipelineOptions = Omit<lib.RunOptions, 'memorySources'> & {
  /**
   * `pipec run --workers N`: N worker threads (lib/workers/); absent or 1: the one-thread
   * engine; 'auto' (`pipec run` without `--workers`): one per core when the plan and its input
   * gain from it (lib/workers/auto.ts), else one thread.
   */
  workers?: number | 'auto';
};

/** Builds the pipeline in memory from the plan and runs it in this process. */
export async function runPipeline(plan: PlanDoc, opts: RunPipelineOptions): Promise<{ exitCode: number }> {
  const err = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  const { body, unsupported, modules } = generateBody(plan);
  if (unsupported.length > 0) {
    for (const u of unsupported) err(`error[runtime-unsupported]: the runtime target cannot run ${u.what} (used by '${u.name}')\n`);
    return { exitCode: 1 };
  }
  let def: PipelineDef;
  try {
    def = { ...defineBody(body, opts.env), modules: await loadRuntimeModules(modules.map((m) => m.module)) };
  } catch (e) {
    if (e instanceof lib.MissingEnvError) {
      err(`error[runtime-missing-env]: environment variable ${e.variable} is not set\n`);
      return { exitCode: 1 };
    }
    throw e;
  }
  // The default keeps a status line or metrics endpoint on one thread: nothing else to look at.
  const oneThreadFeatures = opts.status === 'tty' || opts.metricsPort !== undefined;
  if (opts.workers === undefined || opts.workers === 1 || (opts.workers === 'auto' && oneThreadFeatures)) return lib.runPipelineDef(def, opts);
  // Refused by name before anything starts: a plan the workers cannot partition yet would give wrong answers.
  const refused = unsupportedForWorkers(def, probePlan(def, () => ({ def: { changelog: null, upsertKey: null } }) as never));
  if (opts.metricsPort !== undefined) refused.push({ id: def.name, why: 'the metrics endpoint (--metrics-port is not served by worker threads yet)' });
  let workers: number;
  if (opts.workers === 'auto') {
    // The files are only looked at when the plan could run on workers at all.
    const files = refused.length > 0 ? [] : await sourceFileSizes(def, opts.baseDir);
    workers = autoWorkerCount({ cores: availableParallelism(), files, refused, oneThreadFeatures });
    if (workers <= 1) return lib.runPipelineDef(def, opts);
    err(`note: running on ${workers} worker threads, one per core (each a key partition; sinks get rows in another order than on one thread); --workers 1 runs one thread\n`);
  } else workers = opts.workers;
  if (refused.length > 0) {
    for (const u of refused) err(`error[workers-unsupported]: --workers ${workers} cannot run '${u.id}': ${u.why}; run it with --workers 1\n`);
    return { exitCode: 2 };
  }
  return runWithWorkers(def, opts, { workers, entry: workerEntry(), body, modules: modules.map((m) => m.module) });
}


/**
 * The worker threads' entry module: the bundle's dist/run-worker.mjs beside the CLI's chunks,
 * or, from source, the loader that brings tsx into the worker first.
 */
function workerEntry(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./run-worker-tsx.mjs', here);
  for (const rel of ['../run-worker.mjs', './run-worker.mjs']) {
    const u = new URL(rel, here);
    if (existsSync(fileURLToPath(u))) return u;
  }
  throw new Error('pipec: dist/run-worker.mjs is missing (run npm run build)');
}
