// Evaluates generated body text against the library (what `definePipeline(env)` does in the
// module), with the named runtime modules: `pipec run` in the main thread (index.ts) and in
// each of its worker threads (run-worker.ts) make the definition the same way.
import * as lib from './lib/index.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';
import { ALL_MODULES } from './all-modules.ts';

/** Default modules: all of them. */
export function instantiateBody(body: string, env: Record<string, string | undefined>, modules?: readonly string[]): PipelineDef {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const define = new Function('rt', 'env', body) as (rt: typeof lib, env: Record<string, string | undefined>) => PipelineDef;
  const def = define(lib, env);
  return { ...def, modules: modules ? ALL_MODULES.filter((m) => modules.includes(m.name)) : ALL_MODULES };
}
