// The runtime target's public face: the target and module generator (target.ts), and running
// a plan in-process for `pipec run` by evaluating the same generated code against the library
// with every runtime module (all-modules.ts).
import type { PlanDoc } from '../../src/plan/ir.ts';
import { generateBody } from './codegen/module.ts';
import * as lib from './lib/index.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';
import { ALL_MODULES } from './all-modules.ts';

export { generateModule, runtimeTarget, type ModuleText } from './target.ts';

/** What `pipec run` passes: the runner's options without its test-only in-memory sources. */
export type RunPipelineOptions = Omit<lib.RunOptions, 'memorySources'>;

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
    def = instantiateBody(body, opts.env, modules.map((m) => m.module));
  } catch (e) {
    if (e instanceof lib.MissingEnvError) {
      err(`error[runtime-missing-env]: environment variable ${e.variable} is not set\n`);
      return { exitCode: 1 };
    }
    throw e;
  }
  return lib.runPipelineDef(def, opts);
}

/**
 * Evaluates generated body text against the library (what `definePipeline(env)` does in the
 * module), with the named runtime modules (default: all of them).
 */
export function instantiateBody(body: string, env: Record<string, string | undefined>, modules?: readonly string[]): PipelineDef {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const define = new Function('rt', 'env', body) as (rt: typeof lib, env: Record<string, string | undefined>) => PipelineDef;
  const def = define(lib, env);
  return { ...def, modules: modules ? ALL_MODULES.filter((m) => modules.includes(m.name)) : ALL_MODULES };
}
