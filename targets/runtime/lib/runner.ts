// Runs a pipeline to an exit code: what the entry points (the bundle's `main`, `pipec run`,
// `pipec test`) do with an Engine. The engine throws or reports typed RunErrors
// (run-errors.ts); here each is printed once as `pipec: <message>` — a failure while running at
// the moment it happens, a refusal at start when the engine gives up — and the exit code is
// picked from the one table (EXIT_CODES; 128 + the signal's number after a clean stop by a signal).
import { Engine, type RunOptions } from './engine.ts';
import { exitCodeOf, RunError } from './run-errors.ts';
import type { PipelineDef } from './pipeline-types.ts';
import { prometheusText } from './metrics.ts';

export type { RunOptions };

export async function runPipelineDef(def: PipelineDef, opts: RunOptions): Promise<{ exitCode: number }> {
  const printed = new Set<RunError>();
  const print = (e: RunError): void => {
    printed.add(e);
    engine.message(`pipec: ${e.message}\n`);
  };
  const engine: Engine = new Engine(def, { ...opts, onError: print });
  try {
    return { exitCode: exitCodeOf(await engine.run()) };
  } catch (e) {
    if (!(e instanceof RunError)) throw e;
    if (!printed.has(e)) print(e);
    return { exitCode: exitCodeOf(e) };
  }
}

export { prometheusText };
