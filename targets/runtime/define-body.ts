// Evaluates generated body text against the library (what `definePipeline(env)` does in the
// module), without the runtime modules: the caller adds those it has (instantiate-body.ts
// every one at once, `pipec run` only those its plan uses, module-loaders.ts).
import * as lib from './lib/index.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';

type Define = (rt: typeof lib, env: Record<string, string | undefined>) => PipelineDef;

// The last body's compiled function, reused for the same text. Every call still makes a fresh
// definition (its own closures and state); what the reuse keeps is V8's identity of the
// generated functions: a new Function per instantiation gives the library's shared call sites
// (WindowAggOp.push → fns.add, the source's emit) a new target each time, and after a few
// they turn megamorphic and stop inlining — measured in test/bench/runtime.bench.ts, which
// instantiates the same body once per round, as a median ratio of 0.73–0.89 against 0.96–1.01.
let lastBody: string | null = null;
let lastDefine: Define | null = null;

/** The pipeline definition of a generated body; its `modules` are for the caller to set. */
export function defineBody(body: string, env: Record<string, string | undefined>): PipelineDef {
  let define = lastBody === body ? lastDefine : null;
  if (define === null) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    define = new Function('rt', 'env', body) as Define;
    lastBody = body;
    lastDefine = define;
  }
  return define(lib, env);
}
