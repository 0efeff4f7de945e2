// The entry module of one worker thread of `pipec run --workers N` (lib/workers/): it makes the
// pipeline's definition from the same generated body the main thread ran, then runs its share.
// Workers read only file sources (lib/workers/support.ts) and hand sink rows to the main thread,
// so this imports the library and the file source alone — not every connector (all-modules.ts):
// each worker pays for what it loads at start. Bundled as dist/run-worker.mjs
// (scripts/bundle.mjs); from source, run-worker-tsx.mjs loads it.
import { parentPort, workerData } from 'node:worker_threads';
import { defineBody } from './define-body.ts';
import { fileSourceModule } from './lib/modules/file-source.ts';
import type { PipelineDef } from './lib/pipeline-types.ts';
import { runWorker } from './lib/workers/worker-run.ts';
import type { WorkerData } from './lib/workers/protocol.ts';

const data = workerData as WorkerData;
let def: PipelineDef | null = null;
try {
  def = { ...defineBody(data.body, data.env), modules: [fileSourceModule] };
} catch (e) {
  // Said once, by the main thread (which then ends the run); the thread just ends.
  parentPort!.postMessage({ t: 'failed', message: (e as Error).message });
}
if (def) await runWorker(def, data, parentPort!);
