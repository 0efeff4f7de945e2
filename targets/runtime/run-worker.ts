// The entry module of one worker thread of `pipec run --workers N` (lib/workers/): it makes the
// pipeline's definition from the same generated body the main thread ran, then runs its share.
// Bundled as dist/run-worker.mjs (scripts/bundle.mjs); from source, run-worker-tsx.mjs loads it.
import { parentPort, workerData } from 'node:worker_threads';
import { instantiateBody } from './instantiate-body.ts';
import { runWorker } from './lib/workers/worker-run.ts';
import type { WorkerData } from './lib/workers/protocol.ts';

const data = workerData as WorkerData;
let def;
try {
  def = instantiateBody(data.body, data.env, data.modules);
} catch (e) {
  parentPort!.postMessage({ t: 'failed', message: (e as Error).message });
  throw e;
}
await runWorker(def, data, parentPort!);
