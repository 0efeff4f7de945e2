// Evaluates generated body text against the library (what `definePipeline(env)` does in the
// module), with the named runtime modules: `pipec run` in the main thread (index.ts) and in
// each of its worker threads (run-worker.ts) make the definition the same way.
import * as lib from './lib/index.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';
import { ALL_MODULES } from './all-modules.ts';

type Define = (rt: typeof lib, env: Record<string, string | undefined>) => PipelineDef;

// The last body's compiled function, reused for the same text. Every call still makes a fresh
// definition (its own closures and state); what the reuse keeps is V8's identity of the
// generated functions: a new Function per instantiation gives the library's shared call sites
// (WindowAggOp.push → fns.add, the source's emit) a new target each time, and after a few
// they turn megamorphic and stop inlining — measured in test/bench/runtime.bench.ts, which
// instantiates the same body once per round, as a median ratio of 0.73–0.89 against 0.96–1.01.
let lastBody: string | null = null;
let lastDefine: Define | null = null;

/** Default modules: all of them. */
export function instantiateBody(body: string, env: Record<string, string | undefined>, modules?: readonly string[]): PipelineDef {
  let define = lastBody === body ? lastDefine : null;
  if (define === null) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    define = new Function('rt', 'env', body) as Define;
    lastBody = body;
    lastDefine = define;
  }
  const def = define(lib, env);
  return { ...def, modules: modules ? ALL_MODULES.filter((m) => modules.includes(m.name)) : ALL_MODULES };
}
